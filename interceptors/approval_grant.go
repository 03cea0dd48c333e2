package interceptors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
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
// there are none, and Widens why the call's own options may not stand. A
// call of an activity declared RequiresApproval (declared, with
// declaredTimeout, its ApprovalTimeout) may narrow the declaration,
// never widen it (narrows).
func (i *kitInterceptor) approversOf(activityType string, declared bool, declaredTimeout time.Duration, asked approval.Call) recordedApprovers {
	own := approvals.Approvers{Principals: slices.Clone(asked.Principals), Required: asked.Required, Open: asked.Open}
	decl, ok := i.approvers[activityType]
	if declared && ok {
		if why := narrows(decl, cmp.Or(declaredTimeout, approvals.DefaultTimeout), own, asked.Timeout); why != "" {
			return recordedApprovers{Widens: fmt.Sprintf("its approvals.WithApproval options widen its declaration (Options.Approvals.Tools[%q]: %s, Options.Activities[%q].ApprovalTimeout: %v): %s; a per-call option may narrow a declaration, never widen it",
				activityType, describeApprovers(decl), activityType, cmp.Or(declaredTimeout, approvals.DefaultTimeout), why)}
		}
	}
	if !own.IsZero() {
		return recordedApprovers{Approvers: own, Flag: i.approvalFlag}
	}
	if declared && ok {
		return recordedApprovers{Approvers: decl.Clone(), Flag: i.approvalFlag}
	}
	return recordedApprovers{Missing: fmt.Sprintf("approvals.Options.Approvers is not set and Options.Approvals.Tools has no entry for %q", activityType)}
}

// narrows says how a call's own approvers and timeout (zero: not set)
// demand less than its activity's declared ones, "" when they do not: the
// call's approvers must be a subset of the declared principals (any for
// open declared approvers), never open where the declaration is not, and
// need at least as many approvals; its timeout must not be longer.
func narrows(declared approvals.Approvers, declaredTimeout time.Duration, own approvals.Approvers, ownTimeout time.Duration) string {
	if ownTimeout > declaredTimeout {
		return fmt.Sprintf("approvals.Options.Timeout %v is longer than the declared %v", ownTimeout, declaredTimeout)
	}
	if own.IsZero() {
		return ""
	}
	if own.Open && !declared.Open {
		return fmt.Sprintf("approvals.Options.Approvers are %s: open approvers would accept an unsigned decision by any name where the declaration names who signs", describeApprovers(own))
	}
	if !declared.Open {
		for _, p := range own.Principals {
			if !declared.Allows(p) {
				return fmt.Sprintf("approvals.Options.Approvers are %s: %q is not among the declared principals", describeApprovers(own), p)
			}
		}
	}
	if own.Required < declared.Required {
		return fmt.Sprintf("approvals.Options.Approvers are %s: fewer approvals than the declared %d", describeApprovers(own), declared.Required)
	}
	return ""
}

