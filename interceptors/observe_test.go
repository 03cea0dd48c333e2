package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// observedLimit is the ceiling on attempts of ObservedWorkflow's budget;
// observedType the activity it calls.
const (
	observedLimit = 3
	observedType  = "ObservedChat"
)

// ObservedChat fails as an overloaded provider every time.
func ObservedChat(ctx context.Context) error {
	return &temporaladk.ProviderError{Provider: "test", StatusCode: 503, Message: "overloaded"}
}

// ObservedWorkflow calls ObservedChat under a ceiling of observedLimit
// attempts: the call runs observedLimit attempts and the budget refuses the
// next retry in the kit's charge Update; a second call's first attempt is
// then refused in workflow code. It returns the budgets the refusals name.
func ObservedWorkflow(ctx workflow.Context) (string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "chat", Attempts: observedLimit})
	if err != nil {
		return "", err
	}
	ctx = temporaladk.WithIdempotencyKey(ctx, "observed-key")
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var breached []string
	for range 2 {
		err := workflow.ExecuteActivity(ctx, observedType).Get(ctx, nil)
		var refused *temporaladk.BudgetExceededError
		if !errors.As(temporaladk.FromApplicationError(err), &refused) {
			return "", fmt.Errorf("want a budget's refusal, got %w", err)
		}
		breached = append(breached, refused.Breached)
	}
	return strings.Join(breached, ","), nil
}

// observedOptions retry MODEL calls more often than the budget allows.
func observedOptions(t *testing.T, o observe.Observer) interceptors.Options {
	t.Helper()
	p, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	p.Retry.MaxAttempts = observedLimit + 2
	p.Retry.InitialInterval = 20 * time.Millisecond
	p.Retry.MaxInterval = 100 * time.Millisecond
	return interceptors.Options{
		Policies:   map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: p},
		Activities: map[string]temporaladk.Declaration{observedType: {Class: temporaladk.Model, Idempotency: temporaladk.ReadOnly}},
		Random:     func() float64 { return 0.5 },
		Observer:   o,
	}
}

// ended is one AttemptEnded call.
type ended struct {
	attempt observe.Attempt
	outcome observe.Outcome
}

// recording is an Observer that keeps every event, safe for concurrent use.
type recording struct {
	observe.Base
	mu       sync.Mutex
	started  []observe.Attempt
	ended    []ended
	charged  []observe.Charge
	refusals []observe.Refusal
}

func (r *recording) AttemptStarted(_ context.Context, a observe.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, a)
}

func (r *recording) AttemptEnded(_ context.Context, a observe.Attempt, o observe.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, ended{a, o})
}

func (r *recording) Charged(_ workflow.Context, c observe.Charge) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.charged = append(r.charged, c)
}

func (r *recording) BudgetRefused(_ workflow.Context, ref observe.Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusals = append(r.refusals, ref)
}

// events is how many events r holds.
func (r *recording) events() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.started) + len(r.ended) + len(r.charged) + len(r.refusals)
}

