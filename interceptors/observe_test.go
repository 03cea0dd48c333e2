package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/observe/recorded"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/providers"
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
	mu           sync.Mutex
	started      []observe.Attempt
	ended        []ended
	charged      []observe.Charge
	refusals     []observe.Refusal
	planned      []observe.Call
	callsEnded   []callEnded
	asked        []observe.Approval
	decided      []approvalDecision
	reservations []observe.Reservation
	settlements  []observe.Settlement
}

// callEnded is one CallEnded call.
type callEnded struct {
	call observe.Call
	end  observe.CallEnd
}

// approvalDecision is one ApprovalDecided call.
type approvalDecision struct {
	approval observe.Approval
	decision observe.Decision
}

func (r *recording) CallPlanned(_ workflow.Context, c observe.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.planned = append(r.planned, c)
}

func (r *recording) CallEnded(_ workflow.Context, c observe.Call, e observe.CallEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.callsEnded = append(r.callsEnded, callEnded{c, e})
}

func (r *recording) ApprovalAsked(_ workflow.Context, a observe.Approval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, a)
}

func (r *recording) ApprovalDecided(_ workflow.Context, a observe.Approval, d observe.Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decided = append(r.decided, approvalDecision{a, d})
}

func (r *recording) TokensReserved(_ workflow.Context, res observe.Reservation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reservations = append(r.reservations, res)
}

func (r *recording) UsageSettled(_ workflow.Context, s observe.Settlement) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settlements = append(r.settlements, s)
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
	return len(r.started) + len(r.ended) + len(r.charged) + len(r.refusals) + len(r.planned) + len(r.callsEnded) +
		len(r.asked) + len(r.decided) + len(r.reservations) + len(r.settlements)
}

// workflowEvents is how many workflow-side events r holds.
func (r *recording) workflowEvents() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.charged) + len(r.refusals) + len(r.planned) + len(r.callsEnded) +
		len(r.asked) + len(r.decided) + len(r.reservations) + len(r.settlements)
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
			Idempotency: temporaladk.ReadOnly, KeyPresent: true, BudgetCall: "call-1", Call: 1}
		// The run's and the call's names, as the server gave them.
		assert.NotEmpty(t, a.RunID)
		assert.Equal(t, rec.started[0].ActivityID, a.ActivityID, "every attempt is of the same call")
		want.WorkflowID, want.RunID, want.ActivityID = a.WorkflowID, a.RunID, a.ActivityID
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

	// The first call is planned and ends with the refusal of its fourth
	// attempt; the second, refused before it was scheduled, is not planned.
	require.Len(t, rec.planned, 1, "one call scheduled")
	c := rec.planned[0]
	assert.Equal(t, observedType, c.ActivityType)
	assert.Equal(t, 1, c.Seq)
	assert.False(t, c.Local)
	assert.Equal(t, temporaladk.Model, c.Class)
	assert.Equal(t, temporaladk.ReadOnly, c.Idempotency)
	assert.Equal(t, "observed-key", c.Key)
	assert.Equal(t, "call-1", c.Budget)
	assert.True(t, c.BudgetBound, "the policy's %d attempts held to the budget's %d", observedLimit+2, observedLimit)
	assert.Equal(t, observedLimit, c.MaxAttempts)
	assert.Equal(t, 10*time.Second, c.StartToClose)
	assert.Equal(t, 20*time.Millisecond, c.InitialInterval)
	assert.Equal(t, 100*time.Millisecond, c.MaxInterval)
	assert.Positive(t, c.BackoffCoefficient)
	assert.Nil(t, c.Owner)
	assert.Zero(t, c.MaxTokens, "not metered")
	require.Len(t, rec.callsEnded, 1, "the planned call ended once")
	e := rec.callsEnded[0]
	assert.Equal(t, c, e.call, "ended with the call as planned")
	assert.Equal(t, observe.CallFailed, e.end.Outcome)
	assert.Equal(t, temporaladk.TypeBudgetExceeded, e.end.ErrorType)
	assert.Equal(t, observedLimit, e.end.Attempts, "each attempt charged")
	require.Error(t, e.end.Err)
	assert.Empty(t, rec.asked)
	assert.Empty(t, rec.reservations)
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
	assertRecordedAsObserved(t, path, rec)

	replayed := &recording{}
	replayPlugin, err := interceptors.NewPlugin(observedOptions(t, replayed))
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{replayPlugin}})
	require.NoError(t, err)
	replayer.RegisterWorkflow(ObservedWorkflow)
	require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, path))
	assert.Zero(t, replayed.events(), "a replay observes nothing: charged %v, refused %v, planned %v, ended %v",
		replayed.charged, replayed.refusals, replayed.planned, replayed.callsEnded)
}

