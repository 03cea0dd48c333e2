package testsuite

import (
	"fmt"
	"sync"
	"time"
)

// Clock is the time source activity-side code takes so that tests can swap
// in a FakeClock. (The kit's core package may come to own this interface.)
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep pauses for d.
	Sleep(d time.Duration)
}

// FakeClock is a Clock that only moves when told to: Sleep advances it by
// the duration and returns at once, and Advance moves it forward. It is safe
// for concurrent use.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

var _ Clock = (*FakeClock)(nil)

// NewFakeClock returns a clock that reads start until it is moved.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start}
}

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d, advances the clock by d and returns immediately. Like
// time.Sleep, a zero or negative d does not move the clock; it is still
// recorded.
func (c *FakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

// Sleeps returns the durations passed to Sleep, in call order.
func (c *FakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// Advance moves the clock forward by d. The clock never goes back: a
// negative d is an error and leaves the clock as it was.
func (c *FakeClock) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("testsuite: FakeClock.Advance(%v): the clock only moves forward", d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}
