package interceptors

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// approvalChangeID versions the approval gate of declared activities
// (workflow.GetVersion), one change ID per activity type
// ("temporaladk/approval/<type>"): the first call of the type a run gates
// records it, so that a history recorded before a deploy declared
// RequiresApproval for that type replays without the gate, whatever other
// types the run gated.
const approvalChangeID = "temporaladk/approval"

// approversChangeID versions who may decide a call (workflow.GetVersion,
// one change ID for the run): a run that records it records each gated
// call's approvers in a marker (workflow.SideEffect) when the call begins
// to wait, and schedules the approved call with the activity ID of its
// approval and a grant in its header. A history recorded before it replays
// as it was recorded: its calls had open approvers, one approval each.
const approversChangeID = "temporaladk/approval/approvers"

// approvalPrefix begins every call ID of the approval book.
const approvalPrefix = "approval-"

// recordedApprovers is what the marker of a gated call records: its
// approvers, or why it has none.
type recordedApprovers struct {
	Approvers approvals.Approvers `json:"approvers"`
	Missing   string              `json:"missing,omitempty"`
	// Widens says how the call's own approvals.WithApproval options widen
	// its activity's declaration, which refuses the call.
	Widens string `json:"widens,omitempty"`
	// Flag says that the run keeps approvals.SearchAttribute true while
	// the call waits (Options.Approvals.SearchAttribute, as it was when the
	// call began to wait).
	Flag bool `json:"flag,omitempty"`
}

// approvalBook is the run's record of the calls waiting for a decision, in
// workflow state: the Update approvals.UpdateName decides them, the Query
// approvals.QueryName lists them. It holds the calls waiting now, no more:
// a call leaves it when its wait ends.
type approvalBook struct {
	root    *kitInterceptor
	seq     int
	waiting []*waitingCall
	// shown is set once the book has written the workflow's current
	// details, so that a run that never waits leaves them alone.
	shown bool
	// flagged is set while the book keeps approvals.SearchAttribute true
	// on the run.
	flagged bool
}

// flag sets approvals.SearchAttribute on the run, once, while calls wait.
func (b *approvalBook) flag(ctx workflow.Context) error {
	if b.flagged {
		return nil
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, approvals.SearchAttributeKey.ValueSet(true)); err != nil {
		return fmt.Errorf("setting the search attribute %s: %w", approvals.SearchAttribute, err)
	}
	b.flagged = true
	return nil
}

// unflag sets approvals.SearchAttribute false once no call waits.
func (b *approvalBook) unflag(ctx workflow.Context) {
	if !b.flagged || len(b.waiting) > 0 {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, approvals.SearchAttributeKey.ValueSet(false)); err != nil {
		workflow.GetLogger(ctx).Error("temporaladk: clearing the search attribute", "search_attribute", approvals.SearchAttribute, "error", err)
		return
	}
	b.flagged = false
}

// waitingCall is one call waiting for its decision.
type waitingCall struct {
	info    approvals.Pending
	seq     int
	decided bool
	// req is the decision that ended the wait: the denial, or the approval
	// that made the count.
	req approvals.Request
	// approvals are the accepted approvals, in the order the run accepted
	// them.
	approvals []approvals.Request
	// granted is set for a call of a run that recorded approversChangeID:
	// its approved scheduling gets the approval's activity ID.
	granted bool
	// carried is set for a call the run before handed over (its start
	// header approval.CarriedHeaderKey), made is set once this run's
	// workflow code has made the call: at once for a call the run began,
	// when it makes the call again for a carried one. A carried call not
	// made yet is decided (the Update) but not listed (its arguments are
	// not carried), and lapses if the run continues as new without making
	// it.
	carried, made bool
	// local is set for a call of a local activity; flag for a call that
	// keeps approvals.SearchAttribute true while it waits.
	local, flag bool
}

// approved marks the context of a call whose approval came: scheduling it
// then goes straight on.
type approvedKey struct{}

