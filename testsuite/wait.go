package testsuite

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// reportTime is what Context leaves before the test binary's deadline for
// WorkflowResult to read a stuck run's history and fail its test.
const reportTime = time.Minute

// Context returns t's context, ended a minute before the test binary's
// -timeout (when it has one): a wait on a run that never ends then fails its
// own test, named and with what the run's history says (WorkflowResult),
// instead of the binary's timeout panic, whose last lines name no test.
// Without a -timeout (-timeout 0) it is t.Context(). A nil t panics, naming
// it: there is no test to report to.
func Context(t *testing.T) context.Context {
	if t == nil {
		panic("testsuite: Context: t is nil: pass the test's *testing.T, whose deadline bounds the wait")
	}
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline.Add(-reportTime))
	t.Cleanup(cancel)
	return ctx
}

// WorkflowResult waits for run's result into valuePtr (nil: none) and
// returns the run's error, as run.Get does. If ctx ends first, it fails t
// (Fatalf) with what the server holds of the run: its workflow task timeouts
// and failures, the last failure's message and the attempt of the task
// pending, which tell a workflow task that can never complete (a replay that
// outlasts its timeout, a worker without what the run needs) from a slow
// machine. A nil ctx, c or run fails t, naming it (and is the error it
// returns, should t.Fatalf return, as a recording testing.TB's does); a nil t
// panics, naming it: there is no test to report to.
func WorkflowResult(ctx context.Context, t testing.TB, c client.Client, run client.WorkflowRun, valuePtr any) error {
	if t == nil {
		panic("testsuite: WorkflowResult: t is nil: pass the test's *testing.T, which reports a run that does not end")
	}
	t.Helper()
	var bad string
	switch {
	case ctx == nil:
		bad = "ctx is nil: pass a context that bounds the wait (Context)"
	case c == nil:
		bad = "c is nil: pass the client that reads the run's history"
	case run == nil:
		bad = "run is nil"
	}
	if bad != "" {
		t.Fatalf("testsuite: WorkflowResult: %s", bad)
		return errors.New("testsuite: WorkflowResult: " + bad)
	}
	err := run.Get(ctx, valuePtr)
	if err == nil || ctx.Err() == nil {
		return err
	}
	// ctx has ended: the wait for a run still open, or the run itself just
	// before, whose error err then is.
	if open, tasks := workflowTasks(c, run.GetID(), run.GetRunID()); open {
		t.Fatalf("testsuite: workflow %s was still open when the wait ended (%v); %s", run.GetID(), err, tasks)
	}
	return err
}

// workflowTasks reports whether a run is still open and summarises its
// workflow tasks. It reads with a deadline of its own, since the caller's has
// passed; a run it cannot describe counts as open.
func workflowTasks(c client.Client, workflowID, runID string) (open bool, summary string) {
	ctx, cancel := context.WithTimeout(context.Background(), reportTime/2)
	defer cancel()
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, runID)
	if err != nil {
		return true, fmt.Sprintf("it could not be described: %v", err)
	}
	if desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, ""
	}
	var events, timedOut, failed int
	last := "none"
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return true, fmt.Sprintf("its history could not be read: %v", err)
		}
		events++
		if e.GetWorkflowTaskTimedOutEventAttributes() != nil {
			timedOut++
		}
		if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
			failed++
			last = fmt.Sprintf("%q", a.GetFailure().GetMessage())
		}
	}
	pending := "none"
	if p := desc.GetPendingWorkflowTask(); p != nil {
		pending = fmt.Sprintf("%v, attempt %d", p.GetState(), p.GetAttempt())
	}
	// The server records the first timeout or failure of a series of
	// attempts; the pending task's attempt counts the rest.
	return true, fmt.Sprintf("its history has %d events: %d workflow tasks timed out, %d failed (the last: %s); the pending workflow task: %s", events, timedOut, failed, last, pending)
}
