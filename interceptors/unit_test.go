package interceptors_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

func newKit(t testing.TB, opts interceptors.Options) *temporal.SimplePlugin {
	t.Helper()
	kit, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	return kit
}

// newEnvKit is the kit's plugin for activities that run in env: their
// charges go through env and their retry policy comes from a Recorder.
func newEnvKit(t testing.TB, env *testsuite.TestWorkflowEnvironment, opts interceptors.Options) *temporal.SimplePlugin {
	t.Helper()
	kit, err := kittest.NewKitPlugin(env, opts)
	require.NoError(t, err)
	return kit
}

// newEnv returns a test workflow environment with the kit registered as a
// worker would have it, and the activities.
func newEnv(t *testing.T, opts interceptors.Options, acts *Activities) *testsuite.TestWorkflowEnvironment {
	env, _ := newProbedEnv(t, opts, acts)
	return env
}

// newProbedEnv is newEnv with a testsuite.Recorder innermost in the chain,
// to read what the kit applied.
func newProbedEnv(t *testing.T, opts interceptors.Options, acts *Activities) (*testsuite.TestWorkflowEnvironment, *kittest.Recorder) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	kit := newEnvKit(t, env, opts)
	p := &kittest.Recorder{}
	// The first interceptor's outbound is the innermost: the recorder sees the
	// options the kit wrote; the kit's plugin adds the kit after it.
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{p}, Plugins: []worker.Plugin{kit}})
	env.SetStartTime(testclock.Epoch(t))
	env.RegisterActivity(Report)
	env.RegisterActivity(acts)
	env.RegisterWorkflow(ClassesWorkflow)
	env.RegisterWorkflow(FailWorkflow)
	env.RegisterWorkflow(BookWorkflow)
	env.RegisterWorkflow(FanOutWorkflow)
	return env, p
}

func never() []string {
	n := vocab.NeverRetryableTypes()
	sort.Strings(n)
	return n
}

func TestUnitClassOptions(t *testing.T) {
	env, p := newProbedEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(ClassesWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Len(t, got.Reports, 6)
	calls := p.Calls()
	require.Len(t, calls, 6)
	for i, r := range got.Reports {
		// The test environment leaves ActivityInfo.RetryPolicy empty: read
		// the retry policy the recorder saw scheduled.
		if rp := calls[i].Options.RetryPolicy; rp != nil {
			r.MaxAttempts = rp.MaximumAttempts
			r.NonRetryable = append([]string(nil), rp.NonRetryableErrorTypes...)
			sort.Strings(r.NonRetryable)
		}
		got.Reports[i] = r
	}
	assert.Equal(t, "model: Report", calls[0].Options.Summary, "the summary names the class and the activity")
	assert.Empty(t, calls[4].Options.Summary, "an untouched call gets no summary")
	want := []struct {
		stc, hb  time.Duration
		attempts int32
	}{{900 * time.Second, 60 * time.Second, 3}, {60 * time.Second, 0, 1}, {30 * time.Second, 0, 3}, {15 * time.Second, 0, 3}}
	for i, c := range vocab.Classes() {
		r := got.Reports[i]
		assert.Equal(t, want[i].stc, r.StartToClose, c)
		assert.Equal(t, want[i].hb, r.Heartbeat, c)
		assert.Equal(t, want[i].attempts, r.MaxAttempts, c)
		assert.Equal(t, never(), r.NonRetryable, c)
		assert.Equal(t, c, r.Class, "the class travels to the activity")
	}
	untagged := got.Reports[4]
	assert.Equal(t, 7*time.Second, untagged.StartToClose, "untagged without a default: untouched")
	assert.Zero(t, untagged.Heartbeat)
	assert.Equal(t, never(), untagged.NonRetryable, "untouched, but for the never-retryable types: no setting retries them, on any worker")
	assert.Zero(t, untagged.MaxAttempts, "the server's default attempts")
	assert.Empty(t, untagged.Class, "no kit call in the activity's context")

	callers := got.Reports[5]
	assert.Equal(t, 120*time.Second, callers.StartToClose, "the caller's StartToClose stays")
	assert.Equal(t, 12*time.Second, callers.Heartbeat, "the window is derived from it")
	assert.Equal(t, int32(5), callers.MaxAttempts, "the caller's retry policy stays")
	assert.Equal(t, append([]string{"MyError"}, never()...), sortedWithFirst(callers.NonRetryable, "MyError"), "and gains the never-retryable names")
}

func sortedWithFirst(types []string, first string) []string {
	out := []string{first}
	for _, t := range types {
		if t != first {
			out = append(out, t)
		}
	}
	return out
}

func TestUnitDefaultClassAndDeclarations(t *testing.T) {
	opts := interceptors.Options{
		DefaultClass: temporaladk.Memory,
		Activities:   map[string]temporaladk.Declaration{"Report": {Class: temporaladk.Model, Timeout: 120 * time.Second}},
	}
	env := newEnv(t, opts, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) ([]CallReport, error) {
		var declared, tagged CallReport
		if err := workflow.ExecuteActivity(ctx, Report, "declared").Get(ctx, &declared); err != nil {
			return nil, err
		}
		if err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), Report, "tag wins").Get(ctx, &tagged); err != nil {
			return nil, err
		}
		return []CallReport{declared, tagged}, nil
	})
	require.NoError(t, env.GetWorkflowError())
	var got []CallReport
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, temporaladk.Model, got[0].Class, "declared at registration: untouched workflow code gets the policy")
	assert.Equal(t, 120*time.Second, got[0].StartToClose)
	assert.Equal(t, 12*time.Second, got[0].Heartbeat)
	assert.Equal(t, temporaladk.Retrieval, got[1].Class, "the tag on the context comes first")
	assert.Equal(t, 120*time.Second, got[1].StartToClose, "the declared timeout still applies")
	assert.Zero(t, got[1].Heartbeat, "RETRIEVAL has no heartbeat")
}

