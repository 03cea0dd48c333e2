package testsuite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/testsuite"
)

// The workflow under test: two activities around a timer.
const orderWorkflowName = "OrderWorkflow"

func Reserve(_ context.Context, item string) (string, error) { return "reserved " + item, nil }
func Charge(_ context.Context, item string) (string, error)  { return "charged " + item, nil }

func orderWorkflow(ctx workflow.Context, item string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var reserved, charged string
	if err := workflow.ExecuteActivity(ctx, "Reserve", item).Get(ctx, &reserved); err != nil {
		return "", err
	}
	if err := workflow.Sleep(ctx, 500*time.Millisecond); err != nil {
		return "", err
	}
	if err := workflow.ExecuteActivity(ctx, "Charge", item).Get(ctx, &charged); err != nil {
		return "", err
	}
	return reserved + ", " + charged, nil
}

// orderWorkflowReordered is orderWorkflow after an incompatible change: it
// charges before it reserves.
func orderWorkflowReordered(ctx workflow.Context, item string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var reserved, charged string
	if err := workflow.ExecuteActivity(ctx, "Charge", item).Get(ctx, &charged); err != nil {
		return "", err
	}
	if err := workflow.Sleep(ctx, 500*time.Millisecond); err != nil {
		return "", err
	}
	if err := workflow.ExecuteActivity(ctx, "Reserve", item).Get(ctx, &reserved); err != nil {
		return "", err
	}
	return reserved + ", " + charged, nil
}

// orderWorkflowNoTimer dropped the timer.
func orderWorkflowNoTimer(ctx workflow.Context, item string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var reserved, charged string
	if err := workflow.ExecuteActivity(ctx, "Reserve", item).Get(ctx, &reserved); err != nil {
		return "", err
	}
	if err := workflow.ExecuteActivity(ctx, "Charge", item).Get(ctx, &charged); err != nil {
		return "", err
	}
	return reserved + ", " + charged, nil
}

// orderWorkflowStopsShort returns after reserving.
func orderWorkflowStopsShort(ctx workflow.Context, item string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var reserved string
	err := workflow.ExecuteActivity(ctx, "Reserve", item).Get(ctx, &reserved)
	return reserved, err
}

func replayAs(fn any) testsuite.ReplayOptions {
	return testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{
		{Func: fn, Options: workflow.RegisterOptions{Name: orderWorkflowName}},
	}}
}

// runOrder runs orderWorkflow on the shared dev server and returns its IDs.
func runOrder(t *testing.T, c client.Client) (workflowID, runID string) {
	t.Helper()
	taskQueue := "order-" + t.Name()
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(orderWorkflow, workflow.RegisterOptions{Name: orderWorkflowName})
	w.RegisterActivityWithOptions(Reserve, activity.RegisterOptions{Name: "Reserve"})
	w.RegisterActivityWithOptions(Charge, activity.RegisterOptions{Name: "Charge"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "order-" + t.Name(), TaskQueue: taskQueue}, orderWorkflowName, "book")
	require.NoError(t, err)
	var result string
	require.NoError(t, run.Get(ctx, &result))
	require.Equal(t, "reserved book, charged book", result)
	return run.GetID(), run.GetRunID()
}

var wantOrderCommands = []string{
	"ScheduleActivityTask(Reserve)",
	"StartTimer(500ms)",
	"ScheduleActivityTask(Charge)",
	"CompleteWorkflowExecution",
}

