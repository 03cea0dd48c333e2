package approvals_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/testsuite"
)

// RefundPlan says how Refund's chain runs: Run is this run's number, from
// 1, and Last the run that no longer continues as new; Skip names a run
// that does not make the call, Hold one that makes it only once signalled
// "make" (0: none).
type RefundPlan struct {
	Run, Last, Skip, Hold int
}

// Refund asks for a refund with PairSeat (two signed approvals of ana, bo
// and cy) and, while the call waits, continues as new on the signal
// "continue" until run Last: each run makes the same call again, with the
// same arguments, but for Skip.
func Refund(ctx workflow.Context, plan RefundPlan) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	next := func() (string, error) {
		plan.Run++
		return "", conversation.ContinueAsNew(ctx, Refund, plan)
	}
	if plan.Run == plan.Skip {
		workflow.GetSignalChannel(ctx, "continue").Receive(ctx, nil)
		return next()
	}
	if plan.Run == plan.Hold {
		workflow.GetSignalChannel(ctx, "make").Receive(ctx, nil)
	}
	refund := workflow.ExecuteActivity(ctx, "PairSeat", Seat{"RF1", "1A"})
	again := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(refund, func(workflow.Future) {})
	if plan.Run < plan.Last {
		sel.AddReceive(workflow.GetSignalChannel(ctx, "continue"), func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, nil)
			again = true
		})
	}
	sel.Select(ctx)
	if again {
		return next()
	}
	var booked string
	err := refund.Get(ctx, &booked)
	return booked, err
}

// continued signals the run runID to continue as new and returns the ID of
// the run it continued as, once the server has closed it: a long poll on
// its close event.
func continued(t *testing.T, ctx context.Context, c client.Client, workflowID, runID string) string {
	t.Helper()
	require.NoError(t, c.SignalWorkflow(ctx, workflowID, runID, "continue", nil))
	it := c.GetWorkflowHistory(ctx, workflowID, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			return a.GetNewExecutionRunId()
		}
		require.Failf(t, "the run did not continue as new", "its close event is %s", ev.GetEventType())
	}
	require.FailNow(t, "the run's history has no close event")
	return ""
}

// runHistory reads the history of run runID of workflowID.
func runHistory(t *testing.T, ctx context.Context, c client.Client, workflowID, runID string) []*historypb.HistoryEvent {
	t.Helper()
	return history(t, ctx, c, c.GetWorkflow(ctx, workflowID, runID))
}

// startedIDs are the activity IDs of the activities a history scheduled
// that started.
func startedIDs(events []*historypb.HistoryEvent) []string {
	ids := map[int64]string{}
	var out []string
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			ids[e.GetEventId()] = a.GetActivityId()
		}
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			out = append(out, ids[a.GetScheduledEventId()])
		}
	}
	return out
}

// carriedInto decodes the approvals carried into the run whose history is
// events, from its start header.
func carriedInto(t *testing.T, events []*historypb.HistoryEvent) (wire.CarriedApprovals, bool) {
	t.Helper()
	p := events[0].GetWorkflowExecutionStartedEventAttributes().GetHeader().GetFields()[approval.CarriedHeaderKey]
	if p == nil {
		return wire.CarriedApprovals{}, false
	}
	var c wire.CarriedApprovals
	require.NoError(t, wire.Converter.FromPayload(p, &c))
	return c, true
}

// recordAndReplay records the chain of workflowID and replays every run
// with the kit, as a new worker would.
func recordAndReplay(t *testing.T, ctx context.Context, c client.Client, workflowID string) {
	t.Helper()
	plugin, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	files, err := testsuite.RecordAndReplay(ctx, c, workflowID, t.TempDir(), testsuite.ReplayOptions{
		Plugins: []worker.Plugin{plugin}, Workflows: []testsuite.ReplayWorkflow{{Func: Refund}},
	})
	require.NoError(t, err)
	require.Len(t, files, 3, "the three runs of the chain")
}

