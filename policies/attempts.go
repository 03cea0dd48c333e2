package policies

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ActivityAttempts retries a call inside one activity execution: a stream
// that dropped, a provider that blipped, retried at once rather than through
// a new activity task. It draws the jitter itself, inside the activity, and
// decides each wait with DecideWait, the rule the kit's interceptor follows
// too: a wait that leaves no time for another attempt before the context's
// deadline ends the attempts and is reported as truncated, because dropping
// it silently leaves an operator reading a schedule the run never followed.
//
// RetryConfig.ActivityAttempts builds one from a class policy.
type ActivityAttempts struct {
	// Retry gives MaxAttempts (the first attempt included; at least 1), the
	// backoff windows and MaxRetryAfter.
	Retry RetryConfig
	// Random returns the numbers in [0, 1) the jitter is drawn from. If nil,
	// math/rand/v2's Float64.
	Random func() float64
	// Clock is the one clock of the loop: the context's deadline is read
	// against its Now, and its waits are waits on it. Temporal sets an
	// activity's deadline on the worker's real clock, so leave it nil in
	// production; a test that sets a fake clock gives Run a context whose
	// deadline is on that clock (testsuite.FakeClock.WithDeadline). If nil,
	// temporaladk.SystemClock.
	Clock temporaladk.Clock
}

// AttemptsReport is what Run did: how many attempts it made and the wait it
// decided after each failed one.
type AttemptsReport struct {
	// Attempts is how many times the call ran.
	Attempts int
	// Decisions holds one entry per failed attempt that was worth another:
	// the wait drawn or asked for, and whether it was truncated or final.
	Decisions []temporaladk.RetryDecision
}

// ActivityAttempts returns the in-activity retry loop for r, with jitter
// from math/rand/v2 and the real clock (set Random and Clock on the result to
// change them).
func (r RetryConfig) ActivityAttempts() ActivityAttempts {
	return ActivityAttempts{Retry: r}
}

// Run calls call with attempt numbers 1, 2, ... until it succeeds, fails in
// a way that is not worth another attempt, runs out of attempts or of time.
// It returns the last error unchanged, with the report of what was done.
// Bad settings are an error before any attempt.
func (a ActivityAttempts) Run(ctx context.Context, call func(ctx context.Context, attempt int) error) (AttemptsReport, error) {
	var report AttemptsReport
	if err := a.Retry.Validate(); err != nil {
		return report, fmt.Errorf("policies: ActivityAttempts: %w", err)
	}
	if call == nil {
		return report, errors.New("policies: ActivityAttempts.Run: call is nil")
	}
	random, clock := a.Random, a.Clock
	if random == nil {
		random = rand.Float64
	}
	if clock == nil {
		clock = vocab.SystemClock()
	}
	for n := 1; ; n++ {
		report.Attempts = n
		err := call(ctx, n)
		if err == nil {
			return report, nil
		}
		if ctx.Err() != nil {
			return report, err
		}
		in := WaitInput{Err: err, Attempt: n, MaxAttempts: a.Retry.MaxAttempts, Retry: a.Retry, Random: random}
		if deadline, has := ctx.Deadline(); has {
			in.HasDeadline, in.Left = true, deadline.Sub(clock.Now())
		}
		d, derr := DecideWait(in)
		if derr != nil {
			return report, errors.Join(err, fmt.Errorf("policies: ActivityAttempts.Random: %w", derr))
		}
		if d.Source == "" {
			// Not retryable, or out of attempts: nothing was waited for.
			return report, err
		}
		report.Decisions = append(report.Decisions, d)
		if d.Final {
			return report, err
		}
		if serr := sleep(ctx, clock, d.Wait); serr != nil {
			return report, errors.Join(err, serr)
		}
	}
}

// sleep waits d on clock, or until ctx is done.
func sleep(ctx context.Context, clock temporaladk.Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-clock.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
