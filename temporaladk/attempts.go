package temporaladk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// ActivityAttempts retries a call inside one activity execution: a stream
// that dropped, a provider that blipped, retried at once rather than through
// a new activity task. It draws the jitter itself, inside the activity, and
// cuts the wait to what is left of the activity's deadline rather than
// scheduling one the activity cannot afford; a wait that does not fit is
// reported as truncated and ends the attempts, because dropping it silently
// leaves an operator reading a schedule the run never followed.
//
// Only retryable kit errors are retried. A never-retryable error, a kit error
// that is not retryable, and an error outside the kit's hierarchy end the
// attempts at once. A provider's Retry-After is honoured up to
// MaxRetryAfter; a longer one ends the attempts.
//
// policies.RetryConfig.ActivityAttempts builds one from a class policy.
type ActivityAttempts struct {
	// MaxAttempts is how many attempts Run makes, the first included. Must be
	// at least 1.
	MaxAttempts int
	// Window returns the full-jitter window after failed attempt n (n ≥ 1).
	// Required; policies.RetryConfig.BackoffWindow is the kit's.
	Window func(n int) time.Duration
	// MaxRetryAfter is the longest Retry-After honoured. Zero honours none:
	// any Retry-After ends the attempts.
	MaxRetryAfter time.Duration
	// Random returns the numbers in [0, 1) the jitter is drawn from. If nil,
	// math/rand/v2's Float64.
	Random func() float64
	// Now is the clock the context's deadline is read against: the time
	// left is ctx's deadline minus Now(). One clock rules both, and it is
	// this one: Temporal sets an activity's deadline on the worker's real
	// clock, so leave Now nil in production; a test that injects a clock
	// gives Run a context whose deadline is an instant of that clock. If nil,
	// time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done, whichever comes first. If nil, a
	// timer on the real clock.
	Sleep func(ctx context.Context, d time.Duration) error
}

// AttemptsReport is what Run did: how many attempts it made and the wait it
// decided after each failed one.
type AttemptsReport struct {
	// Attempts is how many times the call ran.
	Attempts int
	// Decisions holds one entry per failed attempt that asked for another:
	// the wait drawn or asked for, and whether it was truncated or final.
	Decisions []RetryDecision
}

// Run calls call with attempt numbers 1, 2, ... until it succeeds, fails in
// a way that is not worth another attempt, runs out of attempts or of time.
// It returns the last error unchanged, with the report of what was done.
// Bad settings are an error before any attempt.
func (a ActivityAttempts) Run(ctx context.Context, call func(ctx context.Context, attempt int) error) (AttemptsReport, error) {
	var report AttemptsReport
	switch {
	case a.MaxAttempts < 1:
		return report, fmt.Errorf("temporaladk: ActivityAttempts.MaxAttempts is %d: it must be at least 1", a.MaxAttempts)
	case a.Window == nil:
		return report, errors.New("temporaladk: ActivityAttempts.Window is nil: use policies.RetryConfig.ActivityAttempts")
	case a.MaxRetryAfter < 0:
		return report, fmt.Errorf("temporaladk: ActivityAttempts.MaxRetryAfter is %v: it must not be negative", a.MaxRetryAfter)
	case call == nil:
		return report, errors.New("temporaladk: ActivityAttempts.Run: call is nil")
	}
	random, now, sleep := a.Random, a.Now, a.Sleep
	if random == nil {
		random = rand.Float64
	}
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	for n := 1; ; n++ {
		report.Attempts = n
		err := call(ctx, n)
		if err == nil {
			return report, nil
		}
		kit, ok := AsError(err)
		if !ok || !kit.Retryable() || IsNeverRetryableType(kit.Type()) || n >= a.MaxAttempts || ctx.Err() != nil {
			return report, err
		}
		d, derr := a.decide(ctx, err, n, random, now)
		if derr != nil {
			return report, errors.Join(err, derr)
		}
		report.Decisions = append(report.Decisions, d)
		if d.Final {
			return report, err
		}
		if serr := sleep(ctx, d.Wait); serr != nil {
			return report, errors.Join(err, serr)
		}
	}
}

// decide draws or reads the wait after failed attempt n and fits it to the
// context's deadline.
func (a ActivityAttempts) decide(ctx context.Context, err error, n int, random func() float64, now func() time.Time) (RetryDecision, error) {
	var d RetryDecision
	if retryAfter, asked := RetryAfterOf(err); asked {
		d = RetryDecision{Source: "retry-after", Requested: retryAfter, Wait: retryAfter}
		if retryAfter > a.MaxRetryAfter {
			d.Wait, d.Final = 0, true
			d.Reason = fmt.Sprintf("provider asked to retry after %v, beyond MaxRetryAfter %v", retryAfter, a.MaxRetryAfter)
			return d, nil
		}
	} else {
		u := random()
		if math.IsNaN(u) || u < 0 || u >= 1 {
			return d, fmt.Errorf("temporaladk: ActivityAttempts.Random returned %v, not a number in [0, 1)", u)
		}
		w := time.Duration(u * float64(a.Window(n)))
		d = RetryDecision{Source: "jitter", Requested: w, Wait: w}
	}
	if deadline, has := ctx.Deadline(); has {
		left := deadline.Sub(now())
		// Waiting out all that is left leaves no time for the attempt the
		// wait is for, so a wait that does not fit ends the attempts.
		if d.Wait >= left {
			d.Reason = fmt.Sprintf("wait of %v cut to %v: that is what is left of the activity's deadline, no time for another attempt", d.Wait, max(left, 0))
			d.Truncated = d.Wait > max(left, 0)
			d.Wait, d.Final = max(left, 0), true
		}
	}
	return d, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