// ApprovalObservedWorkflow asks three approvals at once: Refund, which is
// approved; Reserve, which is denied; and a second Refund, which expires.
// It returns the error of each call, "" for none.
func ApprovalObservedWorkflow(ctx workflow.Context) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	asked, err := approvals.WithApproval(ctx, approvals.Options{Summary: "refund the card ending 42", Approvers: approvals.Approvers{Open: true, Required: 1}})
	if err != nil {
		return nil, err
	}
	expiring, err := approvals.WithApproval(ctx, approvals.Options{Summary: "refund again", Timeout: time.Minute, Approvers: approvals.Approvers{Open: true, Required: 1}})
	if err != nil {
		return nil, err
	}
	futures := []workflow.Future{
		workflow.ExecuteActivity(asked, "Refund", "order-7"),
		workflow.ExecuteActivity(ctx, "Reserve", "seat-1A"),
		workflow.ExecuteActivity(expiring, "Refund", "order-8"),
	}
	out := make([]string, len(futures))
	for i, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			out[i] = err.Error()
		}
	}
	return out, nil
}

// TestObserverSeesApprovals: each call that waits for an approval is
// asked once, and decided once, granted with its approver, rejected with
// who denied it and why, or expired; the granted call is then planned and
// ends, and the others are never planned.
func TestObserverSeesApprovals(t *testing.T) {
	t.Parallel()
	rec := &recording{}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Reserve": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true},
	}, Approvals: openReserve(), Observer: rec})
	require.NoError(t, err)
	env.RegisterWorkflow(ApprovalObservedWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "refunded " + s, nil }, activity.RegisterOptions{Name: "Refund"})
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "reserved " + s, nil }, activity.RegisterOptions{Name: "Reserve"})
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(approvals.QueryName)
		require.NoError(t, err)
		var listed []approvals.Pending
		require.NoError(t, v.Get(&listed))
		require.Len(t, listed, 3)
		approve, deny := listed[0], listed[1]
		update(env, "approve", approvals.Request{Decision: approvals.Decision{Call: approve.Call, Digest: approve.Digest, By: "ana"}, Approve: new(true)})
		update(env, "deny", approvals.Request{Decision: approvals.Decision{Call: deny.Call, Digest: deny.Digest, By: "bo", Reason: "not today"}, Approve: new(false)})
	}, time.Second)
	env.ExecuteWorkflow(ApprovalObservedWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var out []string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Len(t, out, 3)
	assert.Empty(t, out[0], "approved and run")

	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.asked, 3, "each gated call asked once")
	for i, a := range rec.asked {
		assert.Equal(t, fmt.Sprintf("approval-%d", i+1), a.Call)
		assert.NotEmpty(t, a.Digest)
		assert.Equal(t, 1, a.Required)
		assert.Nil(t, a.Principals, "open approvers")
		assert.True(t, a.Deadline.After(a.Since))
	}
	assert.Equal(t, "Refund", rec.asked[0].ActivityType)
	assert.Equal(t, "refund the card ending 42", rec.asked[0].Summary)
	assert.Equal(t, "Reserve", rec.asked[1].ActivityType)
	assert.Equal(t, temporaladk.Tool, rec.asked[1].Class)
	assert.Equal(t, time.Minute, rec.asked[2].Deadline.Sub(rec.asked[2].Since))

	require.Len(t, rec.decided, 3, "each wait decided once")
	byCall := map[string]observe.Decision{}
	for _, d := range rec.decided {
		byCall[d.approval.Call] = d.decision
	}
	assert.Equal(t, observe.ApprovalGranted, byCall["approval-1"].Outcome)
	assert.Equal(t, "ana", byCall["approval-1"].By)
	assert.Equal(t, []string{"ana"}, byCall["approval-1"].Approvals)
	assert.Equal(t, observe.ApprovalRejected, byCall["approval-2"].Outcome)
	assert.Equal(t, "bo", byCall["approval-2"].By)
	assert.Equal(t, "not today", byCall["approval-2"].Reason)
	assert.Equal(t, observe.ApprovalExpired, byCall["approval-3"].Outcome)
	assert.Empty(t, byCall["approval-3"].By)
	assert.Equal(t, time.Minute, byCall["approval-3"].Waited)

	require.Len(t, rec.planned, 1, "only the granted call is scheduled")
	assert.Equal(t, "Refund", rec.planned[0].ActivityType)
	require.Len(t, rec.callsEnded, 1)
	assert.Equal(t, observe.CallCompleted, rec.callsEnded[0].end.Outcome)
	assert.NoError(t, rec.callsEnded[0].end.Err)
	assert.Zero(t, rec.callsEnded[0].end.Attempts, "an unbudgeted call's attempts are the server's")
}

