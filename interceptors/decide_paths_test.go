package interceptors_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// decided is what a path decided after a failed first attempt, in the terms
// every path can report.
type decided struct {
	Retry     bool // another attempt follows
	Source    string
	Requested time.Duration
	Wait      time.Duration
	Truncated bool
}

func fromDecision(d temporaladk.RetryDecision) decided {
	return decided{Retry: !d.Final, Source: d.Source, Requested: d.Requested, Wait: d.Wait, Truncated: d.Truncated}
}

// TestEveryPathDecidesTheSameWait feeds identical inputs (error, attempt,
// draw, time left, policy) to every part of the kit that decides the wait
// after a failed attempt (policies.DecideWait itself, the in-activity loop
// policies.ActivityAttempts, and the activity interceptor, serving a call
// a workflow scheduled in the SDK's test environment) and asserts they
// decide the same.
func TestEveryPathDecidesTheSameWait(t *testing.T) {
	t.Parallel()
	retry := policies.RetryConfig{MaxAttempts: 3, InitialInterval: 10 * time.Second, BackoffCoefficient: 2, MaxInterval: 30 * time.Second, MaxRetryAfter: 20 * time.Second}
	tests := []struct {
		name string
		err  error
		draw float64
		left time.Duration // 0: no deadline
	}{
		{"jitter, no deadline", &temporaladk.ProviderError{StatusCode: 503}, 0.5, 0},
		{"jitter fits", &temporaladk.ProviderError{StatusCode: 503}, 0.5, time.Minute},
		{"12s drawn, 10s left: final, cut", &temporaladk.ProviderError{StatusCode: 503}, 0.6, 2 * (5 * time.Second)},
		{"exactly what is left: final", &temporaladk.ProviderUnavailableError{}, 0.5, 5 * time.Second},
		{"Retry-After honoured", &temporaladk.RateLimitError{RetryAfter: 3 * time.Second}, 0.9, time.Minute},
		{"Retry-After beyond MaxRetryAfter", &temporaladk.RateLimitError{RetryAfter: 25 * time.Second}, 0.9, time.Minute},
		{"Retry-After cut to the deadline", &temporaladk.RateLimitError{RetryAfter: 8 * time.Second}, 0.1, 6 * time.Second},
		{"never-retryable", &temporaladk.GuardrailViolationError{Reason: "no"}, 0.5, time.Minute},
		{"not retryable", &temporaladk.ProviderError{StatusCode: 400}, 0.5, time.Minute},
		{"quota", &temporaladk.RateLimitError{Quota: true}, 0.5, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// 1. The decision itself.
			d, err := policies.DecideWait(policies.WaitInput{Err: tt.err, Attempt: 1, MaxAttempts: retry.MaxAttempts, Retry: retry,
				Random: func() float64 { return tt.draw }, HasDeadline: tt.left > 0, Left: tt.left})
			require.NoError(t, err)
			want := fromDecision(d)
			if d.Source == "" {
				want = decided{} // stopped before any wait
			}

			// 2. The in-activity loop, on a fake clock whose deadline is
			// what is left.
			clock := testsuite.NewFakeClock(testclock.Epoch(t))
			ctx := context.Background()
			if tt.left > 0 {
				var cancel context.CancelFunc
				ctx, cancel = clock.WithDeadline(ctx, tt.left)
				defer cancel()
			}
			calls := 0
			loop := policies.ActivityAttempts{Retry: retry, Random: func() float64 { return tt.draw }, Clock: clock}
			done := make(chan struct{})
			var report policies.AttemptsReport
			go func() {
				defer close(done)
				report, _ = loop.Run(ctx, func(context.Context, int) error {
					calls++
					if calls == 1 {
						return tt.err
					}
					return nil
				})
			}()
			if want.Retry {
				// The loop waits on the clock: move it by the wait.
				waits := 1
				if tt.left > 0 {
					waits = 2 // the deadline is a wait on the clock too
				}
				require.NoError(t, clock.BlockUntil(t.Context(), waits))
				require.NoError(t, clock.Advance(want.Wait))
			}
			<-done
			gotLoop := decided{}
			if len(report.Decisions) > 0 {
				gotLoop = fromDecision(report.Decisions[0])
			}
			assert.Equal(t, want, gotLoop, "ActivityAttempts decides as DecideWait")

			// 3. The activity interceptor, with the call's header.
			assert.Equal(t, want, interceptorDecision(t, retry, tt.err, tt.draw, tt.left), "the activity interceptor decides as DecideWait")
		})
	}
}

// interceptorDecision runs an activity that fails with err under the kit's
// activity interceptor, as the first attempt of a call scheduled by a
// workflow with retry as its retry policy and left as its ScheduleToClose,
// and reads the decision the failure carries to the server, as an
// interceptor outside the kit sees it.
func interceptorDecision(t *testing.T, retry policies.RetryConfig, failure error, draw float64, left time.Duration) decided {
	t.Helper()
	model, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	model.Retry = retry
	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	kit := newEnvKit(t, env, interceptors.Options{Random: func() float64 { return draw }, Clock: testsuite.NewFakeClock(testclock.Epoch(t)),
		Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model}})
	outer := &firstFailure{}
	// The recorder's outbound is the innermost: it hands the activity the
	// retry policy the kit scheduled, which the SDK's test environment's
	// activity tasks do not carry.
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&testsuite.Recorder{}, outer}, Plugins: []worker.Plugin{kit}})
	env.RegisterActivityWithOptions(func(context.Context) error { return failure }, activity.RegisterOptions{Name: "Fails"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(temporaladk.WithClass(ctx, temporaladk.Model), workflow.ActivityOptions{
			StartToCloseTimeout: time.Hour, ScheduleToCloseTimeout: left, RetryPolicy: retry.RetryPolicy(),
		})
		return workflow.ExecuteActivity(ctx, "Fails").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "Decides"})
	env.ExecuteWorkflow("Decides")
	require.Error(t, env.GetWorkflowError())
	err = outer.err
	require.Error(t, err)
	d, ok := temporaladk.RetryDecisionOf(err)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "a kit error crosses as an ApplicationError: %v", err)
	if !ok {
		return decided{}
	}
	got := fromDecision(d)
	assert.Equal(t, got.Retry, !app.NonRetryable(), "the server is told what was decided")
	if got.Retry {
		assert.Equal(t, max(d.Wait, time.Millisecond), app.NextRetryDelay(), "the wait goes to the server as NextRetryDelay")
	}
	return got
}

// firstFailure is an activity interceptor outside the kit: it keeps the
// failure the kit returns from the first attempt and ends the call there.
type firstFailure struct {
	interceptor.WorkerInterceptorBase
	err error
}

func (f *firstFailure) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &firstFailureInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, f: f}
}

type firstFailureInbound struct {
	interceptor.ActivityInboundInterceptorBase
	f *firstFailure
}

func (a *firstFailureInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	_, err := a.Next.ExecuteActivity(ctx, in)
	a.f.err = err
	return nil, temporal.NewNonRetryableApplicationError("first attempt kept", "FirstAttemptKept", nil)
}
