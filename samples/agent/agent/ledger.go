package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Ledger is a file that records every effect the booking tool has: one JSON
// line per seat booked. It books once per idempotency key: a call whose key
// is already there gets that booking back and records nothing.
type Ledger struct {
	path string
	mu   sync.Mutex
}

// LedgerEntry is one effect: a seat booked.
type LedgerEntry struct {
	Key          string    `json:"key"`
	Flight       string    `json:"flight"`
	Passenger    string    `json:"passenger"`
	Seat         string    `json:"seat"`
	Confirmation string    `json:"confirmation"`
	Attempt      int       `json:"attempt"`
	Time         time.Time `json:"time"`
}

// NewLedger returns the ledger kept in path; the file is created at the first
// booking.
func NewLedger(path string) *Ledger { return &Ledger{path: path} }

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.path }

// Book records a booking unless one with key is already recorded, and returns
// the recorded entry and whether it is new. An empty key dedupes nothing:
// every call is an effect.
func (l *Ledger) Book(key string, b Booking, attempt int, now time.Time) (LedgerEntry, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	entries, err := l.read()
	if err != nil {
		return LedgerEntry{}, false, err
	}
	if key != "" {
		for _, e := range entries {
			if e.Key == key {
				return e, false, nil
			}
		}
	}
	e := LedgerEntry{
		Key: key, Flight: b.Flight, Passenger: b.Passenger, Seat: b.Seat,
		Confirmation: fmt.Sprintf("CNF-%04d", len(entries)+1), Attempt: attempt, Time: now.UTC(),
	}
	line, err := json.Marshal(e)
	if err != nil {
		return LedgerEntry{}, false, fmt.Errorf("ledger: encoding an entry: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return LedgerEntry{}, false, fmt.Errorf("ledger: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return LedgerEntry{}, false, fmt.Errorf("ledger: writing %s: %w", l.path, err)
	}
	if err := f.Close(); err != nil {
		return LedgerEntry{}, false, fmt.Errorf("ledger: closing %s: %w", l.path, err)
	}
	return e, true, nil
}

// Entries returns every effect recorded, in order.
func (l *Ledger) Entries() ([]LedgerEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.read()
}

func (l *Ledger) read() ([]LedgerEntry, error) {
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	var out []LedgerEntry
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if len(s.Bytes()) == 0 {
			continue
		}
		var e LedgerEntry
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("ledger: %s line %d: %w", l.path, n, err)
		}
		out = append(out, e)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("ledger: reading %s: %w", l.path, err)
	}
	return out, nil
}
