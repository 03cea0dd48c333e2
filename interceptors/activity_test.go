package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	rand "math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// CallReport is what an activity saw of the call it served.
type CallReport struct {
	StartToClose    time.Duration
	ScheduleToClose time.Duration
	Heartbeat       time.Duration
	MaxAttempts     int32
	NonRetryable    []string
	Attempt         int32
	Class           temporaladk.Class
	Key             string
	KitAttempt      int
	KitMaxAttempts  int
}

// Report returns what the activity saw.
func Report(ctx context.Context, _ string) (CallReport, error) {
	info := activity.GetInfo(ctx)
	r := CallReport{
		StartToClose:    info.StartToCloseTimeout,
		ScheduleToClose: info.ScheduleToCloseTimeout,
		Heartbeat:       info.HeartbeatTimeout,
		Attempt:         info.Attempt,
	}
	if info.RetryPolicy != nil {
		r.MaxAttempts = info.RetryPolicy.MaximumAttempts
		r.NonRetryable = append([]string(nil), info.RetryPolicy.NonRetryableErrorTypes...)
		sort.Strings(r.NonRetryable)
	}
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		r.Class, r.Key, r.KitAttempt, r.KitMaxAttempts = call.Class, call.IdempotencyKey, call.Attempt, call.MaxAttempts
	}
	return r, nil
}

// seenBy returns the attempt as the kit numbers it (the workflow's count
// when the workflow drives the retries) and the key.
func seenBy(ctx context.Context) attemptSeen {
	seen := attemptSeen{Attempt: int(activity.GetInfo(ctx).Attempt), Key: vocabtest.CallOf(ctx).IdempotencyKey, Start: time.Now()}
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		seen.Attempt = call.Attempt
	}
	return seen
}

// Booking is the input of the effectful tool.
type Booking struct {
	Flight    string `json:"flight"`
	Passenger string `json:"passenger"`
	Note      string `json:"note"`
}

// attemptLog records every attempt the failing activities see, by scenario.
type attemptLog struct {
	mu       sync.Mutex
	attempts map[string][]attemptSeen
}

type attemptSeen struct {
	Attempt int
	Key     string
	Start   time.Time
}

func newAttemptLog() *attemptLog { return &attemptLog{attempts: map[string][]attemptSeen{}} }

func (l *attemptLog) add(scenario string, seen attemptSeen) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts[scenario] = append(l.attempts[scenario], seen)
	return len(l.attempts[scenario])
}

func (l *attemptLog) get(scenario string) []attemptSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]attemptSeen(nil), l.attempts[scenario]...)
}

// startTimes returns the wall-clock start of each attempt of scenario.
func (a *Activities) startTimes(scenario string) []time.Time {
	var out []time.Time
	for _, s := range a.log.get(scenario) {
		out = append(out, s.Start)
	}
	return out
}

func (l *attemptLog) total(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, v := range l.attempts {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			n += len(v)
		}
	}
	return n
}

// failures is the kit error each scenario's activity fails with.
func failure(kind string) error {
	switch kind {
	case "guardrail":
		return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "card number"}
	case "transient":
		return &temporaladk.ToolFailureError{Tool: "book", Transient: true, Reason: "ledger busy"}
	case "provider":
		return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "Service Unavailable"}
	case "retry-after-2s":
		return &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: 2 * time.Second}
	case "retry-after-90s":
		return &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: 90 * time.Second}
	case "plain":
		return errors.New("disk full")
	}
	return fmt.Errorf("unknown failure %q", kind)
}

// Activities fail as their scenario says and record every attempt.
type Activities struct {
	log *attemptLog
}

// Fail always fails with the kit error named by kind.
func (a *Activities) Fail(ctx context.Context, scenario, kind string) error {
	a.log.add(scenario, seenBy(ctx))
	return failure(kind)
}

// Book is an effectful tool that fails transiently.
func (a *Activities) Book(ctx context.Context, b Booking) error {
	a.log.add("book:"+b.Note, seenBy(ctx))
	return failure("transient")
}