// registerApprovals installs the run's approval Update and Query handlers
// (no command) and returns ctx carrying the run's book.
func (i *kitInterceptor) registerApprovals(ctx workflow.Context) (workflow.Context, error) {
	b := &approvalBook{root: i}
	carried, err := readCarriedApprovals(interceptor.WorkflowHeader(ctx))
	if err != nil {
		return ctx, badCallHeader(err.Error())
	}
	b.receive(ctx, carried)
	if err := workflow.SetUpdateHandlerWithOptions(ctx, approvals.UpdateName, b.decide,
		workflow.UpdateHandlerOptions{Validator: b.validate, Description: "temporaladk: approves or denies a call waiting for approval: call, digest, by, approve true or false (signed where its approvers are), as the approvals package and its inbox send it"}); err != nil {
		return ctx, fmt.Errorf("temporaladk: registering the approval Update: %w", err)
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, approvals.QueryName, b.list, workflow.QueryHandlerOptions{
		Description: "temporaladk: the calls of this run waiting for approval, with their arguments, digest, approvers and approvals so far",
	}); err != nil {
		return ctx, fmt.Errorf("temporaladk: registering the approval Query: %w", err)
	}
	return approval.WithBook(ctx, b), nil
}

// Pending is how many calls wait for a decision or for the scheduling that
// follows it.
func (b *approvalBook) Pending() int { return len(b.waiting) }

// Deciding is how many calls the run made are decided and wait for the
// scheduling, or the failure, that follows. A carried call the run has not
// made again has nothing to follow its decision: it is not counted.
func (b *approvalBook) Deciding() int {
	n := 0
	for _, w := range b.waiting {
		if w.decided && w.made {
			n++
		}
	}
	return n
}

