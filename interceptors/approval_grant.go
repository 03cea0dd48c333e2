package interceptors

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// validateApprovals checks o, Options.Approvals, against the declared
// activities, naming the first bad field, and returns the approvers by
// activity type, copied.
func validateApprovals(o approvals.WorkerOptions, activities map[string]temporaladk.Declaration) (map[string]approvals.Approvers, error) {
	out := make(map[string]approvals.Approvers, len(o.Tools))
	for _, name := range slices.Sorted(maps.Keys(activities)) {
		if !activities[name].RequiresApproval {
			continue
		}
		a, ok := o.Tools[name]
		if !ok || a.IsZero() {
			return nil, fmt.Errorf("interceptors: Options.Activities[%q] RequiresApproval, but Options.Approvals.Tools has no approvers for it: name them (approvals.NewApprovers) or ask for open mode (approvals.OpenApprovers)", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Tools)) {
		a := o.Tools[name]
		if !activities[name].RequiresApproval {
			return nil, fmt.Errorf("interceptors: Options.Approvals.Tools[%q] names approvers, but Options.Activities does not declare %q RequiresApproval: its calls would never wait for them", name, name)
		}
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("interceptors: Options.Approvals.Tools[%q]: %w", name, err)
		}
		if !a.Open && o.Verifier == nil {
			return nil, fmt.Errorf("interceptors: Options.Approvals.Tools[%q] needs signed decisions, but Options.Approvals.Verifier is nil: give one (approvals.NewEd25519Verifier)", name)
		}
		out[name] = a.Clone()
	}
	return out, nil
}

// approversOf is who may decide a call of activityType: the call's own
// (approvals.Options.Approvers), else the declaration's; Missing says why
// there are none.
func (i *kitInterceptor) approversOf(activityType string, declared bool, asked approval.Call) recordedApprovers {
	own := approvals.Approvers{Principals: slices.Clone(asked.Principals), Required: asked.Required, Open: asked.Open}
	if !own.IsZero() {
		return recordedApprovers{Approvers: own, Flag: i.approvalFlag}
	}
	if a, ok := i.approvers[activityType]; ok && declared {
		return recordedApprovers{Approvers: a.Clone(), Flag: i.approvalFlag}
	}
	return recordedApprovers{Missing: fmt.Sprintf("approvals.Options.Approvers is not set and Options.Approvals.Tools has no entry for %q", activityType)}
}

// grantCall returns ctx on which the approved call w is scheduled: with
// its grant in the call's header and, in a run that recorded
// approversChangeID, the activity ID of its approval (unless the workflow
// set one).
func grantCall(ctx workflow.Context, s scheduler, w *waitingCall) (workflow.Context, error) {
	g := wire.ApprovalGrant{
		WorkflowID: w.info.WorkflowID, RunID: w.info.RunID, Chain: w.info.Chain, Call: w.info.Call,
		ActivityType: w.info.ActivityType, Digest: w.info.Digest, Approvers: w.info.Approvers.Clone(),
		Approvals: slices.Clone(w.approvals),
	}
	if !s.local() && w.granted {
		opts := workflow.GetActivityOptions(ctx)
		if opts.ActivityID == "" {
			opts.ActivityID = w.info.Call
			ctx = workflow.WithActivityOptions(ctx, opts)
		}
		g.ActivityID = opts.ActivityID
	}
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil {
		return ctx, errors.New("no header to write the call's grant to")
	}
	p, err := wire.Converter.ToPayload(g)
	if err != nil {
		return ctx, fmt.Errorf("encoding the call's grant: %w", err)
	}
	fields[wire.ApprovalHeaderKey] = p
	return ctx, nil
}

