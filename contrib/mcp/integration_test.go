package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/mcp"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// ToolCall is one call ToolsWorkflow makes.
type ToolCall struct {
	Tool string `json:"tool"`
	ID   string `json:"id"`
	Fail int    `json:"fail"`
	Key  string `json:"key,omitempty"`
}

// ToolsWorkflow lists the server's tools through the activity, then calls
// each tool asked for and returns "ok" or the kit error type of each call.
func ToolsWorkflow(ctx workflow.Context, server string, calls []ToolCall) ([]string, error) {
	var listed []mcp.Tool
	if err := workflow.ExecuteActivity(ctx, mcp.ListActivity(server)).Get(ctx, &listed); err != nil {
		return nil, err
	}
	activityOf := make(map[string]string, len(listed))
	for _, tool := range listed {
		activityOf[tool.Name] = tool.ActivityType
	}
	outcomes := make([]string, 0, len(calls))
	for _, c := range calls {
		callCtx := ctx
		if c.Key != "" {
			callCtx = temporaladk.WithIdempotencyKey(ctx, c.Key)
		}
		err := workflow.ExecuteActivity(callCtx, activityOf[c.Tool], map[string]any{"id": c.ID, "fail": c.Fail}).Get(ctx, nil)
		if kit, ok := temporaladk.AsError(err); ok {
			outcomes = append(outcomes, kit.Type())
		} else if err != nil {
			outcomes = append(outcomes, err.Error())
		} else {
			outcomes = append(outcomes, "ok")
		}
	}
	return outcomes, nil
}

const toolAttempts = 3

func kitOptions(t *testing.T, tools *mcp.Tools) interceptors.Options {
	t.Helper()
	tool, err := policies.Default(temporaladk.Tool)
	require.NoError(t, err)
	tool.Retry.MaxAttempts = toolAttempts
	tool.Retry.InitialInterval = 10 * time.Millisecond
	tool.Retry.MaxInterval = 50 * time.Millisecond
	opts := interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: tool}}
	require.NoError(t, tools.Declare(&opts))
	return opts
}

func TestIntegrationAttemptsFollowAnnotations(t *testing.T) {
	t.Parallel()
	c := testsuite.DevServerFor(t).Client()
	f := newFixture(t)
	tools := newTools(t, f, mcp.Options{Timeouts: map[string]time.Duration{"lookup": 20 * time.Second}})
	opts := kitOptions(t, tools)
	plugin, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	w := worker.New(c, t.Name(), worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(ToolsWorkflow)
	tools.Register(w)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	calls := []ToolCall{
		{Tool: "lookup", ID: "r1", Fail: 9},                 // read-only, failing: the policy's attempts
		{Tool: "upsert", ID: "u1", Fail: 9},                 // idempotent: the policy's attempts
		{Tool: "charge", ID: "c1", Fail: 9},                 // destructive: one
		{Tool: "note", ID: "n1", Fail: 9},                   // unannotated: one
		{Tool: "append", ID: "a1", Fail: 9},                 // additive, not idempotent: one
		{Tool: "charge", ID: "c2", Fail: 9, Key: "order-7"}, // destructive with a key: the policy's attempts
		{Tool: "lookup", ID: "r2", Fail: 1},                 // read-only, one transient failure: succeeds on the second
	}
	wantAttempts := []int32{toolAttempts, toolAttempts, 1, 1, 1, toolAttempts, 2}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: t.Name(), TaskQueue: t.Name()}, ToolsWorkflow, "fixture", calls)
	require.NoError(t, err)
	var outcomes []string
	require.NoError(t, run.Get(ctx, &outcomes))
	failed := temporaladk.TypeToolFailure
	assert.Equal(t, []string{failed, failed, failed, failed, failed, failed, "ok"}, outcomes)

	hist, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	types, attempts, startToClose := activityAttempts(hist.GetEvents())
	require.Len(t, types, len(calls)+1, "one activity per call, and the list")
	assert.Equal(t, mcp.ListActivity("fixture"), types[0], "the list came from an activity")
	assert.Equal(t, wantAttempts, attempts[1:], "attempts as the server recorded them (ActivityTaskStarted)")
	for i, call := range calls {
		assert.Equal(t, int(wantAttempts[i]), f.callsOf(call.Tool, call.ID), "%s %s: executions at the MCP server", call.Tool, call.ID)
	}
	keys := f.keysOf("charge")
	require.Len(t, keys, toolAttempts, "every attempt of the keyed call carried its key")
	for _, k := range keys {
		assert.Equal(t, keys[0], k, "one key for every attempt of one call")
		assert.NotEmpty(t, k)
	}
	assert.Equal(t, 20*time.Second, startToClose[1], "lookup's declared timeout is its StartToClose")
	assert.Equal(t, toolPolicyTimeout(t), startToClose[3], "charge declared none: the TOOL policy's")

	// The list was fetched twice: by New at worker start and by the
	// activity. Replaying the recorded history fetches it never.
	assert.Equal(t, int64(2), f.lists.Load())
	path := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
	replayPlugin, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayFile(path, testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{{Func: ToolsWorkflow}},
		Plugins:   []worker.Plugin{replayPlugin},
	}))
	assert.Equal(t, int64(2), f.lists.Load(), "the replay did not list the tools")
}

func toolPolicyTimeout(t *testing.T) time.Duration {
	p, err := policies.Default(temporaladk.Tool)
	require.NoError(t, err)
	return p.StartToClose
}

// activityAttempts returns, per scheduled activity in order, its type, the
// attempt its ActivityTaskStarted event records, and its StartToClose.
func activityAttempts(events []*historypb.HistoryEvent) (types []string, attempts []int32, startToClose []time.Duration) {
	index := map[int64]int{}
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			index[e.GetEventId()] = len(types)
			types = append(types, a.GetActivityType().GetName())
			attempts = append(attempts, 0)
			startToClose = append(startToClose, a.GetStartToCloseTimeout().AsDuration())
		}
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			attempts[index[a.GetScheduledEventId()]] = a.GetAttempt()
		}
	}
	return types, attempts, startToClose
}
