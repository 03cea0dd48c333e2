package testsuite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/testsuite"
)

// familyWorkflow names its child after its own workflow ID, as a parent of
// sub-agents does: a replay under another ID would start another child.
func familyWorkflow(ctx workflow.Context) (string, error) {
	id := workflow.GetInfo(ctx).WorkflowExecution.ID + "/child"
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id})
	var got string
	err := workflow.ExecuteChildWorkflow(ctx, familyChild).Get(ctx, &got)
	return got, err
}

func familyChild(ctx workflow.Context) (string, error) {
	return workflow.GetInfo(ctx).WorkflowExecution.ID, nil
}

// TestReplayUsesTheRecordedWorkflowID records a workflow whose child's ID is
// made from its own, and replays it: ReplayFile replays under the workflow ID
// the history was recorded with (its first event's), so the child's ID is
// the recorded one and the replay is clean.
func TestReplayUsesTheRecordedWorkflowID(t *testing.T) {
	server := testsuite.DevServerFor(t)
	c := server.Client()
	queue := "family-" + t.Name()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(familyWorkflow)
	w.RegisterWorkflow(familyChild)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "family-" + t.Name(), TaskQueue: queue}, familyWorkflow)
	require.NoError(t, err)
	var got string
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, run.GetID()+"/child", got)

	path := filepath.Join(t.TempDir(), "family.json")
	require.NoError(t, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
	require.NoError(t, testsuite.ReplayFile(path, testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: familyWorkflow}, {Func: familyChild}}}),
		"the child's ID is made from the recorded workflow ID")
}
