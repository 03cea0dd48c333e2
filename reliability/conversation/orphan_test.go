package conversation_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// OrphanRequest configures AbandoningParent and its child.
type OrphanRequest struct {
	// Family is the parent's workflow ID.
	Family string
	// Continued is true in the run the parent continued as new.
	Continued bool
	// ParentRunID is the parent run the child was started by (set by the
	// child for its call).
	ParentRunID string
}

// AbandoningParent starts a child under its budget with ParentClosePolicy
// abandon, and continues as new once the child's first attempt is charged:
// the child outlives the run that holds its budget.
func AbandoningParent(ctx workflow.Context, req OrphanRequest) error {
	if req.Continued {
		return nil
	}
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "family", Attempts: 10})
	if err != nil {
		return err
	}
	child := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        req.Family + "-orphan",
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
	}), Orphan, req)
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return attemptsOf(ctx).Spent >= 1 }); err != nil {
		return err
	}
	return conversation.ContinueAsNew(ctx, AbandoningParent, OrphanRequest{Family: req.Family, Continued: true})
}

// Orphan makes one RETRIEVAL call and returns how it ended: the type of its
// error, or "" for none.
func Orphan(ctx workflow.Context, req OrphanRequest) (string, error) {
	req.ParentRunID = workflow.GetInfo(ctx).ParentWorkflowExecution.RunID
	ctx = temporaladk.WithClass(ctx, temporaladk.Retrieval)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	return typeOf(workflow.ExecuteActivity(ctx, OrphanCall, req).Get(ctx, nil)), nil
}

// OrphanCall waits until the parent run that started its workflow has
// closed, then fails retryably: its retry's charge goes to a run that can
// take none.
func OrphanCall(ctx context.Context, req OrphanRequest) error {
	ran.add(activity.GetInfo(ctx).WorkflowExecution.ID)
	for {
		d, err := activity.GetClient(ctx).DescribeWorkflowExecution(ctx, req.Family, req.ParentRunID)
		if err != nil {
			return err
		}
		if d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: http.StatusServiceUnavailable, Message: "Service Unavailable"}
}

// TestChildOutlivingItsBudgetsRunFailsTyped starts a child under a budget,
// abandons it, and continues the parent as new: the child's next charge goes
// to a closed run, and its call ends at once, non-retryably, with
// TemporaladkBudgetClosed, its retry never run.
func TestChildOutlivingItsBudgetsRunFailsTyped(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, _ := started(t, c)
	ctx := timeout(t, time.Minute)

	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, AbandoningParent, OrphanRequest{Family: id})
	require.NoError(t, err)
	require.NoError(t, wr.Get(ctx, nil))
	var ended string
	require.NoError(t, c.GetWorkflow(ctx, id+"-orphan", "").Get(ctx, &ended))

	child := readHistory(ctx, t, c, id+"-orphan", "")
	var failures []string
	for _, e := range child.events {
		if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
			failures = append(failures, a.GetFailure().GetApplicationFailureInfo().GetType())
			assert.True(t, a.GetFailure().GetApplicationFailureInfo().GetNonRetryable(), "the failure is non-retryable")
		}
	}
	attempts, _ := startedAttempts(child)
	t.Logf("figure: child call ended %q; attempts recorded %d, run %d; failures %v", ended, attempts, ran.of(id+"-orphan"), failures)
	assert.Equal(t, temporaladk.TypeBudgetClosed, ended)
	assert.Equal(t, []string{temporaladk.TypeBudgetClosed}, failures, "the server recorded the typed failure")
	assert.Equal(t, 1, attempts, "the retry was never started")
	assert.Equal(t, 1, ran.of(id+"-orphan"))
}
