package interceptors

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/internal/wire"
)

// readCarriedApprovals reads the calls the run before handed over (the
// start header approval.CarriedHeaderKey); zero when there is none. One
// that does not decode is an error naming the header: the calls and the
// approvals it held would otherwise be lost silently.
func readCarriedApprovals(fields map[string]*commonpb.Payload) (wire.CarriedApprovals, error) {
	p, ok := fields[approval.CarriedHeaderKey]
	if !ok || p == nil {
		return wire.CarriedApprovals{}, nil
	}
	var c wire.CarriedApprovals
	if err := wire.Converter.FromPayload(p, &c); err != nil {
		return wire.CarriedApprovals{}, fmt.Errorf("interceptors: the run's start header %q does not decode: %w", approval.CarriedHeaderKey, err)
	}
	for i, call := range c.Calls {
		if call.Call == "" || call.Digest == "" || call.ActivityType == "" || len(call.Runs) == 0 {
			return wire.CarriedApprovals{}, fmt.Errorf("interceptors: the run's start header %q: calls[%d] lacks its call, digest, activity type or runs", approval.CarriedHeaderKey, i)
		}
	}
	return c, nil
}

// receive puts the calls the run before carried into the book, before the
// workflow code runs and before any Update is validated: a decision that
// reaches this run before its code makes the call again finds the call.
// The run numbers its own calls after the chain's last.
func (b *approvalBook) receive(ctx workflow.Context, c wire.CarriedApprovals) {
	if len(c.Calls) == 0 && c.Seq == 0 {
		return
	}
	info := workflow.GetInfo(ctx)
	b.seq = c.Seq
	for _, call := range c.Calls {
		seq, _ := strconv.Atoi(strings.TrimPrefix(call.Call, approvalPrefix))
		w := &waitingCall{seq: seq, granted: true, carried: true, local: call.Local, flag: call.Flag,
			approvals: slices.Clone(call.Approvals),
			info: approvals.Pending{
				WorkflowID: info.WorkflowExecution.ID, RunID: call.Runs[0], Chain: info.FirstRunID,
				Call: call.Call, ActivityID: call.ActivityID, ActivityType: call.ActivityType, Class: call.Class,
				Digest: call.Digest, Summary: call.Summary, Since: call.Since, Deadline: call.Deadline,
				Approvers: call.Approvers.Clone(), Runs: append(slices.Clone(call.Runs), info.WorkflowExecution.RunID),
			}}
		if len(w.approvals) >= max(w.info.Approvers.Required, 1) {
			// A run hands over only undecided calls; a header that says
			// otherwise is decided here, as the run before would have.
			w.decided, w.req = true, w.approvals[len(w.approvals)-1]
		}
		b.waiting = append(b.waiting, w)
	}
}

// claim finds the carried call that a call of activityType with arguments
// of digest, made by this run's code, makes again: the first carried call
// not made yet of that activity, kind, digest and activity ID (the one the
// call would be scheduled with: explicitID, else the call's own ID). It
// marks it made, with args, and returns it; nil when there is none.
func (b *approvalBook) claim(activityType, digest string, local bool, explicitID string, args []any) *waitingCall {
	for _, w := range b.waiting {
		if !w.carried || w.made || w.info.ActivityType != activityType || w.info.Digest != digest || w.local != local {
			continue
		}
		if !local && cmp.Or(explicitID, w.info.Call) != w.info.ActivityID {
			continue
		}
		w.made, w.info.Args = true, args
		return w
	}
	return nil
}

// carry is what the run hands the next when it continues as new: the
// calls still waiting for people that it made (the ones it began, and the
// carried ones it made again) and whose deadline has not passed, the
// carried calls it never made again, decided or not (they lapse: not
// carried further, never run), and the chain's last call number. It reports false when there is nothing to
// hand over, or when the run's history was recorded before
// approval.CarryChangeID (the version is recorded here, once there is
// something to carry).
func (b *approvalBook) carry(ctx workflow.Context) (wire.CarriedApprovals, bool) {
	now := workflow.Now(ctx)
	runID := workflow.GetInfo(ctx).WorkflowExecution.RunID
	out := wire.CarriedApprovals{Seq: b.seq}
	for _, w := range b.waiting {
		switch {
		case !w.made:
			out.Lapsed = append(out.Lapsed, wire.LapsedCall{Call: w.info.Call, Digest: w.info.Digest, Runs: slices.Clone(w.runs(runID))})
			workflow.GetLogger(ctx).Warn("temporaladk: a call carried into this run lapses: the run continues as new without making it again", "call", w.info.Call, "activity_type", w.info.ActivityType, "digest", w.info.Digest)
		case w.decided, !now.Before(w.info.Deadline):
			// Its coroutine schedules or ends it in this run.
		default:
			out.Calls = append(out.Calls, wire.CarriedCall{
				Call: w.info.Call, ActivityID: w.info.ActivityID, ActivityType: w.info.ActivityType, Local: w.local,
				Class: w.info.Class, Digest: w.info.Digest, Summary: w.info.Summary, Since: w.info.Since, Deadline: w.info.Deadline,
				Approvers: w.info.Approvers.Clone(), Approvals: slices.Clone(w.approvals), Runs: w.runs(runID), Flag: w.flag,
			})
		}
	}
	if len(out.Calls) == 0 && len(out.Lapsed) == 0 {
		return out, false
	}
	if workflow.GetVersion(ctx, approval.CarryChangeID, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return out, false
	}
	return out, true
}

// runs are the runs w waited in, the one it began in first, up to runID,
// this one.
func (w *waitingCall) runs(runID string) []string {
	if len(w.info.Runs) > 0 {
		return slices.Clone(w.info.Runs)
	}
	return []string{runID}
}

// handOverApprovals writes into the next run's header the calls this run
// carries (carry), when there are any.
func (o *workflowOutbound) handOverApprovals(ctx workflow.Context) error {
	b, ok := approval.BookFrom(ctx).(*approvalBook)
	if !ok || b == nil {
		return nil
	}
	c, ok := b.carry(ctx)
	if !ok {
		return nil
	}
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil {
		return fmt.Errorf("no header to write the run's pending approvals to")
	}
	p, err := wire.Converter.ToPayload(c)
	if err != nil {
		return fmt.Errorf("encoding the run's pending approvals: %w", err)
	}
	fields[approval.CarriedHeaderKey] = p
	return nil
}
