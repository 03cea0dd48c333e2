package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Hub keeps streams of events: observers publish to it, handlers
// subscribe. Publish must not wait on subscribers.
type Hub interface {
	// Publish adds e to its stream, after its Check; an event the stream
	// holds already (its ID, or an earlier delta of the attempt), a delta
	// of an attempt the stream saw superseded, or of a call that ended, is
	// dropped without an error.
	Publish(ctx context.Context, e Event) error
	// Subscribe returns the events the hub holds of stream, oldest first,
	// then the live ones as they are published, until ctx ends, the
	// subscriber falls behind, or the hub lets the stream go: then Events
	// is closed, and a subscriber resumes by subscribing again.
	Subscribe(ctx context.Context, stream string) (Subscription, error)
}

// Subscription is what Subscribe returns.
type Subscription struct {
	// Events are the stream's events in order of Offset.
	Events <-chan Event
	// Exact is the highest offset of an event the hub compacted or
	// dropped (MemoryOptions); 0 for none. The held events after it are
	// every event as published: a subscriber that had the events up to an
	// offset above it and resumes misses nothing and sees nothing twice.
	Exact uint64
}

// The MemoryHub's bounds when MemoryOptions leaves them unset.
const (
	// DefaultMaxEvents is the events a MemoryHub holds per stream.
	DefaultMaxEvents = 4096
	// DefaultMaxStreams is the streams a MemoryHub holds.
	DefaultMaxStreams = 1024
	// DefaultSubscriberBuffer is the live events a subscriber may fall
	// behind by before its Events is closed.
	DefaultSubscriberBuffer = 1024
)

// MemoryOptions bound a MemoryHub.
type MemoryOptions struct {
	// MaxEvents is how many events a stream holds. When a publish goes
	// over it, the stream is compacted: the deltas and resets of calls that
	// ended and of dead attempts go (their Final is the truth), and each
	// live attempt's deltas are merged into one per kind, so that a
	// late subscriber still gets every open call's text so far; then, if
	// still over, the oldest events go. If not set, DefaultMaxEvents.
	MaxEvents int
	// MaxStreams is how many streams the hub holds; a new stream beyond it
	// lets go the one published to least recently. If not set,
	// DefaultMaxStreams.
	MaxStreams int
	// SubscriberBuffer is how many live events a subscriber may fall
	// behind by; beyond it, its Events is closed (it resumes by
	// subscribing again), so that a publisher never waits. If not set,
	// DefaultSubscriberBuffer.
	SubscriberBuffer int
}

// MemoryHub is a Hub in one process, bounded by its MemoryOptions.
type MemoryHub struct {
	opts MemoryOptions

	mu      sync.Mutex
	streams map[string]*memStream
	tick    uint64
	stats   HubStats
}

// HubStats counts what a MemoryHub did with the events published to it.
type HubStats struct {
	// Published are the events kept, Duplicates those dropped as already
	// held, Stale the deltas and resets of attempts already superseded.
	Published, Duplicates, Stale int64
	// Compactions and Evicted count compactions of a stream and streams let
	// go; Slow the subscribers closed for falling behind.
	Compactions, Evicted, Slow int64
}

// memStream is one stream of a MemoryHub.
type memStream struct {
	log    []Event
	last   uint64 // the last offset given
	exact  uint64
	filter Filter
	subs   map[*memSub]struct{}
	used   uint64
}

// Filter decides which events of one stream a screen is shown, the one
// rule every hub applies: an event the stream holds already (its ID, or an
// earlier delta of the attempt), a delta or reset of an attempt a later
// one superseded, and text of a call that ended are not admitted. A
// MemoryHub applies it when an event is published; a hub whose publishers
// are many processes (contrib/natslive) applies it when a subscriber reads,
// to the events in the order the hub holds them, so that every subscriber
// decides the same. What it remembers is bounded by the events it was
// given. The zero Filter is not usable: NewFilter makes one.
type Filter struct {
	calls map[string]*callState
	ids   map[string]struct{}
}

// NewFilter returns a Filter that has admitted nothing.
func NewFilter() *Filter {
	return &Filter{calls: map[string]*callState{}, ids: map[string]struct{}{}}
}

// callState is what a stream knows of a call to drop duplicates: the
// latest attempt reset, the latest attempt and delta seen, whether it
// ended.
type callState struct {
	reset, attempt, seq int
	ended               bool
}

type memSub struct{ ch chan Event }