func TestUnitInvalidTagFailsTheCall(t *testing.T) {
	env := newEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		return workflow.ExecuteActivity(temporaladk.WithClass(ctx, "REASONING"), Report, "x").Get(ctx, nil)
	})
	require.ErrorContains(t, env.GetWorkflowError(), `tagged with class "REASONING"`)
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

func TestUnitEffectfulTool(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	tool := mustPolicy(t, temporaladk.Tool)
	tool.Retry.MaxAttempts = 3
	opts := interceptors.Options{
		Policies: policiesOf(tool),
		Activities: map[string]temporaladk.Declaration{
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		},
	}
	env := newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "nokey"}, "")
	require.NoError(t, env.GetWorkflowError())
	assert.Len(t, acts.log.get("book:nokey"), 1, "an effectful tool failing transiently gets one attempt")

	env = newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "key"}, "booking-42")
	require.NoError(t, env.GetWorkflowError())
	seen := acts.log.get("book:key")
	require.Len(t, seen, 3, "with a key: the policy's attempts")
	for i, s := range seen {
		assert.Equal(t, i+1, s.Attempt)
		assert.Equal(t, "booking-42", s.Key, "every attempt sees the same key")
	}
}

func TestUnitDerivedKey(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	tool := mustPolicy(t, temporaladk.Tool)
	tool.Retry.MaxAttempts = 2
	opts := interceptors.Options{
		Policies: policiesOf(tool),
		Activities: map[string]temporaladk.Declaration{
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}, Input: Booking{}},
		},
	}
	env := newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "derived"}, "")
	require.NoError(t, env.GetWorkflowError())
	seen := acts.log.get("book:derived")
	require.Len(t, seen, 2)
	assert.Regexp(t, "^[0-9a-f]{64}$", seen[0].Key)
	assert.Equal(t, seen[0].Key, seen[1].Key)
	assert.NotContains(t, seen[0].Key, "LH400")
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

func policiesOf(ps ...policies.ActivityPolicy) map[temporaladk.Class]policies.ActivityPolicy {
	out := map[temporaladk.Class]policies.ActivityPolicy{}
	for _, p := range ps {
		out[p.Class] = p
	}
	return out
}

func mustPolicy(t testing.TB, c temporaladk.Class) policies.ActivityPolicy {
	t.Helper()
	p, err := policies.Default(c)
	require.NoError(t, err)
	return p
}

func TestUnitEffectfulTimeoutIsIndeterminate(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	env := newEnv(t, opts, acts)
	env.RegisterWorkflow(ChargeWorkflow)
	env.ExecuteWorkflow(ChargeWorkflow, "charge")
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("charge"), 1, "never run a second time")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types)
	assert.Contains(t, got.Errors[0], "StartToClose")
}

func TestUnitWorkflowKitErrorKeepsItsFields(t *testing.T) {
	env := newEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		return &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}
	})
	werr := env.GetWorkflowError()
	var budget *temporaladk.BudgetExceededError
	require.ErrorAs(t, temporaladk.FromApplicationError(werr), &budget)
	assert.Equal(t, "2", budget.Details()["attempts"], "the client reads the fields, not only the message")
}

func TestUnitEffectfulLocalTimeoutIsIndeterminate(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	env := newEnv(t, opts, acts)
	env.RegisterWorkflow(LocalChargeWorkflow)
	env.ExecuteWorkflow(LocalChargeWorkflow, "local-charge")
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("local-charge"), 1, "never run a second time")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types, "a local activity's effect is as uncertain as a remote one's")
}
