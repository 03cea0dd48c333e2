package temporaladk

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/temporaladk/adk-go/internal/kitcore"
)

// Heartbeat is what one heartbeat carries: the step, a token count, a chunk
// count and a time, and nothing else. There is no field for text: a
// heartbeat carrying the partial text is read as an answer by the first
// consumer in a hurry, and half a sentence rendered as a reply is worse than
// a spinner.
type Heartbeat struct {
	Step   string    `json:"step"`
	Tokens int64     `json:"tokens"`
	Chunks int64     `json:"chunks"`
	Time   time.Time `json:"time"`
}

// IsResult is always false: a heartbeat is never a result.
func (Heartbeat) IsResult() bool { return false }

// Heartbeater beats for a streaming activity: Chunk only updates its
// counters, and beats are sent on an interval of a third of the heartbeat
// window, never once per token (that would be a write per token).
//
// The kit's activity interceptor runs one for every activity with a
// heartbeat window and hands it to the activity through its context (see
// HeartbeaterFrom). It is safe for concurrent use.
type Heartbeater struct {
	record   func(Heartbeat)
	interval time.Duration
	clock    Clock
	// sending is held (a token in it) from a beat's snapshot until record
	// returns, so that beats reach record in the order they were taken:
	// the SDK keeps the last details it is handed, and a beat taken earlier
	// but handed later would carry the server's last heartbeat backwards.
	// A channel, not a mutex, so that a beat waiting for another is durably
	// blocked for testing/synctest.
	sending chan struct{}

	mu       sync.Mutex
	step     string
	tokens   int64
	chunks   int64
	lastBeat time.Time
	beats    int64
}

// NewHeartbeater returns a Heartbeater that sends beats to record, three
// per window of clock; step names what the activity is doing. The kit's
// activity interceptor builds one for every call with a heartbeat window; a
// test of an activity builds its own, on a testsuite.FakeClock whose moves
// drive Run's beats, and hands it over with testsuite.ActivityContext.
func NewHeartbeater(record func(Heartbeat), window time.Duration, clock Clock, step string) (*Heartbeater, error) {
	switch {
	case record == nil:
		return nil, fmt.Errorf("temporaladk: NewHeartbeater: record is nil")
	case clock == nil:
		return nil, fmt.Errorf("temporaladk: NewHeartbeater: clock is nil")
	case !kitcore.CanBeat(window):
		return nil, fmt.Errorf("temporaladk: NewHeartbeater: window is %v: it must be at least %dns to fit %d beats", window, kitcore.BeatsPerWindow, kitcore.BeatsPerWindow)
	}
	return newHeartbeater(record, window/kitcore.BeatsPerWindow, clock, step), nil
}

// newHeartbeater is the one place a Heartbeater is built, checked or not.
func newHeartbeater(record func(Heartbeat), interval time.Duration, clock Clock, step string) *Heartbeater {
	return &Heartbeater{record: record, interval: interval, clock: clock, step: step, sending: make(chan struct{}, 1)}
}

// Interval returns the time between beats: a third of the window.
func (h *Heartbeater) Interval() time.Duration { return h.interval }

// Chunk counts one chunk of a stream carrying tokens tokens. It sends
// nothing.
func (h *Heartbeater) Chunk(tokens int) {
	h.mu.Lock()
	h.chunks++
	h.tokens += int64(tokens)
	h.mu.Unlock()
}

// SetStep names what the activity is doing now; the next beat carries it.
func (h *Heartbeater) SetStep(step string) {
	h.mu.Lock()
	h.step = step
	h.mu.Unlock()
}

// Snapshot returns the heartbeat that would be sent now.
func (h *Heartbeater) Snapshot() Heartbeat {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Heartbeat{Step: h.step, Tokens: h.tokens, Chunks: h.chunks, Time: h.clock.Now()}
}

// Beats returns how many beats were sent.
func (h *Heartbeater) Beats() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.beats
}

// Beat sends a heartbeat now. Concurrent beats are sent one at a time, each
// with the counts of when its turn came, so the last one sent is the newest.
func (h *Heartbeater) Beat() {
	h.sending <- struct{}{}
	defer func() { <-h.sending }()
	h.mu.Lock()
	hb := Heartbeat{Step: h.step, Tokens: h.tokens, Chunks: h.chunks, Time: h.clock.Now()}
	h.lastBeat = hb.Time
	h.beats++
	h.mu.Unlock()
	h.record(hb)
}

// BeatIfDue sends a heartbeat when an interval has passed since the last one
// (or none was sent yet), and reports whether it did.
func (h *Heartbeater) BeatIfDue() bool {
	h.mu.Lock()
	due := h.beats == 0 || h.clock.Now().Sub(h.lastBeat) >= h.interval
	h.mu.Unlock()
	if due {
		h.Beat()
	}
	return due
}

// Run beats on the interval of its clock until ctx is done, starting with
// one beat at once. A slow first token is not a dead worker: the beats go on
// whether or not chunks arrive.
func (h *Heartbeater) Run(ctx context.Context) {
	h.Beat()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.clock.After(h.interval):
			h.Beat()
		}
	}
}

// stoppedClock is the clock of a heartbeater that sends nothing: its time is
// the zero time and its waits never end.
type stoppedClock struct{}

func (stoppedClock) Now() time.Time                       { return time.Time{} }
func (stoppedClock) After(time.Duration) <-chan time.Time { return nil }
