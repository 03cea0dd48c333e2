package payloads_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/testsuite"
)

// With the store, a conversation continues as new when its history reaches
// the byte limit conversation.WithHistoryByteLimit sets, carrying the whole
// conversation (a claim) into the next run, past the turn where the plain
// SDK cannot (BadContinueAsNewAttributes). Every run stays under the limit.
func TestContinueAsNewByHistoryBytesCarriesTheConversation(t *testing.T) {
	t.Parallel()
	const turns, limit = 100, 60_000
	ctx := testsuite.Context(t)
	store, _ := newDirStore(t, t.TempDir(), 0)
	c := dial(t, store)
	q := queue("chain")
	startWorker(t, c, q)
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), Agent, AgentInput{Turns: turns, ToolBytes: 50_000, HistoryByteLimit: limit})
	require.NoError(t, err)
	var res AgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &res))
	require.Equal(t, turns, res.Turns)

	// The run handle follows the chain: its run ID is the last run's; walk
	// back to the first.
	runs, runID := 0, run.GetRunID()
	for runID != "" {
		runs++
		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), runID)
		require.NoError(t, err)
		desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), runID)
		require.NoError(t, err)
		require.LessOrEqual(t, desc.GetWorkflowExecutionInfo().GetHistorySizeBytes(), int64(limit), "run %d", runs)
		runID = h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	t.Logf("%d turns in %d runs of at most %d history bytes each", turns, runs, limit)
	require.Greater(t, runs, 2)

	// A limit below 1 is the workflow's error, named.
	bad, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-bad"), Agent, AgentInput{Turns: 1, ToolBytes: 10, HistoryByteLimit: -1})
	require.NoError(t, err)
	err = testsuite.WorkflowResult(ctx, t, c, bad, nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Contains(t, app.Error(), "WithHistoryByteLimit: limit is -1")
	desc, err := c.DescribeWorkflowExecution(ctx, bad.GetID(), bad.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, desc.GetWorkflowExecutionInfo().GetStatus())
}
