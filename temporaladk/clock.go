package temporaladk

import "time"

// Clock is the time the kit's activity-side machinery reads and waits on:
// the Heartbeater's beats, the waits and deadline of an in-activity retry
// loop (policies.ActivityAttempts), heartbeat times. Where a Clock is not set
// (interceptors.Options.Clock, policies.ActivityAttempts.Clock) the kit uses
// the real one, time.Now and time.After; testsuite.FakeClock moves only when
// a test moves it, and every wait on it ends when it reaches the wait's end.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives the time once d has passed on
	// this clock; a d of zero or less has passed already.
	After(d time.Duration) <-chan time.Time
}
