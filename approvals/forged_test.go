package approvals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// forgedCall is one call the hand-rolled worker schedules: the activity ID
// it schedules it with, and the activity ID it writes into the copy of the
// grant it gives it.
type forgedCall struct {
	ActivityID      string `json:"activity_id"`
	GrantActivityID string `json:"grant_activity_id"`
}

// forgedSignal carries the people's signed approvals to the hand-rolled
// workflow: they are in its own history.
const forgedSignal = "approvals"

// forgedGrantKey marks the context of a call the hand-rolled worker writes
// a grant for.
type forgedGrantKey struct{}

// Forger is a hand-rolled workflow on a workflow worker without the kit:
// it waits for the signed approvals of its one call, writes the kit's grant
// header itself (forgingInterceptor) and copies that one grant into every
// call of calls, one after the other, each with one attempt. It reports
// each call's result or error.
func Forger(ctx workflow.Context, seat Seat, call string, calls []forgedCall) ([]string, error) {
	var reqs []approvals.Request
	workflow.GetSignalChannel(ctx, forgedSignal).Receive(ctx, &reqs)
	digest, err := approvals.Digest(seat)
	if err != nil {
		return nil, err
	}
	info := workflow.GetInfo(ctx)
	grant := wire.ApprovalGrant{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, Chain: info.FirstRunID,
		Call: call, ActivityType: "PairSeat", Digest: digest, Approvals: reqs}
	var out []string
	for _, c := range calls {
		g := grant
		g.ActivityID = c.GrantActivityID
		cctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ActivityID: c.ActivityID, StartToCloseTimeout: 30 * time.Second,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		var booked string
		if err := workflow.ExecuteActivity(workflow.WithValue(cctx, forgedGrantKey{}, g), "PairSeat", seat).Get(ctx, &booked); err != nil {
			out = append(out, c.ActivityID+": "+err.Error())
			continue
		}
		out = append(out, c.ActivityID+": "+booked)
	}
	return out, nil
}

// forgingInterceptor writes the grant a Forger call carries on its context
// into the call's header, as the kit's workflow side would.
type forgingInterceptor struct {
	interceptor.WorkerInterceptorBase
}

func (*forgingInterceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &forgingInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}}
}

type forgingInbound struct {
	interceptor.WorkflowInboundInterceptorBase
}

func (f *forgingInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return f.Next.Init(&forgingOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}})
}

type forgingOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
}

func (f *forgingOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if g, ok := ctx.Value(forgedGrantKey{}).(wire.ApprovalGrant); ok {
		p, err := testConverter.ToPayload(g)
		if err != nil {
			panic(err)
		}
		interceptor.WorkflowHeader(ctx)[wire.ApprovalHeaderKey] = p
	}
	return f.Next.ExecuteActivity(ctx, activityType, args...)
}

// startedByID counts the ActivityTaskStarted events of each activity ID in
// the run's history: the attempts the server handed to a worker.
func startedByID(events []*historypb.HistoryEvent) map[string]int {
	ids := map[int64]string{}
	out := map[string]int{}
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			ids[e.GetEventId()] = a.GetActivityId()
		}
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			out[ids[a.GetScheduledEventId()]]++
		}
	}
	return out
}