// assertRecordedAsObserved reads the history at path with observe/recorded
// and checks that it yields what the live observer got, where the history
// holds it.
func assertRecordedAsObserved(t *testing.T, path string, rec *recording) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	run, err := recorded.Read(h.GetEvents())
	require.NoError(t, err)
	rec.mu.Lock()
	defer rec.mu.Unlock()

	require.Len(t, run.Calls, len(rec.planned), "one recorded call per call planned")
	c := run.Calls[0]
	assert.Equal(t, rec.planned[0], c.Call, "the call as planned")
	require.Len(t, c.Attempts, len(rec.started))
	for i, a := range c.Attempts {
		assert.Equal(t, rec.started[i], a.Attempt, "attempt %d", i+1)
	}
	assert.Nil(t, c.Attempts[0].Outcome, "the history holds the last two attempts' failures only")
	for i := 1; i < len(c.Attempts); i++ {
		got, want := c.Attempts[i].Outcome, rec.ended[i].outcome
		require.NotNil(t, got, "attempt %d", i+1)
		assert.Equal(t, want.ErrorType, got.ErrorType, "attempt %d", i+1)
		assert.Equal(t, want.Retry, got.Retry, "attempt %d", i+1)
		if want.Refused == nil {
			assert.Nil(t, got.Refused, "attempt %d", i+1)
			continue
		}
		require.NotNil(t, got.Refused, "attempt %d", i+1)
		// The recorded refusal's cause is the failure as decoded, so the
		// fields are compared, not the chain.
		assert.Equal(t, [4]float64{want.Refused.Limit, want.Refused.Consumed, float64(want.Refused.Attempts), want.Refused.Asked},
			[4]float64{got.Refused.Limit, got.Refused.Consumed, float64(got.Refused.Attempts), got.Refused.Asked}, "attempt %d", i+1)
		assert.Equal(t, want.Refused.Breached, got.Refused.Breached, "attempt %d", i+1)
	}
	for _, a := range c.Attempts {
		assert.Equal(t, observe.CallFailed, a.End)
	}
	require.NotNil(t, c.End)
	live := rec.callsEnded[0].end
	assert.Equal(t, live.Outcome, c.End.Outcome)
	assert.Equal(t, live.ErrorType, c.End.ErrorType)
	assert.Equal(t, live.Attempts, c.End.Attempts)

	assert.Equal(t, rec.charged[1:], run.Charges, "the retries' charges; the first attempt's is workflow code's")
	assert.Equal(t, rec.refusals[:1], run.Refusals, "the refused retry; the refused first attempt is workflow code's")
	assert.Empty(t, run.Reservations)
	assert.Empty(t, run.Settlements)
	assert.Equal(t, run.Updates, run.ChargeUpdates, "the kit's Updates only")
	assert.Positive(t, run.ChargeUpdates)
	assert.Nil(t, run.Carried)
	assert.Nil(t, run.Handed)
}

