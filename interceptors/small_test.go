package interceptors_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// runWithHeader runs fn as an activity under the kit's activity interceptor
// with the given Temporal header fields, and says whether fn ran.
func runWithHeader(t *testing.T, fields map[string]*commonpb.Payload, fn func(context.Context) error) (bool, error) {
	t.Helper()
	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(t, interceptors.Options{})}})
	env.SetHeader(&commonpb.Header{Fields: fields})
	ran := false
	env.RegisterActivityWithOptions(func(ctx context.Context) error { ran = true; return fn(ctx) }, activity.RegisterOptions{Name: "Probe"})
	_, err := env.ExecuteActivity("Probe")
	return ran, err
}

func headerPayload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

// A header that does not decode, or that names an unknown class, fails the
// attempt non-retryably, naming the header, before the user's code runs:
// another attempt would read the same header.
func TestUnitBadCallHeaderIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload *commonpb.Payload
		want    string
	}{
		{"does not decode", &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte("{not json")}, `"temporaladk-call" does not decode`},
		{"unknown class", headerPayload(t, wire.CallHeader{Class: "FAST"}), `unknown activity class "FAST"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ran, err := runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: tt.payload}, func(context.Context) error { return nil })
			assert.False(t, ran, "the user's code does not run")
			var app *temporal.ApplicationError
			require.True(t, errors.As(err, &app), "%v", err)
			assert.Equal(t, interceptors.TypeBadCallHeader, app.Type())
			assert.True(t, app.NonRetryable())
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// The only attempt of an effectful call that runs into its deadline and
// returns context.DeadlineExceeded itself may have made its effect: an
// indeterminate outcome, never retried.
func TestUnitEffectfulDeadlineIsIndeterminate(t *testing.T) {
	t.Parallel()
	h := wire.CallHeader{Class: temporaladk.Tool, Idempotency: "EFFECTFUL", SingleAttempt: true}
	ran, err := runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: headerPayload(t, h)}, func(context.Context) error {
		return context.DeadlineExceeded
	})
	require.True(t, ran)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, temporaladk.TypeIndeterminateOutcome, app.Type())
	assert.True(t, app.NonRetryable())
	var indeterminate *temporaladk.IndeterminateOutcomeError
	require.True(t, errors.As(temporaladk.FromApplicationError(err), &indeterminate))
	assert.Equal(t, "Probe", indeterminate.Tool)

	// The same error from a call that may be repeated stays what it was.
	h.SingleAttempt, h.Idempotency = false, "READ_ONLY"
	_, err = runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: headerPayload(t, h)}, func(context.Context) error {
		return context.DeadlineExceeded
	})
	assert.False(t, errors.As(err, &app) && app.Type() == temporaladk.TypeIndeterminateOutcome)
}

// Idle does nothing.
func Idle(context.Context) error { return nil }

// CancelledBudgetWorkflow cancels its context, then makes a budgeted call
// on it: nothing is charged and nothing scheduled.
func CancelledBudgetWorkflow(ctx workflow.Context) (int, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "cancelled", Attempts: 3})
	if err != nil {
		return 0, err
	}
	ctx, cancel := workflow.WithCancel(ctx)
	cancel()
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), Idle).Get(ctx, nil)
	var canceled *temporal.CanceledError
	if !errors.As(err, &canceled) {
		return attemptsSpent(ctx), errors.New("want a CanceledError, got " + errString(err))
	}
	return attemptsSpent(ctx), nil
}

// attemptsSpent returns the attempts charged to the attempts budget on ctx,
// -1 when ctx has none.
func attemptsSpent(ctx workflow.Context) int {
	for _, s := range temporaladk.BudgetsOf(ctx) {
		if s.Kind == spend.KindAttempts {
			return int(s.Settled)
		}
	}
	return -1
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestUnitNoChargeOnACancelledContext(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	env, p := newProbedEnv(t, interceptors.Options{}, acts)
	env.RegisterWorkflow(CancelledBudgetWorkflow)
	env.RegisterActivity(Idle)
	env.ExecuteWorkflow(CancelledBudgetWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var spent int
	require.NoError(t, env.GetWorkflowResult(&spent))
	assert.Zero(t, spent, "nothing charged")
	assert.Empty(t, p.CallsOf("Idle"), "nothing scheduled")
}

// DeadlineWorkflow calls Fail with a jitter window far wider than what is
// left of the workflow's own execution deadline, and no ScheduleToClose.
func DeadlineWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Second})
	var out runResult
	out.addErr(workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), (*Activities).Fail, scenario, "provider").Get(ctx, nil))
	return out, nil
}

// TestIntegrationWaitCutToTheWorkflowDeadline: without ScheduleToClose, the
// wait is cut to what is left of the workflow's own execution deadline,
// which the kit writes into the call's ScheduleToClose.
func TestIntegrationWaitCutToTheWorkflowDeadline(t *testing.T) {
	t.Parallel()
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = 50 * time.Second
	retrieval.Retry.MaxInterval = 60 * time.Second
	r := startWorker(t, interceptors.Options{Policies: policiesOf(retrieval), Random: func() float64 { return 0.9 }})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.taskQueue, TaskQueue: r.taskQueue, WorkflowExecutionTimeout: 20 * time.Second}, DeadlineWorkflow, "deadline")
	require.NoError(t, err)
	var got runResult
	require.NoError(t, run.Get(ctx, &got))
	events := r.history(ctx, run)
	scheduled := scheduledEvents(events)
	require.Len(t, scheduled, 1)
	// The workflow set no ScheduleToClose; the kit set it to what was left
	// of the workflow's deadline, as the server recorded it.
	stc := scheduled[0].GetScheduleToCloseTimeout().AsDuration()
	assert.Greater(t, stc, 15*time.Second, "the workflow's deadline, as what was left of it")
	assert.LessOrEqual(t, stc, 20*time.Second)
	require.Len(t, got.Decisions, 1)
	d := got.Decisions[0]
	assert.Equal(t, 45*time.Second, d.Requested, "0.9 of the 50s window")
	assert.True(t, d.Truncated, "cut to the workflow's deadline")
	assert.True(t, d.Final)
	assert.Less(t, d.Wait, 20*time.Second)
	assert.Len(t, r.acts.log.get("deadline"), 1)
}

// warnings counts the warnings logged with a given message.
type warnings struct {
	mu   sync.Mutex
	seen map[string]int
}

func (w *warnings) handler() slog.Handler { return &warnHandler{w: w} }

type warnHandler struct{ w *warnings }

func (h *warnHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *warnHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.w.mu.Lock()
		h.w.seen[r.Message]++
		h.w.mu.Unlock()
	}
	return nil
}
func (h *warnHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *warnHandler) WithGroup(string) slog.Handler      { return h }

// A call that arrives without the kit's header (its workflow task ran on a
// worker without the kit) is counted every time and logged once per
// workflow type; a never-retryable kit error it returns is still marked
// non-retryable.
func TestUnitHeaderlessCallsAreCountedAndLoggedOnce(t *testing.T) {
	t.Parallel()
	kit := newKit(t, interceptors.Options{})
	m := newCapture()
	logged := &warnings{seen: map[string]int{}}
	var suite sdktestsuite.WorkflowTestSuite
	suite.SetMetricsHandler(m)
	suite.SetLogger(sdklog.NewStructuredLogger(slog.New(logged.handler())))
	blocked := func(context.Context) error { return &temporaladk.GuardrailViolationError{Reason: "no"} }
	for range 3 {
		env := suite.NewTestActivityEnvironment()
		env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{kit}})
		env.RegisterActivityWithOptions(blocked, activity.RegisterOptions{Name: "Blocked"})
		_, err := env.ExecuteActivity("Blocked")
		var app *temporal.ApplicationError
		require.True(t, errors.As(err, &app), "%v", err)
		assert.True(t, app.NonRetryable(), "never retried, header or not")
	}
	assert.EqualValues(t, 3, m.sum(interceptors.MetricUnplannedCalls, "activity_type=Blocked"), "every headerless call is counted")
	logged.mu.Lock()
	defer logged.mu.Unlock()
	var once int
	for msg, n := range logged.seen {
		if strings.Contains(msg, "without the kit's header") {
			once += n
		}
	}
	assert.Equal(t, 1, once, "logged once for the workflow type: %v", logged.seen)
}