// checkGrant refuses, before the user's code runs, a call that needs an
// approval and carries no grant bound to it: declared RequiresApproval on
// this worker, or carrying a grant (a call made on an
// approvals.WithApproval context), whoever scheduled it. Nil for a call
// that needs none or whose grant holds.
func (i *kitInterceptor) checkGrant(ctx context.Context, info activity.Info, args []any) error {
	name := info.ActivityType.Name
	declared := i.activities[name].RequiresApproval
	fields := interceptor.Header(ctx)
	p, marked := fields[wire.ApprovalHeaderKey]
	if !marked || p == nil {
		if !declared {
			return nil
		}
		if _, kit := fields[wire.HeaderKey]; !kit {
			return notGranted("temporaladk: activity %s requires approval (declared RequiresApproval on this worker), but the call carries no grant and no kit header: it was scheduled by a workflow worker without the kit's plugin; register interceptors.NewPlugin on every workflow worker of %s", name, schedulingQueue(ctx, info))
		}
		return notGranted("temporaladk: activity %s requires approval (declared RequiresApproval on this worker), but the call carries no grant: its workflow worker did not gate it (a run recorded before the declaration, or a workflow worker whose kit does not declare %s RequiresApproval)", name, name)
	}
	var g wire.ApprovalGrant
	if err := wire.Converter.FromPayload(p, &g); err != nil {
		return notGranted("temporaladk: activity %s: the call's grant %q does not decode: %v", name, wire.ApprovalHeaderKey, err)
	}
	digest, err := approval.Digest(args)
	if err != nil {
		return notGranted("temporaladk: activity %s: its arguments have no digest to check the grant with: %v", name, err)
	}
	return i.verifyGrant(g, info, digest)
}

// verifyGrant checks g against the call info describes, whose arguments
// have digest: pure, but for the worker's Verifier.
func (i *kitInterceptor) verifyGrant(g wire.ApprovalGrant, info activity.Info, digest string) error {
	name := info.ActivityType.Name
	declared := i.activities[name].RequiresApproval
	switch {
	case g.WorkflowID != info.WorkflowExecution.ID || g.RunID != info.WorkflowExecution.RunID:
		return notGranted("temporaladk: activity %s: the grant is for workflow %s run %s, not this call's %s run %s", name, g.WorkflowID, g.RunID, info.WorkflowExecution.ID, info.WorkflowExecution.RunID)
	case g.ActivityType != name:
		return notGranted("temporaladk: activity %s: the grant is for activity %s", name, g.ActivityType)
	case g.ActivityID != "" && !info.IsLocalActivity && g.ActivityID != info.ActivityID:
		return notGranted("temporaladk: activity %s: the grant is for activity ID %s, not this call's %s", name, g.ActivityID, info.ActivityID)
	case g.Digest != digest:
		return notGranted("temporaladk: activity %s: the grant is for arguments with digest %s, but this call's arguments have digest %s", name, g.Digest, digest)
	}
	approvers := g.Approvers
	if declared {
		// A declared tool's approvers are this worker's, whatever the
		// workflow side recorded.
		approvers = i.approvers[name]
	}
	pending := approvals.Pending{WorkflowID: g.WorkflowID, RunID: g.RunID, Chain: g.Chain, Call: g.Call, ActivityType: name, Digest: digest}
	seen := map[string]bool{}
	var refused []string
	for _, r := range g.Approvals {
		switch {
		case !r.Approves() || r.Call != g.Call || r.Digest != digest:
			refused = append(refused, fmt.Sprintf("%s: not an approval of this call", r.By))
			continue
		case !approvers.Allows(r.By):
			refused = append(refused, fmt.Sprintf("%s: not one of the approvers", r.By))
			continue
		case seen[r.By]:
			continue
		}
		if !approvers.Open {
			if i.approvalVerifier == nil {
				refused = append(refused, fmt.Sprintf("%s: this worker has no approval verifier (interceptors.Options.Approvals.Verifier)", r.By))
				continue
			}
			// The expiry was checked against the workflow's time when the
			// run accepted the decision; a retry after it still runs.
			if err := i.approvalVerifier.Verify(pending.Statement(true, r.By, r.Expires), r.Key, r.Signature); err != nil {
				refused = append(refused, fmt.Sprintf("%s: %v", r.By, err))
				continue
			}
		}
		seen[r.By] = true
	}
	need := max(approvers.Required, 1)
	if len(seen) < need {
		msg := fmt.Sprintf("temporaladk: activity %s: the grant of %s holds %d distinct approvals that hold on this worker, and %d are needed (%s)", name, g.Call, len(seen), need, describeApprovers(approvers))
		if len(refused) > 0 {
			msg += "; refused: " + fmt.Sprint(refused)
		}
		return notGranted("%s", msg)
	}
	return nil
}

// notGranted is the activity side's refusal of a call without a grant
// bound to it: non-retryable, since another attempt carries the same
// header.
func notGranted(format string, args ...any) error {
	return approvalNotGranted(fmt.Sprintf(format, args...))
}