// grantCall returns ctx on which the approved call w is scheduled: with
// its grant in the call's header and the activity ID its approvals name
// (w.info.ActivityID, chosen when the call began to wait: the approval's
// ID unless the workflow set one; none in a run recorded before approvers,
// whose call the SDK names).
func grantCall(ctx workflow.Context, s scheduler, w *waitingCall) (workflow.Context, error) {
	g := wire.ApprovalGrant{
		WorkflowID: w.info.WorkflowID, RunID: w.info.RunID, Chain: w.info.Chain, Call: w.info.Call, ActivityID: w.info.ActivityID,
		ActivityType: w.info.ActivityType, Digest: w.info.Digest, Approvers: w.info.Approvers.Clone(),
		Approvals: slices.Clone(w.approvals),
	}
	if w.carried {
		g.Runs = slices.Clone(w.info.Runs)
	}
	if !s.local() && w.info.ActivityID != "" {
		opts := workflow.GetActivityOptions(ctx)
		if opts.ActivityID == "" {
			opts.ActivityID = w.info.ActivityID
			ctx = workflow.WithActivityOptions(ctx, opts)
		}
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
			return notGranted("temporaladk: activity %s requires approval (declared RequiresApproval on this worker), but the call carries no grant and no kit header: it was scheduled by a workflow worker without the kit's plugin; register interceptors.NewPlugin on every workflow worker of %s%s", name, schedulingQueue(ctx, info), i.fleet.reason())
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
	if err := i.verifyGrant(g, info, digest); err != nil {
		return err
	}
	if info.IsLocalActivity {
		return nil
	}
	if len(g.Runs) > 1 {
		// A call carried across continue-as-new: its approvals name the
		// run it began to wait in, so the one activity they let run is
		// the first scheduled with its ID across the runs it waited in.
		return chainSchedulings(ctx, info, g)
	}
	// The server refuses a second activity with the ID of one still open,
	// not one with the ID of one closed: the history says whether this is
	// the first the run scheduled with it.
	n, err := i.schedulingsOf(ctx, info)
	switch {
	case err != nil:
		return fmt.Errorf("temporaladk: activity %s: the grant of %s could not be checked: reading how often run %s scheduled activity ID %s: %w", name, g.Call, info.WorkflowExecution.RunID, info.ActivityID, err)
	case n > 1:
		return notGranted("temporaladk: activity %s: run %s scheduled activity ID %s %d times, and a grant lets one activity run, the first: this one is a copy (a workflow worker that writes the kit's header itself, or a workflow that reuses the activity ID of an approved call)", name, info.WorkflowExecution.RunID, info.ActivityID, n)
	}
	return nil
}

// historySchedulings counts the ActivityTaskScheduled events of the run
// info names whose activity ID is info.ActivityID, reading its history
// with the activity's client, and stops at two.
func historySchedulings(ctx context.Context, info activity.Info) (int, error) {
	c := activity.GetClient(ctx)
	if c == nil || nilPointer(c) {
		return 0, errors.New("the activity has no client to read its run's history with")
	}
	it := c.GetWorkflowHistory(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for n < 2 && it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return 0, err
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityId() == info.ActivityID {
			n++
		}
	}
	return n, nil
}

// grantRun is the run g lets its activity run in: the last it waited in.
func grantRun(g wire.ApprovalGrant) string {
	if len(g.Runs) > 0 {
		return g.Runs[len(g.Runs)-1]
	}
	return g.RunID
}

// chainSchedulings checks, for a grant g of a call carried across
// continue-as-new, that its runs are one unbroken stretch of the chain
// g.Chain (each run the continuation of the one before it, as its own
// history's start says) and that the activity ID was scheduled once across
// them, by this activity: reading each run's history with the activity's
// client. An approval names the run the call began to wait in, so a copy of
// the grant in a later run would otherwise run the call again.
func chainSchedulings(ctx context.Context, info activity.Info, g wire.ApprovalGrant) error {
	name := info.ActivityType.Name
	c := activity.GetClient(ctx)
	if c == nil || nilPointer(c) {
		return fmt.Errorf("temporaladk: activity %s: the grant of %s could not be checked: the activity has no client to read its chain's histories with", name, g.Call)
	}
	n := 0
	for k := len(g.Runs) - 1; k >= 0; k-- {
		run := g.Runs[k]
		it := c.GetWorkflowHistory(ctx, info.WorkflowExecution.ID, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		first := true
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return fmt.Errorf("temporaladk: activity %s: the grant of %s could not be checked: reading the history of run %s: %w", name, g.Call, run, err)
			}
			if first {
				first = false
				start := e.GetWorkflowExecutionStartedEventAttributes()
				switch {
				case start == nil:
					return fmt.Errorf("temporaladk: activity %s: the grant of %s could not be checked: the history of run %s does not begin with its start", name, g.Call, run)
				case start.GetFirstExecutionRunId() != g.Chain:
					return notGranted("temporaladk: activity %s: the grant of %s names run %s, which is not of the chain %s it names", name, g.Call, run, g.Chain)
				case k > 0 && start.GetContinuedExecutionRunId() != g.Runs[k-1]:
					return notGranted("temporaladk: activity %s: the grant of %s says run %s continued run %s, but it continued %q: a grant's runs are the unbroken stretch of the chain its call waited in", name, g.Call, run, g.Runs[k-1], start.GetContinuedExecutionRunId())
				}
			}
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityId() == info.ActivityID {
				n++
			}
		}
	}
	if n > 1 {
		return notGranted("temporaladk: activity %s: the runs %v of the chain its call waited in scheduled activity ID %s %d times, and a grant lets one activity run, the first: this one is a copy", name, g.Runs, info.ActivityID, n)
	}
	return nil
}

// verifyGrant checks g against the call info describes, whose arguments
// have digest: pure, but for the worker's Verifier.
func (i *kitInterceptor) verifyGrant(g wire.ApprovalGrant, info activity.Info, digest string) error {
	name := info.ActivityType.Name
	declared := i.activities[name].RequiresApproval
	switch {
	case len(g.Runs) > 0 && g.Runs[0] != g.RunID:
		return notGranted("temporaladk: activity %s: the grant of %s says it began to wait in run %s, but its runs begin with %s", name, g.Call, g.RunID, g.Runs[0])
	case g.WorkflowID != info.WorkflowExecution.ID || grantRun(g) != info.WorkflowExecution.RunID:
		return notGranted("temporaladk: activity %s: the grant is for workflow %s run %s, not this call's %s run %s", name, g.WorkflowID, grantRun(g), info.WorkflowExecution.ID, info.WorkflowExecution.RunID)
	case g.ActivityType != name:
		return notGranted("temporaladk: activity %s: the grant is for activity %s", name, g.ActivityType)
	case !info.IsLocalActivity && g.ActivityID == "":
		return notGranted("temporaladk: activity %s: the grant of %s names no activity ID, so it is bound to no one activity: a grant lets run the one activity its approvals name (a workflow worker of an earlier build, or one that writes the kit's header itself, wrote it)", name, g.Call)
	case !info.IsLocalActivity && g.ActivityID != info.ActivityID:
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
	// The statement names the activity this worker serves, not the one the
	// grant says: an approval verifies for the activity it was signed for.
	activityID := info.ActivityID
	if info.IsLocalActivity {
		activityID = ""
	}
	pending := approvals.Pending{WorkflowID: g.WorkflowID, RunID: g.RunID, Chain: g.Chain, Call: g.Call, ActivityID: activityID, ActivityType: name, Digest: digest}
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