// assertObserved checks what ObservedWorkflow's run told the observer:
// three attempts started and ended, the first two with a retry decision and
// the last with the refusal of the fourth; each attempt charged; and the
// refused retry and first attempt. retryPolicy says whether the activity
// tasks carry the server's retry policy.
func assertObserved(t *testing.T, rec *recording, retryPolicy bool) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.started, observedLimit, "one AttemptStarted per attempt run")
	require.Len(t, rec.ended, observedLimit, "one AttemptEnded per attempt run")
	for i, a := range rec.started {
		want := observe.Attempt{ActivityType: observedType, Number: i + 1, Header: true, Class: temporaladk.Model,
			Idempotency: temporaladk.ReadOnly, KeyPresent: true, BudgetCall: "call-1"}
		if retryPolicy {
			// The server holds the call to what its budget had left.
			want.RetryPolicy, want.MaxAttempts = true, observedLimit
		}
		assert.Equal(t, want, a, "attempt %d started", i+1)
		assert.Equal(t, want, rec.ended[i].attempt, "attempt %d ended", i+1)
	}
	for i, e := range rec.ended[:observedLimit-1] {
		o := e.outcome
		require.Error(t, o.Err)
		assert.Equal(t, temporaladk.TypeProvider, o.ErrorType)
		require.NotNil(t, o.Retry, "attempt %d: the kit decided the wait", i+1)
		assert.Equal(t, "jitter", o.Retry.Source)
		assert.Positive(t, o.Retry.Wait)
		require.NotNil(t, o.Retry.BudgetRemaining)
		assert.Equal(t, observedLimit-i-2, *o.Retry.BudgetRemaining, "left once the next attempt is charged")
		assert.Nil(t, o.Refused)
	}
	last := rec.ended[observedLimit-1].outcome
	assert.Equal(t, temporaladk.TypeBudgetExceeded, last.ErrorType)
	require.NotNil(t, last.Refused, "the last attempt ends with the refusal of the next")
	assert.Equal(t, "attempts", last.Refused.Breached)
	assert.Equal(t, float64(observedLimit), last.Refused.Limit)

	require.Len(t, rec.charged, observedLimit, "each attempt run was charged")
	for i, c := range rec.charged {
		require.NotNil(t, c.Remaining)
		assert.Equal(t, observe.Charge{ActivityType: observedType, Class: temporaladk.Model, Call: "call-1", Attempt: i + 1, Remaining: c.Remaining}, c)
		assert.Equal(t, observedLimit-i-1, *c.Remaining)
	}

	require.Len(t, rec.refusals, 2, "the refused retry and the refused first attempt")
	retry, first := rec.refusals[0], rec.refusals[1]
	assert.Equal(t, observedType, retry.ActivityType)
	assert.Equal(t, temporaladk.Model, retry.Class)
	assert.Equal(t, "call-1", retry.Call)
	assert.Equal(t, observedLimit+1, retry.Attempt)
	assert.Equal(t, observedType, first.ActivityType)
	assert.Equal(t, "", first.Call, "a first attempt is refused before the call is named")
	assert.Equal(t, 1, first.Attempt)
	for _, r := range rec.refusals {
		require.NotNil(t, r.Err)
		assert.Equal(t, "attempts", r.Err.Breached)
		assert.Equal(t, float64(observedLimit), r.Err.Limit)
		assert.Equal(t, observedLimit, r.Err.Attempts)
	}
}

// TestObserverInTheTestEnvironment: in the SDK's test environment, a
// retried call under a ceiling on attempts is observed attempt by attempt,
// with each charge and both refusals.
func TestObserverInTheTestEnvironment(t *testing.T) {
	t.Parallel()
	rec := &recording{}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, observedOptions(t, rec))
	require.NoError(t, err)
	env.RegisterWorkflow(ObservedWorkflow)
	env.RegisterActivityWithOptions(ObservedChat, activity.RegisterOptions{Name: observedType})
	env.ExecuteWorkflow(ObservedWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var breached string
	require.NoError(t, env.GetWorkflowResult(&breached))
	require.Equal(t, "attempts,attempts", breached)
	assertObserved(t, rec, false)
}

// TestIntegrationObserverOnTheServer: on the dev server the same run is
// observed as in the test environment, with the retry policy the server
// holds; replaying its history with the kit's plugin tells the observer
// nothing.
func TestIntegrationObserverOnTheServer(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t)
	rec := &recording{}
	plugin, err := interceptors.NewPlugin(observedOptions(t, rec))
	require.NoError(t, err)
	queue := "tq-" + t.Name()
	w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(ObservedWorkflow)
	w.RegisterActivityWithOptions(ObservedChat, activity.RegisterOptions{Name: observedType})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "observed-" + t.Name(), TaskQueue: queue}, ObservedWorkflow)
	require.NoError(t, err)
	var breached string
	require.NoError(t, run.Get(ctx, &breached))
	require.Equal(t, "attempts,attempts", breached)
	w.Stop()
	assertObserved(t, rec, true)

	path := filepath.Join(t.TempDir(), "observed.json")
	require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), run.GetID(), run.GetRunID(), path))
	replayed := &recording{}
	replayPlugin, err := interceptors.NewPlugin(observedOptions(t, replayed))
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{replayPlugin}})
	require.NoError(t, err)
	replayer.RegisterWorkflow(ObservedWorkflow)
	require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, path))
	assert.Zero(t, replayed.events(), "a replay observes nothing: charged %v, refused %v", replayed.charged, replayed.refusals)
}
