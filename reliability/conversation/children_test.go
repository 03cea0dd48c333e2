package conversation_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// runningSignal is the signal SubAgentCall sends its parent's parent when
// the attempt it blocks in is running.
const runningSignal = "sub-agent-running"

// backoffSignal is the signal the test sends Parent once the server holds
// the waiting child's call in its backoff: its first attempt's failure
// recorded, its retry scheduled and not started.
const backoffSignal = "sub-agent-in-backoff"

// SubAgentRequest configures SubAgent.
type SubAgentRequest struct {
	// Family is the workflow ID of the run that started the sub-agent,
	// which the blocking attempt signals.
	Family string
	// BlockFrom is the attempt from which SubAgentCall signals Family and
	// waits to be cancelled instead of failing; 0 for never.
	BlockFrom int
	// RetryAfter, when set, makes the first attempt fail with a rate limit
	// asking for this wait: the retry is charged at once and then waits.
	RetryAfter time.Duration
}

// SubAgentCall is a MODEL call that fails retryably, up to attempt
// BlockFrom, which tells the family it is running and then runs until it is
// cancelled (the kit heartbeats it, which carries the cancellation).
func SubAgentCall(ctx context.Context, req SubAgentRequest) error {
	info := activity.GetInfo(ctx)
	ran.add(info.WorkflowExecution.ID)
	if req.BlockFrom > 0 && int(info.Attempt) >= req.BlockFrom {
		if err := activity.GetClient(ctx).SignalWorkflow(ctx, req.Family, "", runningSignal, int(info.Attempt)); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	}
	if req.RetryAfter > 0 {
		return &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: req.RetryAfter, Message: "slow down"}
	}
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: http.StatusServiceUnavailable, Message: "Service Unavailable"}
}

// SubAgent is a child workflow that makes one SubAgentCall and returns its
// error. It waits for a cancelled call to end, so that it closes after its
// last attempt.
func SubAgent(ctx workflow.Context, req SubAgentRequest) error {
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, WaitForCancellation: true})
	return workflow.ExecuteActivity(ctx, SubAgentCall, req).Get(ctx, nil)
}

// ParentResult is what the parent's budget said at each step, and how its
// children ended.
type ParentResult struct {
	Limit int
	// SpentAfterCancel and RemainingAfterCancel are the budget once the
	// cancelled child has closed.
	SpentAfterCancel, RemainingAfterCancel int
	// BlockedAttempt is the attempt of the cancelled child's call that was
	// running when the parent cancelled it.
	BlockedAttempt int
	// CancelledError is the cancelled child's error type.
	CancelledError string
	// SpentAfterWaiting and RemainingAfterWaiting are the budget once the
	// child cancelled while its call waited for a charged retry has closed.
	SpentAfterWaiting, RemainingAfterWaiting int
	// Spent and Remaining are the budget at the end.
	Spent, Remaining int
	// ChildErrors are the other two children's error types.
	ChildErrors []string
	// ChildIDs are the workflow IDs of the three children, the cancelled
	// one first.
	ChildIDs []string
}

// ParentRequest configures Parent.
type ParentRequest struct {
	// Limit is the ceiling of the attempts budget "family".
	Limit int
	// Family is the parent's workflow ID, which names its children and
	// which the blocking attempt signals.
	Family string
}

// Parent runs four sub-agents under its attempts budget "family" of Limit
// attempts: one it cancels while its call is retrying (once the call's third
// attempt runs); one it cancels while its call waits for a retry the kit has
// already charged (a 50s Retry-After, cancelled once the budget shows both
// attempts charged); then two at once whose calls fail retryably until the
// budget refuses them.
func Parent(ctx workflow.Context, req ParentRequest) (ParentResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "family", Attempts: req.Limit})
	if err != nil {
		return ParentResult{}, err
	}
	// spent and remaining read the budget "family" as it stands.
	spent := func() int { return int(attemptsOf(ctx).Spent) }
	remaining := func() int { return int(attemptsOf(ctx).Remaining) }
	id := req.Family
	out := ParentResult{Limit: int(attemptsOf(ctx).Limit)}
	childCtx := func(ctx workflow.Context, name string) workflow.Context {
		out.ChildIDs = append(out.ChildIDs, id+"-"+name)
		return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id + "-" + name, WaitForCancellation: true})
	}

	cancelCtx, cancel := workflow.WithCancel(ctx)
	cancelled := workflow.ExecuteChildWorkflow(childCtx(cancelCtx, "cancelled"), SubAgent, SubAgentRequest{Family: id, BlockFrom: 3})
	workflow.GetSignalChannel(ctx, runningSignal).Receive(ctx, &out.BlockedAttempt)
	cancel()
	if err := cancelled.Get(ctx, nil); temporal.IsCanceledError(err) {
		out.CancelledError = "canceled"
	} else {
		out.CancelledError = typeOf(err)
	}
	out.SpentAfterCancel, out.RemainingAfterCancel = spent(), remaining()

	waitCtx, cancelWaiting := workflow.WithCancel(ctx)
	waiting := workflow.ExecuteChildWorkflow(childCtx(waitCtx, "waiting"), SubAgent, SubAgentRequest{Family: id, RetryAfter: 50 * time.Second})
	charged := out.SpentAfterCancel + 2
	if err := workflow.Await(ctx, func() bool { return spent() >= charged }); err != nil {
		return out, err
	}
	// The retry is charged before the first attempt's failure is returned,
	// so the failure may not have reached the server yet: a cancellation
	// then would find the attempt running, not in its backoff. The test
	// says when the server holds the retry.
	workflow.GetSignalChannel(ctx, backoffSignal).Receive(ctx, nil)
	cancelWaiting()
	_ = waiting.Get(ctx, nil)
	out.SpentAfterWaiting, out.RemainingAfterWaiting = spent(), remaining()

	a := workflow.ExecuteChildWorkflow(childCtx(ctx, "a"), SubAgent, SubAgentRequest{Family: id})
	b := workflow.ExecuteChildWorkflow(childCtx(ctx, "b"), SubAgent, SubAgentRequest{Family: id})
	for _, f := range []workflow.ChildWorkflowFuture{a, b} {
		out.ChildErrors = append(out.ChildErrors, typeOf(f.Get(ctx, nil)))
	}
	out.Spent, out.Remaining = spent(), remaining()
	return out, nil
}