// runResult is what the test workflows return for each call.
type runResult struct {
	Reports   []CallReport
	Errors    []string
	Types     []string
	Decisions []temporaladk.RetryDecision
}

func (r *runResult) addErr(err error) {
	if err == nil {
		r.Errors = append(r.Errors, "")
		r.Types = append(r.Types, "")
		return
	}
	r.Errors = append(r.Errors, err.Error())
	typ := "untyped"
	if kit, ok := temporaladk.AsError(err); ok {
		typ = kit.Type()
	}
	var budget *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(err), &budget) {
		typ += fmt.Sprintf(" attempts=%s", budget.Details()["attempts"])
	}
	r.Types = append(r.Types, typ)
	if d, ok := temporaladk.RetryDecisionOf(err); ok {
		r.Decisions = append(r.Decisions, d)
	}
}

// ClassesWorkflow runs Report under each class tag, untagged, and with a
// caller's StartToClose and retry policy.
func ClassesWorkflow(ctx workflow.Context) (runResult, error) {
	var out runResult
	base := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ScheduleToCloseTimeout: time.Hour})
	for _, c := range vocab.Classes() {
		var r CallReport
		if err := workflow.ExecuteActivity(temporaladk.WithClass(base, c), Report, string(c)).Get(ctx, &r); err != nil {
			return out, err
		}
		out.Reports = append(out.Reports, r)
	}
	var untagged CallReport
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 7 * time.Second}), Report, "untagged").Get(ctx, &untagged); err != nil {
		return out, err
	}
	out.Reports = append(out.Reports, untagged)
	callers := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 120 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5, NonRetryableErrorTypes: []string{"MyError"}},
	})
	var tuned CallReport
	if err := workflow.ExecuteActivity(temporaladk.WithClass(callers, temporaladk.Model), Report, "callers").Get(ctx, &tuned); err != nil {
		return out, err
	}
	out.Reports = append(out.Reports, tuned)
	return out, nil
}

// FailWorkflow runs one failing call per (class, kind) pair and collects the
// errors the workflow sees, rebuilt as typed kit errors.
func FailWorkflow(ctx workflow.Context, scenario string, class temporaladk.Class, kind string, scheduleToClose time.Duration) (runResult, error) {
	var out runResult
	opts := workflow.ActivityOptions{ScheduleToCloseTimeout: scheduleToClose}
	if class == temporaladk.Model {
		// The same retries as MODEL, without a 900s window to wait out.
		opts.StartToCloseTimeout = 30 * time.Second
	}
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, opts), class)
	err := workflow.ExecuteActivity(ctx, (*Activities).Fail, scenario, kind).Get(ctx, nil)
	out.addErr(temporaladk.FromApplicationError(err))
	return out, nil
}

// BookWorkflow calls the effectful tool, with or without a key.
func BookWorkflow(ctx workflow.Context, b Booking, key string) (runResult, error) {
	var out runResult
	if key != "" {
		ctx = temporaladk.WithIdempotencyKey(ctx, key)
	}
	err := workflow.ExecuteActivity(ctx, (*Activities).Book, b).Get(ctx, nil)
	out.addErr(temporaladk.FromApplicationError(err))
	return out, nil
}

// FanOutWorkflow runs branches failing calls under an optional pool of
// retries and run budget (0 or a negative size means none).
func FanOutWorkflow(ctx workflow.Context, scenario string, branches, pool, run int) (runResult, error) {
	var out runResult
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}), temporaladk.Retrieval)
	if pool > 0 || run > 0 {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "fanout", Retries: max(pool, 0), Attempts: max(run, 0)}); err != nil {
			return out, err
		}
	}
	futures := make([]workflow.Future, branches)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, (*Activities).Fail, fmt.Sprintf("%s/%d", scenario, i), "provider")
	}
	for _, f := range futures {
		out.addErr(f.Get(ctx, nil))
	}
	return out, nil
}