// TestPendingApprovalCrossesContinueAsNew: a refund that needs two signed
// approvals waits while its workflow continues as new twice; ana approves
// in the first run, and bo, with a decision signed on the first run's
// listing, in the third, before its code makes the call again. The tool
// runs once, in the third run, under the activity ID the approvals name;
// the Query of every run shows the same call, deadline and approvals so
// far; Audit lists the chain's runs with each decision; the chain replays.
func TestPendingApprovalCrossesContinueAsNew(t *testing.T) {
	e := startWorker(t)
	e.book.strict = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := e.start(ctx, Refund, RefundPlan{Run: 1, Last: 3, Hold: 3})
	id, run1 := first.GetID(), first.GetRunID()

	p1 := pending(t, ctx, e.c, id, 1)[0]
	require.Equal(t, run1, p1.RunID)
	require.Nil(t, p1.Runs, "a call in the run it began in")
	require.Equal(t, "approval-1", p1.ActivityID)
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "ana", p1, true, "refund is due")))

	run2 := continued(t, ctx, e.c, id, run1)
	p2 := pending(t, ctx, e.c, id, 1)[0]
	require.Equal(t, []string{run1, run2}, p2.Runs, "the second run lists the call it carried and made again")
	require.Equal(t, run1, p2.RunID, "the call keeps the run it began in: its decisions name it")
	require.Equal(t, p1.Call, p2.Call)
	require.Equal(t, p1.ActivityID, p2.ActivityID)
	require.Equal(t, p1.Digest, p2.Digest)
	require.True(t, p1.Deadline.Equal(p2.Deadline), "the same absolute deadline: %v, %v", p1.Deadline, p2.Deadline)
	require.Equal(t, []string{"ana"}, p2.Approvals, "ana's approval was carried")
	err := approvals.Decide(ctx, e.c, id, sign(t, "ana", p2, true, ""))
	rejectedType(t, err)
	require.ErrorContains(t, err, `"ana" approved call approval-1 already`)

	run3 := continued(t, ctx, e.c, id, run2)
	left, err := approvals.List(ctx, e.c, id)
	require.NoError(t, err)
	require.Empty(t, left, "the third run has not made the call again: nothing to show a person")
	// bo signs on the first run's listing; the third run accepts it before
	// its code makes the call again.
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "bo", p1, true, "")))
	e.book.approve("RF1/1A")
	require.NoError(t, e.c.SignalWorkflow(ctx, id, run3, "make", nil))
	var booked string
	require.NoError(t, e.c.GetWorkflow(ctx, id, run3).Get(ctx, &booked))
	require.Equal(t, "booked RF1/1A", booked)
	require.Equal(t, 1, e.book.runs("RF1/1A"), "the tool ran once")
	require.Empty(t, e.book.early, "the tool never ran before its approvals")

	// What the server recorded, run by run.
	h1, h2, h3 := runHistory(t, ctx, e.c, id, run1), runHistory(t, ctx, e.c, id, run2), runHistory(t, ctx, e.c, id, run3)
	require.Empty(t, startedIDs(h1))
	require.Empty(t, startedIDs(h2))
	require.Equal(t, []string{"approval-1"}, startedIDs(h3), "one activity started across the chain, under the approvals' activity ID")
	require.Equal(t, 1, countEvents(h1, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Equal(t, 0, countEvents(h2, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), "ana's second approval left nothing")
	require.Equal(t, 1, countEvents(h3, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	c3, ok := carriedInto(t, h3)
	require.True(t, ok)
	require.Len(t, c3.Calls, 1)
	require.Equal(t, []string{run1, run2}, c3.Calls[0].Runs)
	require.Len(t, c3.Calls[0].Approvals, 1)
	require.Equal(t, "ana", c3.Calls[0].Approvals[0].By)

	got, err := approvals.Audit(ctx, e.c, id, approvals.AuditOptions{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i, want := range []struct{ by, run string }{{"ana", run1}, {"bo", run3}} {
		require.Equal(t, want.by, got[i].Request.By, i)
		require.Equal(t, want.run, got[i].RunID, "the run that accepted the decision")
		require.Equal(t, run1, got[i].CallRunID, "the run the call began in")
		require.Equal(t, []string{run1, run2, run3}, got[i].Runs, "the runs the call waited in")
		require.True(t, got[i].Applied)
	}

	recordAndReplay(t, ctx, e.c, id)
}

// TestCarriedCallNotMadeAgainLapses: the second run of the chain does not
// make the call it was carried: bo's decision reaches it and is recorded,
// but the call lapses when the run continues as new (the third run's start
// header names it, with the runs it waited in) and never runs; the call the
// third run makes is a new one, with a new ID, that needs its own
// approvals, and runs once.
func TestCarriedCallNotMadeAgainLapses(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := e.start(ctx, Refund, RefundPlan{Run: 1, Last: 3, Skip: 2})
	id, run1 := first.GetID(), first.GetRunID()
	p1 := pending(t, ctx, e.c, id, 1)[0]
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "ana", p1, true, "")))

	run2 := continued(t, ctx, e.c, id, run1)
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "bo", p1, true, "")), "the carried call is decided in the run that holds it")
	run3 := continued(t, ctx, e.c, id, run2)

	p3 := pending(t, ctx, e.c, id, 1)[0]
	require.Equal(t, "approval-2", p3.Call, "a new call, numbered after the chain's last")
	require.Equal(t, run3, p3.RunID)
	require.Empty(t, p3.Approvals, "the lapsed call's approvals release nothing")
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "bo", p3, true, "")))
	require.NoError(t, approvals.Decide(ctx, e.c, id, sign(t, "cy", p3, true, "")))
	var booked string
	require.NoError(t, e.c.GetWorkflow(ctx, id, run3).Get(ctx, &booked))
	require.Equal(t, 1, e.book.runs("RF1/1A"), "the tool ran once")

	h2, h3 := runHistory(t, ctx, e.c, id, run2), runHistory(t, ctx, e.c, id, run3)
	require.Equal(t, 1, countEvents(h2, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), "bo's decision is in the second run's history")
	require.Empty(t, startedIDs(h2))
	require.Equal(t, []string{"approval-2"}, startedIDs(h3))
	c3, ok := carriedInto(t, h3)
	require.True(t, ok)
	require.Empty(t, c3.Calls)
	require.Equal(t, []wire.LapsedCall{{Call: "approval-1", Digest: p1.Digest, Runs: []string{run1, run2}}}, c3.Lapsed)
	require.Equal(t, 1, c3.Seq)

	recordAndReplay(t, ctx, e.c, id)
}