// TestOneGrantRunsOneCall: a hand-rolled workflow worker holds one valid
// grant of PairSeat (ana and bo, two of ana, bo and cy, signed its call
// approval-1, to run as activity approval-1) and writes the kit's header
// itself: it copies the grant into a call under another activity ID, into
// one whose grant names no activity ID, and into a second call under
// approval-1 once the first has closed, which the server allows. The kit's
// activity worker runs the tool once, for the first approval-1, and
// refuses the three copies, each naming why, as the history records.
func TestOneGrantRunsOneCall(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	queue := "tq-" + t.Name()
	wf := worker.New(c, queue, worker.Options{LocalActivityWorkerOnly: true, Interceptors: []interceptor.WorkerInterceptor{&forgingInterceptor{}}})
	wf.RegisterWorkflow(Forger)
	require.NoError(t, wf.Start())
	defer wf.Stop()
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	act := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	book := newBookings("")
	act.RegisterActivity(book)
	require.NoError(t, act.Start())
	defer act.Stop()

	seat := Seat{"FR1", "1F"}
	calls := []forgedCall{
		{ActivityID: "approval-1", GrantActivityID: "approval-1"},
		{ActivityID: "approval-2", GrantActivityID: "approval-2"},
		{ActivityID: "copy-3", GrantActivityID: ""},
		{ActivityID: "approval-1", GrantActivityID: "approval-1"},
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue},
		Forger, seat, "approval-1", calls)
	require.NoError(t, err)
	digest, err := approvals.Digest(seat)
	require.NoError(t, err)
	// What the people saw and signed: the call approval-1, to run as
	// activity approval-1.
	p := approvals.Pending{WorkflowID: run.GetID(), RunID: run.GetRunID(), Chain: run.GetRunID(), Call: "approval-1", ActivityID: "approval-1",
		ActivityType: "PairSeat", Digest: digest, Since: time.Now()}
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), forgedSignal, []approvals.Request{sign(t, "ana", p, true, ""), sign(t, "bo", p, true, "")}))
	var out []string
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, "approval-1: booked FR1/1F", out[0])
	require.Equal(t, 1, book.runs("FR1/1F"), "the tool ran once")

	// What the server recorded: four activities, each started once; one
	// completed; three failed with the kit's refusal, never retried.
	events := history(t, ctx, c, run)
	require.Equal(t, map[string]int{"approval-1": 2, "approval-2": 1, "copy-3": 1}, startedByID(events))
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED))
	var refusals []string
	for _, e := range events {
		if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
			app := a.GetFailure().GetApplicationFailureInfo()
			require.Equal(t, temporaladk.TypeApprovalNotGranted, app.GetType())
			require.True(t, app.GetNonRetryable())
			refusals = append(refusals, a.GetFailure().GetMessage())
		}
	}
	require.Len(t, refusals, 3)
	require.Contains(t, refusals[0], `temporaladk: activity PairSeat: the grant of approval-1 holds 0 distinct approvals that hold on this worker, and 2 are needed (2 of ["ana" "bo" "cy"]); refused: [ana: the signature by key "ana-test" does not verify: the decision was made for another workflow, run, call, activity ID, digest, decision or expiry, or altered`,
		"the copy under approval-2: the approvals were signed for approval-1")
	require.Equal(t, "temporaladk: activity PairSeat: the grant of approval-1 names no activity ID, so it is bound to no one activity: a grant lets run the one activity its approvals name (a workflow worker of an earlier build, or one that writes the kit's header itself, wrote it)", refusals[1])
	require.Equal(t, fmt.Sprintf("temporaladk: activity PairSeat: run %s scheduled activity ID approval-1 2 times, and a grant lets one activity run, the first: this one is a copy (a workflow worker that writes the kit's header itself, or a workflow that reuses the activity ID of an approved call)", run.GetRunID()), refusals[2])
	require.Equal(t, []string{"approval-1: booked FR1/1F", "approval-2: " + refusals[0], "copy-3: " + refusals[1], "approval-1: " + refusals[2]}, trimCause(out))
}

// trimCause keeps, of each Forger outcome, the activity ID and the
// refusal's message: the SDK wraps an activity's failure in an
// ActivityError that names the activity first.
func trimCause(out []string) []string {
	trimmed := make([]string, len(out))
	for i, o := range out {
		id, msg, _ := strings.Cut(o, ": ")
		if j := strings.Index(msg, "temporaladk: "); j >= 0 {
			msg = msg[j:]
		}
		msg = strings.TrimSuffix(msg, " (type: TemporaladkApprovalNotGranted, retryable: false)")
		trimmed[i] = id + ": " + msg
	}
	return trimmed
}