// newRand returns a source of jitter draws seeded from the runtime, as the
// kit's default is; each test run draws its own.
func newRand() func() float64 {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var mu sync.Mutex
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return r.Float64()
	}
}

// StreamReport is what the streaming activity did.
type StreamReport struct {
	Chunks int
	Beats  int64
}

// Stream is a MODEL activity: silent for a while (a slow first token), then
// chunks over a duration, counting them on the kit's heartbeater.
func Stream(ctx context.Context, silent time.Duration, chunks int, over time.Duration) (StreamReport, error) {
	hb := temporaladk.HeartbeaterFrom(ctx)
	hb.SetStep("stream")
	select {
	case <-time.After(silent):
	case <-ctx.Done():
		return StreamReport{}, ctx.Err()
	}
	const batches = 300
	per := chunks / batches
	tick := time.NewTicker(over / batches)
	defer tick.Stop()
	sent := 0
	for b := 0; b < batches; b++ {
		n := per
		if b == batches-1 {
			n = chunks - sent
		}
		for i := 0; i < n; i++ {
			hb.Chunk(1)
		}
		sent += n
		select {
		case <-tick.C:
		case <-ctx.Done():
			return StreamReport{}, ctx.Err()
		}
	}
	return StreamReport{Chunks: sent, Beats: hb.Beats()}, nil
}

// StreamWorkflow runs Stream as a MODEL call with a heartbeat window the
// caller chose.
func StreamWorkflow(ctx workflow.Context, window, silent time.Duration, chunks int, over time.Duration) (StreamReport, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: window})
	var r StreamReport
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), Stream, silent, chunks, over).Get(ctx, &r)
	return r, err
}

// Charge is an effectful tool that makes its effect and then hangs, as a
// worker that dies after the side effect and before it returns.
func (a *Activities) Charge(ctx context.Context, scenario string) error {
	a.log.add(scenario, seenBy(ctx))
	<-ctx.Done()
	// A lost worker does not answer at its deadline: the timeout, not this
	// late return, is what the workflow sees.
	time.Sleep(500 * time.Millisecond)
	return ctx.Err()
}

// ChargeWorkflow calls Charge with a short StartToClose.
func ChargeWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	var out runResult
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second})
	err := workflow.ExecuteActivity(ctx, (*Activities).Charge, scenario).Get(ctx, nil)
	out.addErr(err)
	return out, nil
}

// LocalChargeWorkflow calls Charge as a local activity with a short
// StartToClose.
func LocalChargeWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	var out runResult
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Second})
	err := workflow.ExecuteLocalActivity(ctx, (*Activities).Charge, scenario).Get(ctx, nil)
	out.addErr(err)
	return out, nil
}

func TestUnitGuardrailOneAttempt(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	model := mustPolicy(t, temporaladk.Model)
	model.Retry.MaxAttempts = 9
	env := newEnv(t, interceptors.Options{Policies: policiesOf(model)}, acts)
	env.ExecuteWorkflow(FailWorkflow, "guardrail", temporaladk.Model, "guardrail", time.Duration(0))
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("guardrail"), 1, "a guardrail block is not asked again")
	assert.Equal(t, []string{temporaladk.TypeGuardrailViolation}, got.Types, "the workflow gets the typed error")
}

func TestUnitPlainErrorsPassUnchanged(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	env := newEnv(t, interceptors.Options{}, acts)
	env.ExecuteWorkflow(FailWorkflow, "plain", temporaladk.Retrieval, "plain", time.Duration(0))
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("plain"), 3, "Temporal retries it by the class's attempts")
	assert.Equal(t, []string{"untyped"}, got.Types)
	assert.Contains(t, got.Errors[0], "disk full")
}

