package testsuite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/temporaladk/adk-go/temporaladk"
)

// FakeClock is a temporaladk.Clock that only moves when told to, for the
// kit's activity-side time: give it to interceptors.Options.Clock,
// temporaladk.NewHeartbeater or policies.ActivityAttempts.Clock, and the
// heartbeater's beats and the retry loop's waits happen when the test moves
// it. Advance and Sleep move it forward and end every wait they reach. It is
// safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	changed *sync.Cond
	now     time.Time
	sleeps  []time.Duration
	waits   []fakeWait
}

type fakeWait struct {
	at time.Time
	ch chan time.Time
}

var _ temporaladk.Clock = (*FakeClock)(nil)

// NewFakeClock returns a clock that reads start until it is moved.
func NewFakeClock(start time.Time) *FakeClock {
	c := &FakeClock{now: start}
	c.changed = sync.NewCond(&c.mu)
	return c
}

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives the clock's time once the clock has
// been moved d forward; a d of zero or less has passed already.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waits = append(c.waits, fakeWait{at: c.now.Add(d), ch: ch})
	c.changed.Broadcast()
	return ch
}

// Waiters returns how many waits on the clock have not ended yet.
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waits)
}

// BlockUntil returns once at least n waits on the clock have not ended (a
// goroutine that waits on it has reached its wait), or ctx is done.
func (c *FakeClock) BlockUntil(ctx context.Context, n int) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.waits) < n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("testsuite: FakeClock.BlockUntil(%d): %d waits after %w", n, len(c.waits), err)
		}
		c.changed.Wait()
	}
	return nil
}

// Sleep records d, advances the clock by d and returns immediately. Like
// time.Sleep, a zero or negative d does not move the clock; it is still
// recorded.
func (c *FakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	if d > 0 {
		c.moveLocked(d)
	}
}

// Sleeps returns the durations passed to Sleep, in call order.
func (c *FakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// Advance moves the clock forward by d and ends every wait it reaches. The
// clock never goes back: a negative d is an error and leaves the clock as it
// was.
func (c *FakeClock) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("testsuite: FakeClock.Advance(%v): the clock only moves forward", d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveLocked(d)
	return nil
}

// moveLocked moves the clock by d ≥ 0, saturating at the end of time, and
// ends the waits it reaches.
func (c *FakeClock) moveLocked(d time.Duration) {
	next := c.now.Add(d)
	if next.Before(c.now) {
		next = c.now
	}
	c.now = next
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waits = kept
	c.changed.Broadcast()
}

// WithDeadline returns a context whose deadline is d from now on this
// clock: Deadline reports that instant, and the context is done with
// context.DeadlineExceeded when the clock reaches it, not when the real
// clock does. Code that reads its deadline against the clock
// (policies.ActivityAttempts) then runs on one clock. Call cancel to release
// it.
func (c *FakeClock) WithDeadline(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	at := c.Now().Add(d)
	reached := c.After(d)
	go func() {
		select {
		case <-reached:
			cancel(context.DeadlineExceeded)
		case <-ctx.Done():
		}
	}()
	return &fakeDeadline{Context: ctx, at: at}, func() { cancel(context.Canceled) }
}

type fakeDeadline struct {
	context.Context
	at time.Time
}

func (f *fakeDeadline) Deadline() (time.Time, bool) { return f.at, true }

func (f *fakeDeadline) Err() error {
	err := f.Context.Err()
	if err != nil && errors.Is(context.Cause(f.Context), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}
