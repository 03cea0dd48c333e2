package conversation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// FamilyResult is what Grandparent's budget and its family's calls said.
type FamilyResult struct {
	// Spent is the root budget's spent at the end.
	Spent int
	// ChildError is how the child's own call ended; GrandchildError how the
	// grandchild's did.
	ChildError, GrandchildError string
	// ChildOwnSpent is what the child's own budget spent.
	ChildOwnSpent int
}

// Grandparent starts, under an attempts budget "root" of 20, a child that
// has a budget of its own of 2 attempts and that starts a grandchild.
func Grandparent(ctx workflow.Context, family string) (FamilyResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "root", Attempts: 20})
	if err != nil {
		return FamilyResult{}, err
	}
	var out FamilyResult
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: family + "-child"})
	if err := workflow.ExecuteChildWorkflow(ctx, OwnBudgetChild, family).Get(ctx, &out); err != nil {
		return out, err
	}
	out.Spent = int(attemptsOf(ctx).Spent)
	return out, nil
}

// OwnBudgetChild makes a call under its own attempts budget "own" of 2 (it
// fails retryably every time, so its own budget refuses the third attempt),
// then starts a grandchild whose call fails retryably 3 times under no
// budget of its own.
func OwnBudgetChild(ctx workflow.Context, family string) (FamilyResult, error) {
	own, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "own", Attempts: 2})
	if err != nil {
		return FamilyResult{}, err
	}
	var out FamilyResult
	call := workflow.WithActivityOptions(temporaladk.WithClass(own, temporaladk.Model), workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	out.ChildError = typeOf(workflow.ExecuteActivity(call, SubAgentCall, SubAgentRequest{Family: family}).Get(ctx, nil))
	out.ChildOwnSpent = int(attemptsOf(own).Spent)
	gctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: family + "-grandchild"})
	var grandchild error
	if err := workflow.ExecuteChildWorkflow(gctx, SubAgent, SubAgentRequest{Family: family}).Get(ctx, nil); err != nil {
		grandchild = err
	}
	out.GrandchildError = typeOf(grandchild)
	return out, nil
}

// TestFamilyChargedAtItsRoot shows the two rules of a family's budgets: a
// child's own budget covers its own calls besides the root's (its refusal
// ends the call, and every attempt it made is charged at the root too), and
// a grandchild is charged at the root; every attempt of the family is in the
// root's spent.
func TestFamilyChargedAtItsRoot(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, 2*time.Minute)

	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, Grandparent, id)
	require.NoError(t, err)
	first := wr.GetRunID()
	var got FamilyResult
	require.NoError(t, wr.Get(ctx, &got))

	all := []run{readHistory(ctx, t, c, id, first)}
	all = append(all, chain(ctx, t, c, id+"-child", "")...)
	grandchild := chain(ctx, t, c, id+"-grandchild", "")
	all = append(all, grandchild...)
	total, _ := startedAttempts(all...)
	grandchildAttempts, _ := startedAttempts(grandchild...)
	t.Logf("figure: root spent=%d attempts recorded=%d; child's own budget spent=%d, its call ended %q; grandchild attempts=%d, ended %q",
		got.Spent, total, got.ChildOwnSpent, got.ChildError, grandchildAttempts, got.GrandchildError)

	assert.Equal(t, temporaladk.TypeBudgetExceeded, got.ChildError, "the child's own budget refuses its call's third attempt")
	assert.Equal(t, 2, got.ChildOwnSpent)
	assert.Equal(t, total, got.Spent, "every attempt of the family, the child's and the grandchild's, is charged at the root")
	assert.Positive(t, grandchildAttempts, "the grandchild made attempts, charged at the root")
	assert.Equal(t, temporaladk.TypeBudgetExceeded, got.GrandchildError, "the grandchild retries until the root refuses")
	assert.Equal(t, 20, got.Spent, "the root's ceiling is spent to the last attempt, not past it")
	replays(ctx, t, c, plugin, all...)
}