func TestRecordAndReplayOnDevServer(t *testing.T) {
	server := testsuite.DevServerFor(t)
	workflowID, runID := runOrder(t, server.Client())

	path := filepath.Join(t.TempDir(), "histories", "order.json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, testsuite.RecordHistory(ctx, server.Client(), workflowID, runID, path))
	// An empty run ID records the latest run: the same one here.
	latest := filepath.Join(t.TempDir(), "latest.json")
	require.NoError(t, testsuite.RecordHistory(ctx, server.Client(), workflowID, "", latest))

	// The same history, read back in memory.
	h, err := testsuite.WorkflowHistory(ctx, server.Client(), workflowID, runID)
	require.NoError(t, err)
	require.NotEmpty(t, h.GetEvents())
	assert.NotNil(t, h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes(), "the history starts with the workflow")
	assert.NotNil(t, h.GetEvents()[len(h.GetEvents())-1].GetWorkflowExecutionCompletedEventAttributes(), "and ends with its close")
	_, err = testsuite.WorkflowHistory(ctx, server.Client(), "", "")
	assert.ErrorContains(t, err, "workflowID is empty")

	for _, p := range []string{path, latest} {
		commands, err := testsuite.HistoryCommands(p)
		require.NoError(t, err)
		assert.Equal(t, wantOrderCommands, commands)
	}

	require.NoError(t, testsuite.ReplayFile(path, replayAs(orderWorkflow)), "the unchanged workflow must replay")

	err = testsuite.ReplayFile(path, replayAs(orderWorkflowReordered))
	var nd *testsuite.NondeterminismError
	require.ErrorAs(t, err, &nd)
	assert.Equal(t, orderWorkflowName, nd.Workflow)
	assert.Equal(t, path, nd.Source)
	assert.Equal(t, 0, nd.CommandIndex)
	assert.Equal(t, "ScheduleActivityTask(Reserve)", nd.Expected)
	assert.Equal(t, "ScheduleActivityTask(Charge)", nd.Actual)
	assert.Contains(t, err.Error(), "ScheduleActivityTask(Charge)")
	assert.Contains(t, err.Error(), path)
	assert.NotNil(t, errors.Unwrap(err), "the SDK's error must stay reachable")

	if os.Getenv("TEMPORALADK_RECORD_HISTORIES") == "1" {
		// Refreshes the committed history; run from the package directory.
		require.NoError(t, testsuite.RecordHistory(ctx, server.Client(), workflowID, runID, filepath.Join("testdata", "histories", "order_workflow.json")))
	}
}

func TestReplayCommittedHistories(t *testing.T) {
	t.Parallel()
	require.NoError(t, testsuite.ReplayDir(filepath.Join("testdata", "histories"), replayAs(orderWorkflow)))

	commands, err := testsuite.HistoryCommands(filepath.Join("testdata", "histories", "order_workflow.json"))
	require.NoError(t, err)
	require.Equal(t, wantOrderCommands, commands)

	tests := []struct {
		name         string
		workflow     any
		wantIndex    int
		wantExpected string
		wantActual   string
	}{
		{"activities reordered", orderWorkflowReordered, 0, "ScheduleActivityTask(Reserve)", "ScheduleActivityTask(Charge)"},
		// For these two the SDK only says which history command was not
		// reproduced, not what the code did instead.
		{"timer removed", orderWorkflowNoTimer, 1, "StartTimer(500ms)", ""},
		{"stops short", orderWorkflowStopsShort, 1, "StartTimer(500ms)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := testsuite.ReplayDir(filepath.Join("testdata", "histories"), replayAs(tt.workflow))
			var nd *testsuite.NondeterminismError
			require.ErrorAs(t, err, &nd, "got %v", err)
			t.Logf("%v", err)
			assert.Equal(t, orderWorkflowName, nd.Workflow)
			assert.Equal(t, filepath.Join("testdata", "histories", "order_workflow.json"), nd.Source)
			assert.Equal(t, tt.wantIndex, nd.CommandIndex)
			assert.Equal(t, tt.wantExpected, nd.Expected)
			assert.Equal(t, tt.wantActual, nd.Actual)
			assert.True(t, strings.Contains(err.Error(), tt.wantExpected+", replay "), "message %q must name %q", err, tt.wantExpected)
			assert.True(t, strings.Contains(err.Error(), tt.wantActual), "message %q must name %q", err, tt.wantActual)
		})
	}
}