// TestChildrenChargedToTheirParent runs Parent under an attempt budget of 20: the
// attempts the server recorded across the parent's and its three children's
// histories are at most 20 and what the parent's budget spent; the two
// children whose calls retry until refused end with the kit's
// BudgetExceededError; the child cancelled while its call retried leaves
// the budget with 20 less the attempts it made, nothing lost with it; the
// child cancelled while its call waited for a retry already charged leaves
// that one charge spent, and no more (waste, never an overrun, as the
// conversation package doc says); every history replays.
func TestChildrenChargedToTheirParent(t *testing.T) {
	began := time.Now()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, 2*time.Minute)

	const limit = 20
	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, Parent, ParentRequest{Limit: limit, Family: id})
	require.NoError(t, err)
	firstRun := wr.GetRunID() // Get follows the chain to its last run
	inBackoff(ctx, t, c, id+"-waiting", id)
	var result ParentResult
	require.NoError(t, wr.Get(ctx, &result))
	require.Len(t, result.ChildIDs, 4)

	parent := readHistory(ctx, t, c, id, firstRun)
	all := []run{parent}
	var childAttempts []int
	for _, childID := range result.ChildIDs {
		r := chain(ctx, t, c, childID, "")
		all = append(all, r...)
		n, _ := startedAttempts(r...)
		childAttempts = append(childAttempts, n)
	}
	total, _ := startedAttempts(all...)
	cancelledRun := all[1]
	closed := cancelledRun.events[len(cancelledRun.events)-1].GetEventType()
	waitingRan := ran.of(result.ChildIDs[1])
	waste := result.SpentAfterWaiting - result.SpentAfterCancel - waitingRan
	t.Logf("figure: limit=%d attempts recorded parent+children=%d (children %v) attempts run in-process=%v budget spent=%d remaining=%d; cancelled child: blocked in attempt %d, attempts recorded %d, closed %v, error %q, budget after it spent=%d remaining=%d; child cancelled waiting for a charged retry: attempts run %d, budget after it spent=%d remaining=%d (charged, never run: %d); other children's errors %v wall=%v",
		limit, total, childAttempts, []int{ran.of(result.ChildIDs[0]), waitingRan, ran.of(result.ChildIDs[2]), ran.of(result.ChildIDs[3])}, result.Spent, result.Remaining,
		result.BlockedAttempt, childAttempts[0], closed, result.CancelledError, result.SpentAfterCancel, result.RemainingAfterCancel,
		waitingRan, result.SpentAfterWaiting, result.RemainingAfterWaiting, waste, result.ChildErrors, time.Since(began).Round(time.Millisecond))

	// A call cancelled in its backoff has no ActivityTaskStarted in history
	// (the server writes the last attempt's only, and the retry never
	// started): its first attempt is counted where it ran.
	assert.Equal(t, 0, childAttempts[1], "the history of a call cancelled in its backoff holds no started attempt")
	total += waitingRan
	assert.LessOrEqual(t, total, limit, "parent and children together stay within the ceiling")
	assert.Equal(t, 1, waitingRan, "the child cancelled while it waited ran its first attempt only")
	assert.Equal(t, 1, waste, "the retry charged when the first attempt failed, and never run, is the one attempt a call cancelled between attempts leaves spent (conversation package doc)")
	assert.Equal(t, result.Spent, total+waste, "the parent's budget spent what the children attempted, and that charged retry")
	assert.Equal(t, limit, result.Spent, "demand exceeds the ceiling: it is spent to the last attempt")
	assert.Equal(t, []string{temporaladk.TypeBudgetExceeded, temporaladk.TypeBudgetExceeded}, result.ChildErrors, "the children's refusals are the kit's BudgetExceededError")
	assert.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, closed, "the cancelled child closed cancelled")
	assert.Equal(t, result.BlockedAttempt, childAttempts[0], "the cancelled child made the attempts up to the one it was cancelled in")
	assert.Equal(t, childAttempts[0], ran.of(result.ChildIDs[0]), "the attempts recorded are the attempts run")
	assert.Equal(t, limit-childAttempts[0], result.RemainingAfterCancel, "nothing of the budget is lost with the cancelled child")
	assert.Equal(t, childAttempts[0], result.SpentAfterCancel)
	replays(ctx, t, c, plugin, all...)
}

// inBackoff waits until the server holds the call of child workflowID in
// its backoff (its one pending activity at attempt 2, scheduled, not
// started), then signals parent with backoffSignal.
func inBackoff(ctx context.Context, t *testing.T, c client.Client, workflowID, parent string) {
	t.Helper()
	for {
		desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
		var notFound *serviceerror.NotFound
		switch {
		case errors.As(err, &notFound):
			// The parent has not started the child yet.
		case err != nil:
			require.NoError(t, err)
		default:
			if pa := desc.GetPendingActivities(); len(pa) == 1 && pa[0].GetAttempt() == 2 && pa[0].GetState() == enumspb.PENDING_ACTIVITY_STATE_SCHEDULED {
				require.NoError(t, c.SignalWorkflow(ctx, parent, "", backoffSignal, nil))
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the call of %s was not seen in its backoff: %v", workflowID, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