// list is the Query's answer: the calls the run made that wait for a
// decision. A carried call the run has not made again is left out: its
// arguments are not carried, and a person sees what they approve.
func (b *approvalBook) list() ([]approvals.Pending, error) {
	out := make([]approvals.Pending, 0, len(b.waiting))
	for _, w := range b.waiting {
		if !w.decided && w.made {
			p := w.info
			p.Approvers = p.Approvers.Clone()
			for _, a := range w.approvals {
				p.Approvals = append(p.Approvals, a.By)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// validate rejects, before anything enters history, a request that does
// not name a waiting call by its ID and its digest, or that its approvers
// do not allow: a principal not among them, and for approvers that are not
// open, a decision without a signature, one that has expired (its expiry
// compared with workflow.Now: the workflow's time, the same on every
// worker), one that does not verify with this worker's Verifier, or a
// second approval by the same principal. Validators do not run on replay,
// so these checks may change with the worker's keys; decide keeps only
// what replays the same.
func (b *approvalBook) validate(ctx workflow.Context, req approvals.Request) error {
	w, err := b.check(ctx, req)
	if err != nil {
		return err
	}
	a := w.info.Approvers
	if !a.Allows(req.By) {
		return rejected(fmt.Sprintf("%q may not decide call %s: its approvers are %s", req.By, req.Call, describeApprovers(a)))
	}
	if !a.Open {
		now := workflow.Now(ctx)
		switch {
		case len(req.Signature) == 0 || req.Key == "":
			return rejected(fmt.Sprintf("call %s needs a signed decision: the request has no signature or key (Request.Signature, Request.Key)", req.Call))
		case req.Expires.IsZero():
			return rejected(fmt.Sprintf("call %s needs a decision with an expiry (Request.Expires is zero)", req.Call))
		case !now.Before(req.Expires):
			return rejected(fmt.Sprintf("the decision expired at %s; the workflow's time is %s", req.Expires.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano)))
		case b.root.approvalVerifier == nil:
			return rejected("this worker has no approval verifier (interceptors.Options.Approvals.Verifier), so no signed decision can be checked")
		}
		if err := b.root.approvalVerifier.Verify(w.info.Statement(req.Approves(), req.By, req.Expires), req.Key, req.Signature); err != nil {
			return rejected(fmt.Sprintf("the decision on call %s does not verify: %v", req.Call, err))
		}
	}
	if req.Approves() {
		for _, prior := range w.approvals {
			if prior.By == req.By {
				return rejected(fmt.Sprintf("%q approved call %s already: %d distinct approvals are needed, %d so far", req.By, req.Call, a.Required, len(w.approvals)))
			}
		}
	}
	return nil
}

// describeApprovers says who may decide, for rejections.
func describeApprovers(a approvals.Approvers) string {
	if a.Open {
		return fmt.Sprintf("open (any name), %d needed", a.Required)
	}
	return fmt.Sprintf("%d of %q", a.Required, a.Principals)
}

// check finds the waiting call req names: what replays the same, since it
// reads only the run's state, which history rebuilds.
func (b *approvalBook) check(ctx workflow.Context, req approvals.Request) (*waitingCall, error) {
	if err := req.Validate(); err != nil {
		return nil, rejected(err.Error())
	}
	w := b.find(req.Call)
	if w == nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(req.Call, approvalPrefix)); err == nil && strings.HasPrefix(req.Call, approvalPrefix) && n >= 1 && n <= b.seq {
			return nil, rejected(fmt.Sprintf("call %s is no longer waiting: it was decided or timed out", req.Call))
		}
		return nil, rejected(fmt.Sprintf("this run has no call %q waiting for approval", req.Call))
	}
	if w.decided {
		return nil, rejected(fmt.Sprintf("call %s is already decided", req.Call))
	}
	if req.Digest != w.info.Digest {
		return nil, rejected(fmt.Sprintf("digest %q is not the digest of the arguments of call %s: the decision is for another call", req.Digest, req.Call))
	}
	if !w.made && !workflow.Now(ctx).Before(w.info.Deadline) {
		// A carried call the run has not made again has no timer: its
		// deadline is checked here, against the workflow's time.
		return nil, rejected(fmt.Sprintf("call %s is no longer waiting: it timed out at %s", req.Call, w.info.Deadline.UTC().Format(time.RFC3339Nano)))
	}
	return w, nil
}

// decide records an accepted decision: a denial ends the call's wait, and
// so does the approval that makes the count of distinct approvers its
// approvers require. The validator checked who decided; decide checks only
// what replays the same.
func (b *approvalBook) decide(ctx workflow.Context, req approvals.Request) error {
	w, err := b.check(ctx, req)
	if err != nil {
		return err
	}
	if !req.Approves() {
		w.decided, w.req = true, req
		return nil
	}
	for _, prior := range w.approvals {
		if prior.By == req.By {
			return rejected(fmt.Sprintf("%q approved call %s already", req.By, req.Call))
		}
	}
	w.approvals = append(w.approvals, req)
	if len(w.approvals) >= max(w.info.Approvers.Required, 1) {
		w.decided, w.req = true, req
	}
	b.showDetails(ctx)
	return nil
}

func (b *approvalBook) find(call string) *waitingCall {
	for _, w := range b.waiting {
		if w.info.Call == call {
			return w
		}
	}
	return nil
}

func (b *approvalBook) remove(w *waitingCall) {
	b.waiting = slices.DeleteFunc(b.waiting, func(x *waitingCall) bool { return x == w })
}

func rejected(msg string) error {
	return approvalRejected("temporaladk: approval rejected: " + msg)
}

// showDetails writes the waiting calls into the workflow's current details
// (workflow.SetCurrentDetails), which the Web UI shows; once the book has
// written them, an empty book clears them.
func (b *approvalBook) showDetails(ctx workflow.Context) {
	var lines []string
	for _, w := range b.waiting {
		if w.decided || !w.made {
			continue
		}
		line := fmt.Sprintf("- %s: %s (digest %s), until %s", w.info.Call, w.info.Summary, w.info.Digest, w.info.Deadline.UTC().Format(time.RFC3339))
		if n := w.info.Approvers.Required; n > 1 {
			line += fmt.Sprintf(", %d of %d approvals", len(w.approvals), n)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 && !b.shown {
		return
	}
	b.shown = true
	details := ""
	if len(lines) > 0 {
		details = "**Waiting for approval**\n\n" + strings.Join(lines, "\n")
	}
	workflow.SetCurrentDetails(ctx, details)
}

// awaitApproval gates a call that needs an approval: declared
// RequiresApproval, or made on an approvals.WithApproval context. It
// returns at once a future the call settles, and reports false for a call
// that needs none. A coroutine waits for the decision (a timer of the
// call's timeout, the only command before it), then schedules the call,
// charging its budgets only then, or ends it with an
// *temporaladk.ApprovalDeniedError.
func (o *workflowOutbound) awaitApproval(ctx workflow.Context, s scheduler, activityType string, args []any) (workflow.Future, bool) {
	if ctx.Value(approvedKey{}) != nil {
		return nil, false
	}
	d, declared := o.root.activities[activityType]
	asked, onCtx := approval.From(ctx)
	if !(declared && d.RequiresApproval) && !onCtx {
		return nil, false
	}
	if !onCtx && workflow.GetVersion(ctx, approvalChangeID+"/"+activityType, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		// The declaration is options, read anew on replay: a run whose
		// history was recorded before its activity required an approval
		// (a deploy added the declaration) goes on without, as recorded.
		// So does one whose call a worker without the kit scheduled: the
		// SDK compares a replayed command's activity ID and type only, and
		// workflow code cannot read the call's header, so the two look
		// alike here and the task is not failed; the kit reports it to the
		// operator (Options.Fleet's logger and metrics, else slog.Default),
		// since this is only met replaying.
		o.ungated++
		info := workflow.GetInfo(ctx)
		o.root.fleet.ungatedCall(info.WorkflowType.Name, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, activityType, o.ungated)
		return nil, false
	}
	b, ok := approval.BookFrom(ctx).(*approvalBook)
	if !ok || b == nil {
		return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s needs an approval, but the run has no approval book: the workflow runs without the kit's inbound interceptor", s.kind(), activityType)), true
	}
	if err := ctx.Err(); err != nil {
		return failedFuture(ctx, temporal.NewCanceledError(fmt.Sprintf("temporaladk: %s %s did not wait for approval: its context is cancelled", s.kind(), activityType))), true
	}
	digest, err := approval.Digest(args)
	if err != nil {
		return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s needs an approval: %w", s.kind(), activityType, err)), true
	}
	timeout := approvals.DefaultTimeout
	switch {
	case asked.Timeout > 0:
		timeout = asked.Timeout
	case declared && d.ApprovalTimeout > 0:
		timeout = d.ApprovalTimeout
	}
	// The class shown is the one the call will be planned with: the plan's
	// one decision (tag, declaration, DefaultClass). A call the plan refuses
	// fails now, before a person is asked to approve what cannot run.
	pl, _, err := o.root.planCall(ctx, s, activityType, args, false)
	if err != nil {
		return failedFuture(ctx, err), true
	}
	class := pl.Class
	summary := asked.Summary
	if summary == "" {
		summary = strings.TrimPrefix(class.Lower()+" ", " ") + activityType
	}
	// A history recorded before approvers existed had open approvers, one
	// approval a call; a run that records the change records each call's
	// approvers, so that a deploy that changes them changes no recorded
	// run.
	approvers := approvals.Approvers{Open: true, Required: 1}
	flag := false
	granted := workflow.GetVersion(ctx, approversChangeID, workflow.DefaultVersion, 1) == 1
	if granted {
		// A call the run before carried, made again with arguments of the
		// same digest, waits on with what it had: its approvers, approvals
		// so far and deadline (see approvals' "Continue-as-new").
		explicitID := ""
		if !s.local() {
			explicitID = workflow.GetActivityOptions(ctx).ActivityID
		}
		if w := b.claim(activityType, digest, s.local(), explicitID, args); w != nil {
			if w.flag {
				if err := b.flag(ctx); err != nil {
					return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err)), true
				}
			}
			b.showDetails(ctx)
			o.ends.flush(ctx, o.root.notify)
			o.root.notify.approvalAsked(ctx, approvalOf(w))
			return o.waitFor(ctx, b, s, w, activityType, args), true
		}
		var rec recordedApprovers
		if err := workflow.SideEffect(ctx, func(workflow.Context) any {
			return o.root.approversOf(activityType, declared && d.RequiresApproval, d.ApprovalTimeout, asked)
		}).Get(&rec); err != nil {
			return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: reading its recorded approvers: %w", s.kind(), activityType, err)), true
		}
		if rec.Missing != "" {
			return failedFuture(ctx, approvalRejected(fmt.Sprintf("temporaladk: %s %s needs an approval but has no approvers: %s", s.kind(), activityType, rec.Missing))), true
		}
		if rec.Widens != "" {
			return failedFuture(ctx, approvalRejected(fmt.Sprintf("temporaladk: %s %s: %s", s.kind(), activityType, rec.Widens))), true
		}
		approvers = rec.Approvers
		if rec.Flag {
			if err := b.flag(ctx); err != nil {
				return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err)), true
			}
		}
		flag = rec.Flag
	}
	b.seq++
	call := approvalPrefix + strconv.Itoa(b.seq)
	// The activity ID the approved call will be scheduled with is known now,
	// before anyone decides, so that a signed decision covers it (grantCall
	// schedules with it). A run recorded before approvers has none: the SDK
	// assigns its call's ID, as it did when the run was recorded.
	activityID := ""
	if granted && !s.local() {
		activityID = cmp.Or(workflow.GetActivityOptions(ctx).ActivityID, call)
	}
	since := workflow.Now(ctx)
	info := workflow.GetInfo(ctx)
	w := &waitingCall{seq: b.seq, granted: granted, made: true, local: s.local(), flag: flag, info: approvals.Pending{
		WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, Chain: info.FirstRunID,
		Call: call, ActivityID: activityID, ActivityType: activityType, Class: class,
		Digest: digest, Summary: summary, Since: since, Deadline: since.Add(timeout),
		Args: args, Approvers: approvers,
	}}
	b.waiting = append(b.waiting, w)
	b.showDetails(ctx)
	o.root.countApproval(ctx, w, "")
	o.ends.flush(ctx, o.root.notify)
	o.root.notify.approvalAsked(ctx, approvalOf(w))
	return o.waitFor(ctx, b, s, w, activityType, args), true
}