func TestUnitJitterDrawnInTheActivity(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	var mu sync.Mutex
	draws := 0
	opts := interceptors.Options{Random: func() float64 {
		mu.Lock()
		defer mu.Unlock()
		draws++
		return 0.5
	}}
	env := newEnv(t, opts, acts)
	var starts []time.Time
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) {
		starts = append(starts, env.Now())
	})
	env.ExecuteWorkflow(FailWorkflow, "provider", temporaladk.Retrieval, "provider", time.Duration(0))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, acts.log.get("provider"), 3, "RETRIEVAL's three attempts")
	mu.Lock()
	assert.Equal(t, 2, draws, "one draw per retry, inside the activity; none on the last attempt")
	mu.Unlock()
	require.Len(t, starts, 3)
	// Full jitter with u = 0.5: half of 250ms, then half of 500ms.
	assert.Equal(t, 125*time.Millisecond, starts[1].Sub(starts[0]))
	assert.Equal(t, 250*time.Millisecond, starts[2].Sub(starts[1]))
}

func TestUnitRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		kind     string
		attempts int
		gap      time.Duration
	}{
		{"retry-after-2s", 3, 2 * time.Second},
		{"retry-after-90s", 1, 0},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			acts := &Activities{log: newAttemptLog()}
			env := newEnv(t, interceptors.Options{}, acts)
			var starts []time.Time
			env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) {
				starts = append(starts, env.Now())
			})
			env.ExecuteWorkflow(FailWorkflow, tt.kind, temporaladk.Retrieval, tt.kind, time.Duration(0))
			require.NoError(t, env.GetWorkflowError())
			assert.Len(t, acts.log.get(tt.kind), tt.attempts)
			for i := 1; i < len(starts); i++ {
				assert.Equal(t, tt.gap, starts[i].Sub(starts[i-1]), "the provider's Retry-After is honoured")
			}
		})
	}
}

// The test environment stamps each attempt's ScheduledTime with the wall
// clock, so only the first cut is checked here; the integration test on a
// real server follows a call to its deadline.
func TestUnitTruncatedWait(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	// A jitter window far wider than the call's 10s deadline.
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = 30 * time.Second
	retrieval.Retry.MaxInterval = 60 * time.Second
	opts := interceptors.Options{Policies: policiesOf(retrieval), Random: func() float64 { return 0.99 }}
	env := newEnv(t, opts, acts)
	var starts []time.Time
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) {
		starts = append(starts, env.Now())
	})
	env.ExecuteWorkflow(FailWorkflow, "cut", temporaladk.Retrieval, "provider", 10*time.Second)
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Len(t, starts, 1, "29.7s drawn does not fit in what is left of 10s: no attempt it cannot afford")
	require.Len(t, got.Decisions, 1, "the decision travels with the failure")
	d := got.Decisions[0]
	assert.True(t, d.Truncated, "a cut wait is reported")
	assert.True(t, d.Final)
	assert.Equal(t, 29700*time.Millisecond, d.Requested)
	assert.LessOrEqual(t, d.Wait, 10*time.Second, "cut to what is left")
	assert.Contains(t, d.Reason, "deadline")
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
			return int(s.Spent)
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

func (h *warnHandler) WithGroup(string) slog.Handler { return h }

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
	assert.EqualValues(t, 3, m.sum(observe.MetricUnplannedCalls, "activity_type=Blocked"), "every headerless call is counted")
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

// beatProbe is an activity that reports -1 when the kit gave it no
// heartbeater, else waits for the heartbeater's first beat (sent as it
// starts) and reports its interval.
func beatProbe(ctx context.Context) (time.Duration, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	if call.Heartbeater == nil {
		return -1, nil
	}
	for call.Heartbeater.Beats() == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		runtime.Gosched()
	}
	return call.Heartbeater.Interval(), nil
}

// beatWorkflow calls beatProbe as a MODEL call with the given heartbeat
// window (zero: none).
func beatWorkflow(ctx workflow.Context, window time.Duration) (time.Duration, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: window})
	var interval time.Duration
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), beatProbe).Get(ctx, &interval)
	return interval, err
}

