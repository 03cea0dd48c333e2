package testsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestContextEndsAMinuteBeforeTheBinarysDeadline(t *testing.T) {
	ctx := testsuite.Context(t)
	got, hasDeadline := ctx.Deadline()
	want, binaryHas := t.Deadline()
	require.Equal(t, binaryHas, hasDeadline)
	if binaryHas {
		require.Equal(t, want.Add(-time.Minute), got)
	}
	require.NoError(t, ctx.Err())
}

// A run's result and error come back as run.Get gives them; a run that does
// not end before ctx does fails the test with what its workflow tasks did.
func TestWorkflowResult(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx := testsuite.Context(t)
	q := "workflow-result-" + t.Name()
	w := worker.New(c, q, worker.Options{})
	w.RegisterWorkflowWithOptions(func(_ workflow.Context, s string) (string, error) { return "hello " + s, nil }, workflow.RegisterOptions{Name: "Hello"})
	w.RegisterWorkflowWithOptions(func(workflow.Context) error {
		return temporal.NewNonRetryableApplicationError("no", "Refused", nil)
	}, workflow.RegisterOptions{Name: "Refuse"})
	w.RegisterWorkflowWithOptions(func(workflow.Context) error { panic("this workflow task never completes") }, workflow.RegisterOptions{Name: "Stuck"})
	require.NoError(t, w.Start())
	defer w.Stop()
	start := func(name string) client.WorkflowRun {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: q + "-" + name, TaskQueue: q}, name, "world")
		require.NoError(t, err)
		return run
	}

	var out string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, start("Hello"), &out))
	require.Equal(t, "hello world", out)
	require.ErrorContains(t, testsuite.WorkflowResult(ctx, t, c, start("Refuse"), nil), "no")

	stuck := start("Stuck")
	// Once its first workflow task has failed (the history, long-polled),
	// the wait ends, as a deadline would end it.
	it := c.GetWorkflowHistory(ctx, stuck.GetID(), stuck.GetRunID(), true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if e.GetWorkflowTaskFailedEventAttributes() != nil {
			break
		}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	rec := &recordingTB{}
	require.Error(t, testsuite.WorkflowResult(ended, rec, c, stuck, nil))
	msg := rec.reported()
	t.Log(msg)
	require.Contains(t, msg, "workflow "+stuck.GetID()+" was still open when the wait ended")
	require.Contains(t, msg, "1 failed (the last: \"this workflow task never completes\")")
	require.Contains(t, msg, "the pending workflow task: ")
	require.NotContains(t, msg, "the pending workflow task: none")
	require.NoError(t, c.TerminateWorkflow(ctx, stuck.GetID(), stuck.GetRunID(), "the test is over"))

	for name, tc := range map[string]struct {
		ctx  context.Context
		c    client.Client
		run  client.WorkflowRun
		want string
	}{
		"nil ctx":    {nil, c, stuck, "ctx is nil"},
		"nil client": {ctx, nil, stuck, "c is nil"},
		"nil run":    {ctx, c, nil, "run is nil"},
	} {
		rec := &recordingTB{}
		require.ErrorContains(t, testsuite.WorkflowResult(tc.ctx, rec, tc.c, tc.run, nil), "testsuite: WorkflowResult: "+tc.want, name)
		require.Contains(t, rec.reported(), "testsuite: WorkflowResult: "+tc.want, name)
	}
	require.PanicsWithValue(t, "testsuite: WorkflowResult: t is nil: pass the test's *testing.T, which reports a run that does not end",
		func() { _ = testsuite.WorkflowResult(ctx, nil, c, stuck, nil) })
	require.PanicsWithValue(t, "testsuite: Context: t is nil: pass the test's *testing.T, whose deadline bounds the wait",
		func() { testsuite.Context(nil) })
}