// LocalAndRemoteWorkflow calls Lookup as a local activity, then twice as an
// activity.
func LocalAndRemoteWorkflow(ctx workflow.Context) error {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Second})
	if err := workflow.ExecuteLocalActivity(lctx, "Lookup", "a").Get(ctx, nil); err != nil {
		return err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, ScheduleToStartTimeout: 30 * time.Second})
	for _, q := range []string{"b", "c"} {
		if err := workflow.ExecuteActivity(ctx, "Lookup", q).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// TestObserverNumbersCallsAndLocalApart: activities and local activities
// are numbered apart, in the order scheduled, each planned with its own
// options and ended once.
func TestObserverNumbersCallsAndLocalApart(t *testing.T) {
	t.Parallel()
	rec := &recording{}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{Observer: rec,
		Activities: map[string]temporaladk.Declaration{"Lookup": {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly}}})
	require.NoError(t, err)
	env.RegisterWorkflow(LocalAndRemoteWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, q string) (string, error) { return q, nil }, activity.RegisterOptions{Name: "Lookup"})
	env.ExecuteWorkflow(LocalAndRemoteWorkflow)
	require.NoError(t, env.GetWorkflowError())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.planned, 3)
	assert.True(t, rec.planned[0].Local)
	assert.Equal(t, 1, rec.planned[0].Seq)
	assert.Equal(t, time.Second, rec.planned[0].StartToClose)
	for i, c := range rec.planned[1:] {
		assert.False(t, c.Local)
		assert.Equal(t, i+1, c.Seq, "activities are numbered apart from local activities")
		assert.Equal(t, temporaladk.Retrieval, c.Class)
		assert.Equal(t, time.Minute, c.StartToClose)
		assert.Equal(t, 30*time.Second, c.ScheduleToStart)
	}
	require.Len(t, rec.callsEnded, 3)
	for _, e := range rec.callsEnded {
		assert.Equal(t, observe.CallCompleted, e.end.Outcome)
	}
}

// deltas is an Observer that keeps the attempts' deltas and the calls'
// recorded results.
type deltas struct {
	observe.Base
	mu      sync.Mutex
	started []observe.Attempt
	deltas  []observe.Delta
	of      []observe.Attempt
	results []string
}

func (d *deltas) AttemptStarted(_ context.Context, a observe.Attempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.started = append(d.started, a)
}

func (d *deltas) TextDelta(_ context.Context, a observe.Attempt, delta observe.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deltas, d.of = append(d.deltas, delta), append(d.of, a)
}

func (d *deltas) CallEnded(_ workflow.Context, _ observe.Call, e observe.CallEnd) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p := e.Result.Payload(); p != nil {
		d.results = append(d.results, string(p.GetData()))
	}
}

// StreamedWorkflow calls a retrieval, then "Stream" twice, and returns the
// last reply.
func StreamedWorkflow(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var reply string
	for _, a := range []string{"Lookup", "Stream", "Stream"} {
		if err := workflow.ExecuteActivity(ctx, a, "Hello").Get(ctx, &reply); err != nil {
			return "", err
		}
	}
	return reply, nil
}

