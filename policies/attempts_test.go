package policies_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// fakeTime is a clock whose waits end at once and move it, for
// ActivityAttempts.
type fakeTime struct {
	now    time.Time
	sleeps []time.Duration
}

func (f *fakeTime) Now() time.Time { return f.now }
func (f *fakeTime) After(d time.Duration) <-chan time.Time {
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	c := make(chan time.Time, 1)
	c <- f.now
	return c
}

// deadlineOn is a context whose deadline is an instant of the test's fake
// clock. It is never done by itself: only the fake clock reaches it.
type deadlineOn struct {
	context.Context
	at time.Time
}

func (d deadlineOn) Deadline() (time.Time, bool) { return d.at, true }

func attempts(clock *fakeTime, max int, u float64) policies.ActivityAttempts {
	return policies.ActivityAttempts{
		// Windows 1s, 2s, 4s.
		Retry:  policies.RetryConfig{MaxAttempts: max, InitialInterval: time.Second, BackoffCoefficient: 2, MaxRetryAfter: 5 * time.Second},
		Random: func() float64 { return u },
		Clock:  clock,
	}
}

func failing(errs ...error) (func(context.Context, int) error, *int) {
	calls := 0
	return func(_ context.Context, attempt int) error {
		calls++
		if attempt-1 < len(errs) {
			return errs[attempt-1]
		}
		return nil
	}, &calls
}

func TestActivityAttemptsDrawsTheJitterItself(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	clock := &fakeTime{now: now}
	blip := &temporaladk.ProviderError{StatusCode: 503}
	call, calls := failing(blip, blip)
	report, err := attempts(clock, 3, 0.5).Run(context.Background(), call)
	require.NoError(t, err)
	assert.Equal(t, 3, *calls)
	assert.Equal(t, 3, report.Attempts)
	assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, clock.sleeps, "half of each window")
	require.Len(t, report.Decisions, 2)
	assert.Equal(t, "jitter", report.Decisions[0].Source)
}

func TestActivityAttemptsStops(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	plain := errors.New("disk full")
	tests := []struct {
		name  string
		err   error
		calls int
	}{
		{"never-retryable", &temporaladk.GuardrailViolationError{}, 1},
		{"not retryable", &temporaladk.ProviderError{StatusCode: 400}, 1},
		{"outside the hierarchy", plain, 1},
		{"out of attempts", &temporaladk.ProviderError{StatusCode: 503}, 3},
		{"Retry-After beyond MaxRetryAfter", &temporaladk.RateLimitError{RetryAfter: 6 * time.Second}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeTime{now: now}
			call, calls := failing(tt.err, tt.err, tt.err, tt.err)
			_, err := attempts(clock, 3, 0.5).Run(context.Background(), call)
			assert.Same(t, tt.err, err, "the last error comes back unchanged")
			assert.Equal(t, tt.calls, *calls)
		})
	}
}

func TestActivityAttemptsHonoursRetryAfter(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	clock := &fakeTime{now: now}
	call, _ := failing(&temporaladk.RateLimitError{RetryAfter: 2 * time.Second})
	report, err := attempts(clock, 3, 0.5).Run(context.Background(), call)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{2 * time.Second}, clock.sleeps)
	assert.Equal(t, "retry-after", report.Decisions[0].Source)
}

func TestActivityAttemptsCutsTheWaitToTheDeadline(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	clock := &fakeTime{now: now}
	// The deadline is on the fake clock too: one clock drives the waits and
	// the deadline, so the test reads the same on any date.
	ctx := deadlineOn{Context: context.Background(), at: now.Add(1500 * time.Millisecond)}
	blip := &temporaladk.ProviderError{StatusCode: 503}
	call, calls := failing(blip, blip, blip)
	// Windows 1s then 2s at u = 0.9: 0.9s fits in 1.5s, then 1.8s does not
	// fit in the 0.6s left.
	report, err := attempts(clock, 3, 0.9).Run(ctx, call)
	assert.Same(t, blip, err)
	assert.Equal(t, 2, *calls, "no attempt the activity cannot afford")
	assert.Equal(t, []time.Duration{900 * time.Millisecond}, clock.sleeps)
	require.Len(t, report.Decisions, 2)
	cut := report.Decisions[1]
	assert.True(t, cut.Truncated, "a wait that does not fit is reported")
	assert.True(t, cut.Final)
	assert.Equal(t, 1800*time.Millisecond, cut.Requested)
	assert.Equal(t, 600*time.Millisecond, cut.Wait)
	assert.Contains(t, cut.Reason, "deadline")
}

func TestActivityAttemptsRefusesBadSettings(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	ok := func(context.Context, int) error { return nil }
	tests := []struct {
		name    string
		a       policies.ActivityAttempts
		call    func(context.Context, int) error
		wantErr string
	}{
		{"zero attempts", policies.ActivityAttempts{Retry: policies.RetryConfig{BackoffCoefficient: 2}}, ok, "Retry.MaxAttempts is 0"},
		{"coefficient below one", policies.ActivityAttempts{Retry: policies.RetryConfig{MaxAttempts: 1, BackoffCoefficient: 0.5}}, ok, "Retry.BackoffCoefficient is 0.5"},
		{"negative MaxRetryAfter", policies.ActivityAttempts{Retry: policies.RetryConfig{MaxAttempts: 1, BackoffCoefficient: 1, MaxRetryAfter: -1}}, ok, "Retry.MaxRetryAfter is -1ns"},
		{"nil call", policies.ActivityAttempts{Retry: policies.RetryConfig{MaxAttempts: 1, BackoffCoefficient: 1}}, nil, "call is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			report, err := tt.a.Run(context.Background(), tt.call)
			assert.ErrorContains(t, err, tt.wantErr)
			assert.Zero(t, report.Attempts, "nothing ran")
		})
	}
	clock := &fakeTime{now: now}
	bad := attempts(clock, 3, 1.5)
	blip := &temporaladk.ProviderError{StatusCode: 503}
	call, calls := failing(blip)
	_, err := bad.Run(context.Background(), call)
	assert.ErrorIs(t, err, blip, "the call's error is kept")
	assert.ErrorContains(t, err, "ActivityAttempts.Random: policies: jitter draw 1.5 is not in [0, 1)")
	assert.Equal(t, 1, *calls)
}

func TestActivityAttemptsStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	blip := &temporaladk.ProviderError{StatusCode: 503}
	a := policies.ActivityAttempts{Retry: policies.RetryConfig{MaxAttempts: 5, InitialInterval: time.Hour, BackoffCoefficient: 2}, Random: func() float64 { return 0.5 }}
	calls := 0
	_, err := a.Run(ctx, func(context.Context, int) error {
		calls++
		cancel()
		return blip
	})
	assert.ErrorIs(t, err, blip)
	assert.Equal(t, 1, calls)
}