// waitFor returns the future of the gated call w, and starts the coroutine
// that waits for its decision until its deadline (one timer, none for a
// carried call decided already or past its deadline), then schedules it or
// fails it.
func (o *workflowOutbound) waitFor(ctx workflow.Context, b *approvalBook, s scheduler, w *waitingCall, activityType string, args []any) workflow.Future {
	since, timeout := w.info.Since, w.info.Deadline.Sub(w.info.Since)
	future, settable := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		defer b.unflag(gctx)
		defer b.showDetails(gctx)
		defer b.remove(w)
		var (
			got bool
			err error
		)
		left := timeout
		if w.carried {
			left = w.info.Deadline.Sub(workflow.Now(gctx))
		}
		switch {
		case w.decided:
			got = true
		case left <= 0:
		default:
			got, err = workflow.AwaitWithOptions(gctx, workflow.AwaitOptions{Timeout: left,
				TimerOptions: workflow.TimerOptions{Summary: "approval deadline of " + w.info.Call}}, func() bool { return w.decided })
		}
		waited := workflow.Now(gctx).Sub(since)
		action := fmt.Sprintf("%s %s", activityType, w.info.Call)
		switch {
		case err != nil:
			settable.SetError(err)
		case !got:
			o.root.countApproval(gctx, w, "timed_out", waited)
			reason := fmt.Sprintf("timed out: no decision within %v", timeout)
			o.root.notify.approvalDecided(gctx, approvalOf(w), decisionOf(w, observe.ApprovalExpired, reason, waited))
			settable.SetError(&temporaladk.ApprovalDeniedError{Action: action, Reason: reason})
		case !w.req.Approves():
			o.root.countApproval(gctx, w, "denied", waited)
			o.root.notify.approvalDecided(gctx, approvalOf(w), decisionOf(w, observe.ApprovalRejected, w.req.Reason, waited))
			settable.SetError(&temporaladk.ApprovalDeniedError{Action: action, Approver: w.req.By, Reason: w.req.Reason})
		default:
			o.root.countApproval(gctx, w, "approved", waited)
			o.root.notify.approvalDecided(gctx, approvalOf(w), decisionOf(w, observe.ApprovalGranted, "", waited))
			// Every approved call carries its grant, also one of a run
			// recorded before grants (open approvers, one approval), so
			// that an upgraded activity worker runs it; only a run that
			// recorded approversChangeID gets the approval's activity ID,
			// which a replay of an older one would not find.
			sctx, err := grantCall(workflow.WithValue(gctx, approvedKey{}, w.info.Call), s, w)
			if err != nil {
				settable.SetError(fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err))
				return
			}
			settable.Chain(o.schedule(sctx, s, activityType, args))
		}
	})
	return future
}

// countApproval records a call that began to wait (decision "") or the end
// of its wait; nothing while the workflow replays.
func (i *kitInterceptor) countApproval(ctx workflow.Context, w *waitingCall, decision string, waited ...time.Duration) {
	if workflow.IsReplaying(ctx) {
		return
	}
	m := workflow.GetMetricsHandler(ctx).WithTags(map[string]string{"class": w.info.Class.Lower(), "activity_type": w.info.ActivityType})
	if decision == "" {
		m.Counter(observe.MetricApprovalsRequested).Inc(1)
		workflow.GetLogger(ctx).Info("temporaladk: call waits for approval", "call", w.info.Call, "activity_type", w.info.ActivityType, "digest", w.info.Digest)
		return
	}
	m.WithTags(map[string]string{"decision": decision}).Counter(observe.MetricApprovalDecisions).Inc(1)
	for _, d := range waited {
		m.Timer(observe.MetricApprovalWait).Record(d)
	}
	workflow.GetLogger(ctx).Info("temporaladk: approval decided", "call", w.info.Call, "activity_type", w.info.ActivityType, "decision", decision)
}