// NewMemoryHub returns a MemoryHub with opts; a negative bound is an error
// naming it.
func NewMemoryHub(opts MemoryOptions) (*MemoryHub, error) {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"MaxEvents", &opts.MaxEvents, DefaultMaxEvents}, {"MaxStreams", &opts.MaxStreams, DefaultMaxStreams}, {"SubscriberBuffer", &opts.SubscriberBuffer, DefaultSubscriberBuffer}} {
		if *f.v < 0 {
			return nil, fmt.Errorf("live: NewMemoryHub: MemoryOptions.%s is %d: it must not be negative (0 is the default, %d)", f.name, *f.v, f.def)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return &MemoryHub{opts: opts, streams: map[string]*memStream{}}, nil
}

// Stats returns what the hub counted so far.
func (h *MemoryHub) Stats() HubStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

// Streams returns how many streams the hub holds.
func (h *MemoryHub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// Publish adds e to its stream (see Hub).
func (h *MemoryHub) Publish(_ context.Context, e Event) error {
	if err := e.Check(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stream(e.Stream)
	if !s.filter.Admit(e) {
		if s.filter.stale(e) {
			h.stats.Stale++
			return nil
		}
		h.stats.Duplicates++
		return nil
	}
	s.last++
	e.Offset = s.last
	s.log = append(s.log, e)
	h.stats.Published++
	if len(s.log) > h.opts.MaxEvents {
		s.compact(h.opts.MaxEvents)
		h.stats.Compactions++
	}
	for sub := range s.subs {
		select {
		case sub.ch <- e:
		default:
			delete(s.subs, sub)
			close(sub.ch)
			h.stats.Slow++
		}
	}
	return nil
}

// stale reports whether e, which Admit refused, was refused as stale text
// (of a superseded attempt, or of a call that ended) rather than as a
// duplicate.
func (f *Filter) stale(e Event) bool {
	if e.Kind != Delta && e.Kind != Reset {
		return false
	}
	cs := f.calls[e.key()]
	return cs != nil && (e.Attempt < cs.attempt || cs.ended)
}

// Admit reports whether e is new to the stream and not stale (see Filter),
// and records it.
func (f *Filter) Admit(e Event) bool {
	var cs *callState
	if e.Call > 0 {
		cs = f.calls[e.key()]
		if cs == nil {
			cs = &callState{}
			f.calls[e.key()] = cs
		}
	}
	switch e.Kind {
	case Reset, Delta:
		if cs.ended {
			// The call's final is the truth; text after it is stale.
			return false
		}
	}
	switch e.Kind {
	case Reset:
		if e.Attempt <= cs.reset || e.Attempt < cs.attempt {
			return false
		}
		cs.reset = e.Attempt
		if e.Attempt > cs.attempt {
			cs.attempt, cs.seq = e.Attempt, 0
		}
		return true
	case Delta:
		if e.Attempt < cs.attempt || (e.Attempt == cs.attempt && e.Seq <= cs.seq) {
			return false
		}
		cs.attempt, cs.seq = e.Attempt, e.Seq
		return true
	}
	if _, ok := f.ids[e.ID]; ok {
		return false
	}
	f.ids[e.ID] = struct{}{}
	if e.Kind == Final {
		cs.ended = true
	}
	return true
}

// compact brings s's log to at most max events (see MemoryOptions).
func (s *memStream) compact(max int) {
	type group struct {
		last int
		text strings.Builder
	}
	groups := map[string]*group{}
	gkey := func(e Event) string { return e.key() + "/" + string(e.TextKind) }
	dead := func(e Event) bool {
		cs := s.filter.calls[e.key()]
		return (e.Kind == Delta || e.Kind == Reset) && cs != nil && (cs.ended || e.Attempt < cs.attempt)
	}
	for i, e := range s.log {
		if e.Kind == Delta && !dead(e) {
			g := groups[gkey(e)]
			if g == nil {
				g = &group{}
				groups[gkey(e)] = g
			}
			g.last = i
			g.text.WriteString(e.Text)
		}
	}
	kept := make([]Event, 0, len(s.log))
	for i, e := range s.log {
		switch {
		case dead(e):
			s.exact = max64(s.exact, e.Offset)
			continue
		case e.Kind == Delta:
			g := groups[gkey(e)]
			if g.last != i {
				s.exact = max64(s.exact, e.Offset)
				continue
			}
			if merged := g.text.String(); merged != e.Text {
				e.Text = merged
				s.exact = max64(s.exact, e.Offset)
			}
		}
		kept = append(kept, e)
	}
	if over := len(kept) - max; over > 0 {
		s.exact = max64(s.exact, kept[over-1].Offset)
		kept = append([]Event(nil), kept[over:]...)
	}
	s.log = kept
	// What dedup remembers is bounded by what the log holds.
	s.filter.ids = map[string]struct{}{}
	held := map[string]bool{}
	for _, e := range s.log {
		if e.Call > 0 {
			held[e.key()] = true
		}
		if e.Kind != Delta && e.Kind != Reset {
			s.filter.ids[e.ID] = struct{}{}
		}
	}
	for k := range s.filter.calls {
		if !held[k] {
			delete(s.filter.calls, k)
		}
	}
}

func max64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// stream returns the stream of that name, made (and the least recently
// used let go, if the hub is full) if it is new. h.mu is held.
func (h *MemoryHub) stream(name string) *memStream {
	h.tick++
	if s, ok := h.streams[name]; ok {
		s.used = h.tick
		return s
	}
	if len(h.streams) >= h.opts.MaxStreams {
		var oldest string
		var at uint64
		for n, s := range h.streams {
			if oldest == "" || s.used < at {
				oldest, at = n, s.used
			}
		}
		for sub := range h.streams[oldest].subs {
			delete(h.streams[oldest].subs, sub)
			close(sub.ch)
		}
		delete(h.streams, oldest)
		h.stats.Evicted++
	}
	s := &memStream{filter: *NewFilter(), subs: map[*memSub]struct{}{}, used: h.tick}
	h.streams[name] = s
	return s
}

// Subscribe returns the events of stream (see Hub). A stream not yet
// published to is made, so that a screen may watch before the workflow
// starts.
func (h *MemoryHub) Subscribe(ctx context.Context, stream string) (Subscription, error) {
	if ctx == nil {
		return Subscription{}, errors.New("live: Subscribe: ctx is nil")
	}
	if stream == "" {
		return Subscription{}, errors.New("live: Subscribe: the stream name is empty")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stream(stream)
	sub := &memSub{ch: make(chan Event, len(s.log)+h.opts.SubscriberBuffer)}
	for _, e := range s.log {
		sub.ch <- e
	}
	s.subs[sub] = struct{}{}
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := s.subs[sub]; ok {
			delete(s.subs, sub)
			close(sub.ch)
		}
	}()
	return Subscription{Events: sub.ch, Exact: s.exact}, nil
}
