package payloads_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

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
	c, q, res, runs := runChain(t, Agent, AgentInput{Turns: turns, ToolBytes: 50_000, HistoryByteLimit: limit})
	require.Equal(t, turns, res.Turns)
	for i, r := range runs {
		desc, err := c.DescribeWorkflowExecution(ctx, q, r.runID)
		require.NoError(t, err)
		require.LessOrEqual(t, desc.GetWorkflowExecutionInfo().GetHistorySizeBytes(), int64(limit), "run %d", i+1)
	}
	t.Logf("%d turns in %d runs of at most %d history bytes each", turns, len(runs), limit)
	require.Greater(t, len(runs), 2)

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

// LogAgent carries its conversation.Log in its input across continue-as-new:
// every run's model calls are handed the Log's head (a few hundred bytes,
// however long the conversation), and the last model call reads the whole
// conversation, the messages of every run before it.
func TestLogAgentCarriesItsConversationAcrossContinueAsNew(t *testing.T) {
	t.Parallel()
	const turns, toolBytes, limit = 12, 50_000, 10_000
	ctx := testsuite.Context(t)
	_, _, res, runs := runChain(t, LogAgent, AgentInput{Turns: turns, ToolBytes: toolBytes, HistoryByteLimit: limit})
	require.Equal(t, turns, res.Turns)

	// The conversation the last model call must have read.
	conv := []Message{systemPrompt}
	var want string
	for turn := range turns {
		out, err := Search(ctx, turn, toolBytes)
		require.NoError(t, err)
		conv = append(conv, Message{Role: "tool", Content: out})
		want = reply(conv)
		conv = append(conv, Message{Role: "assistant", Content: want})
	}
	require.Equal(t, want, res.Reply)

	for i, r := range runs {
		for _, a := range testsuite.ScheduledActivities(r.history.GetEvents(), "LogModel") {
			require.Less(t, a.GetInput().Size(), 1024, "run %d hands its model %d bytes", i+1, a.GetInput().Size())
		}
	}
	t.Logf("%d turns in %d runs", turns, len(runs))
	require.Greater(t, len(runs), 1)
}

// chainRun is one run of a chain that continued as new.
type chainRun struct {
	runID   string
	history *historypb.History
}

// runChain runs agent with in on a store of its own until the chain of
// runs it continues as new ends, and returns the client, the task queue
// (also the workflow ID), the last run's result and the runs, last first.
func runChain(t *testing.T, agent func(workflow.Context, AgentInput) (AgentResult, error), in AgentInput) (client.Client, string, AgentResult, []chainRun) {
	t.Helper()
	ctx := testsuite.Context(t)
	store, _ := newDirStore(t, t.TempDir(), 0)
	c := dial(t, store)
	q := queue("chain")
	startWorker(t, c, q)
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), agent, in)
	require.NoError(t, err)
	var res AgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &res))
	// The run handle follows the chain: its run ID is the last run's; walk
	// back to the first.
	var runs []chainRun
	for runID := run.GetRunID(); runID != ""; {
		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), runID)
		require.NoError(t, err)
		runs = append(runs, chainRun{runID: runID, history: h})
		runID = h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	return c, run.GetID(), res, runs
}