// TestObserverGetsReportedText: the text an activity reports with
// providers.ReportText reaches the observer numbered within its attempt,
// named by the call's number in the run; the call's end carries the
// result as recorded.
func TestObserverGetsReportedText(t *testing.T) {
	t.Parallel()
	rec := &deltas{}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{Observer: rec, Activities: map[string]temporaladk.Declaration{
		"Lookup": {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly}, "Stream": {Class: temporaladk.Model}}})
	require.NoError(t, err)
	env.RegisterWorkflow(StreamedWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, q string) (string, error) { return q, nil }, activity.RegisterOptions{Name: "Lookup"})
	env.RegisterActivityWithOptions(func(ctx context.Context, q string) (string, error) {
		for _, d := range []string{"Hel", "lo"} {
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return "", err
			}
		}
		return q + "!", nil
	}, activity.RegisterOptions{Name: "Stream"})
	env.ExecuteWorkflow(StreamedWorkflow)
	require.NoError(t, env.GetWorkflowError())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.deltas, 4)
	for i, d := range rec.deltas {
		assert.Equal(t, observe.Delta{Kind: providers.Text, Text: []string{"Hel", "lo"}[i%2], Seq: i%2 + 1}, d)
		assert.Equal(t, 2+i/2, rec.of[i].Call, "the second and third call")
		assert.Equal(t, 1, rec.of[i].Number)
		assert.NotEmpty(t, rec.of[i].RunID)
		assert.NotEmpty(t, rec.of[i].ActivityID)
	}
	require.Len(t, rec.started, 3)
	assert.Equal(t, 1, rec.started[0].Call)
	assert.Equal(t, []string{`"Hello"`, `"Hello!"`, `"Hello!"`}, rec.results)
}

// ordering is an Observer that keeps the order of the workflow-side
// events: "planned <type> <seq>", "ended <type> <seq>", "charged <call>".
type ordering struct {
	observe.Base
	mu  sync.Mutex
	log []string
}

func (o *ordering) add(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log = append(o.log, s)
}

func (o *ordering) CallPlanned(_ workflow.Context, c observe.Call) {
	o.add(fmt.Sprintf("planned %s %d", c.ActivityType, c.Seq))
}

func (o *ordering) CallEnded(_ workflow.Context, c observe.Call, _ observe.CallEnd) {
	o.add(fmt.Sprintf("ended %s %d", c.ActivityType, c.Seq))
}

func (o *ordering) Charged(_ workflow.Context, c observe.Charge) {
	o.add("charged " + c.Call)
}

// TurnsWorkflow makes three turns, each a call that the next waits on,
// the last two under a budget; then two calls at once.
func TurnsWorkflow(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteActivity(ctx, "Turn").Get(ctx, nil); err != nil {
		return err
	}
	budgeted, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: 5})
	if err != nil {
		return err
	}
	for range 2 {
		if err := workflow.ExecuteActivity(budgeted, "Turn").Get(ctx, nil); err != nil {
			return err
		}
	}
	a, b := workflow.ExecuteActivity(ctx, "Turn"), workflow.ExecuteActivity(ctx, "Turn")
	if err := a.Get(ctx, nil); err != nil {
		return err
	}
	return b.Get(ctx, nil)
}

// TestObserverToldACallsEndBeforeTheNextTurn: a call's end reaches the
// observer before the next call's charge and plan, though the coroutine
// that waits on its future runs after the workflow code that waited on it.
func TestObserverToldACallsEndBeforeTheNextTurn(t *testing.T) {
	t.Parallel()
	rec := &ordering{}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{Observer: rec,
		Activities: map[string]temporaladk.Declaration{"Turn": {Class: temporaladk.Model}}})
	require.NoError(t, err)
	env.RegisterWorkflow(TurnsWorkflow)
	env.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "Turn"})
	env.ExecuteWorkflow(TurnsWorkflow)
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, rec.log, 12)
	assert.Equal(t, []string{
		"planned Turn 1", "ended Turn 1",
		"charged call-1", "planned Turn 2", "ended Turn 2",
		"charged call-2", "planned Turn 3", "ended Turn 3",
		"planned Turn 4", "planned Turn 5",
	}, rec.log[:10])
	// The two calls at once end in the order their activities completed,
	// which the environment decides: each once, after both were planned.
	assert.ElementsMatch(t, []string{"ended Turn 4", "ended Turn 5"}, rec.log[10:])
}