// A call with a heartbeat window of two seconds is beaten for from its start;
// a call without a window gets no heartbeater and no beat.
func TestUnitHeartbeatsStartForEveryWindowAndOnlyWithOne(t *testing.T) {
	t.Parallel()
	silent, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	silent.Heartbeat = 0
	tests := []struct {
		name   string
		window time.Duration
		kit    interceptors.Options
		want   time.Duration
	}{
		{"a 2s window beats", 2 * time.Second, interceptors.Options{}, 2 * time.Second / 3},
		{"no window, no beat", 0, interceptors.Options{Policies: policiesOf(silent)}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var suite sdktestsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(t, tt.kit)}})
			env.RegisterActivity(beatProbe)
			env.RegisterWorkflow(beatWorkflow)
			env.ExecuteWorkflow(beatWorkflow, tt.window)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			var got time.Duration
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, tt.want, got, "beat on a third of the window; -1 is no heartbeater")
		})
	}
}

// The consequences of one place deciding, each in the SDK's test environment
// and on a real dev server.

// UntaggedWorkflow calls Fail with no class tag, under the caller's retry
// policy of callerAttempts attempts, or Temporal's default policy
// (unlimited attempts) when callerAttempts is 0.
func UntaggedWorkflow(ctx workflow.Context, scenario, kind string, callerAttempts int32) (runResult, error) {
	opts := workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}
	if callerAttempts > 0 {
		opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: callerAttempts, InitialInterval: 10 * time.Millisecond}
	}
	var out runResult
	out.addErr(workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), (*Activities).Fail, scenario, kind).Get(ctx, nil))
	return out, nil
}

// TaggedWorkflow calls Fail under the class tag class.
func TaggedWorkflow(ctx workflow.Context, scenario, kind string, class temporaladk.Class) (runResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 10 * time.Millisecond, MaximumAttempts: 9}})
	var out runResult
	out.addErr(workflow.ExecuteActivity(temporaladk.WithClass(ctx, class), (*Activities).Fail, scenario, kind).Get(ctx, nil))
	return out, nil
}

// decisionCases are the consequences the issue names: a never-retryable kit
// error from a call with no tag, no declaration and no default class runs
// once whatever the retry policy says; a tool declared TOOL without a word
// about idempotency keeps one attempt under a MODEL tag.
var decisionCases = []struct {
	name     string
	opts     interceptors.Options
	workflow any
	args     []any
	runs     int
	errType  string
}{
	{"untagged never-retryable under a caller policy of 9", interceptors.Options{}, UntaggedWorkflow, []any{"guardrail", int32(9)}, 1, temporaladk.TypeGuardrailViolation},
	{"untagged never-retryable under the default policy", interceptors.Options{}, UntaggedWorkflow, []any{"guardrail", int32(0)}, 1, temporaladk.TypeGuardrailViolation},
	{"untagged retryable: the caller's 9 attempts", interceptors.Options{}, UntaggedWorkflow, []any{"transient", int32(9)}, 9, temporaladk.TypeToolFailure},
	{"declared TOOL under a MODEL tag: one attempt", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Fail": {Class: temporaladk.Tool}}},
		TaggedWorkflow, []any{"transient", temporaladk.Model}, 1, temporaladk.TypeToolFailure},
	{"declared read-only TOOL under a MODEL tag: the caller's attempts", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Fail": {Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly}}},
		TaggedWorkflow, []any{"transient", temporaladk.Model}, 9, temporaladk.TypeToolFailure},
}

func TestUnitOnePlaceDecides(t *testing.T) {
	for _, tt := range decisionCases {
		t.Run(tt.name, func(t *testing.T) {
			acts := &Activities{log: newAttemptLog()}
			env := newEnv(t, tt.opts, acts)
			env.RegisterWorkflow(UntaggedWorkflow)
			env.RegisterWorkflow(TaggedWorkflow)
			env.ExecuteWorkflow(tt.workflow, append([]any{"decide"}, tt.args...)...)
			require.NoError(t, env.GetWorkflowError())
			var got runResult
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Len(t, acts.log.get("decide"), tt.runs, "executions of the activity's code")
			assert.Equal(t, []string{tt.errType}, got.Types)
		})
	}
}
