package interceptors

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
)

// scheduler is what differs between an activity and a local activity: their
// options types, and the call that schedules them.
type scheduler interface {
	// kind names the call in errors: "activity" or "local activity".
	kind() string
	// local reports whether the call is a local activity.
	local() bool
	// callerRetry is the retry policy the caller set on the call's options.
	callerRetry(ctx workflow.Context) *temporal.RetryPolicy
	// apply writes the plan into the call's options on ctx (see
	// policies.Apply) with ScheduleToClose capped at deadline when that is
	// above zero, and summary as the call's summary when it has none.
	apply(ctx workflow.Context, pl policies.Plan, deadline time.Duration, summary string) (workflow.Context, error)
	// bound holds the call's retry policy on ctx to most attempts
	// (policies.BoundAttempts), and reports whether that is below what it
	// allowed. A local activity, which retries out of the workflow's sight,
	// gets one attempt under a budget already and is left as it is.
	bound(ctx workflow.Context, most int) (workflow.Context, bool)
	// next schedules the call with the next interceptor.
	next(ctx workflow.Context, activityType string, args []any) workflow.Future
	// describe fills c with the timeouts and retry policy of the call's
	// options on ctx, as they are scheduled.
	describe(ctx workflow.Context, c *observe.Call)
}

// schedule makes one call in one straight line: plan, budget, header,
// schedule. The call is scheduled once: its retries, budgeted or not, are
// Temporal's own.
func (o *workflowOutbound) schedule(ctx workflow.Context, s scheduler, activityType string, args []any) workflow.Future {
	if f, gated := o.awaitApproval(ctx, s, activityType, args); gated {
		// Nothing is planned, charged or scheduled before the approval.
		return f
	}
	run, pool := budget.From(ctx)
	owner := o.ledger.Owner()
	budgeted := run != nil || pool != nil || owner != nil
	if tokens, cost := budget.MetersFrom(ctx); budgeted || tokens != nil || cost != nil {
		if err := ctx.Err(); err != nil {
			// Nothing is charged and nothing scheduled for a call made on a
			// context that is already cancelled.
			return failedFuture(ctx, temporal.NewCanceledError(fmt.Sprintf("temporaladk: %s %s was not scheduled: its context is cancelled", s.kind(), activityType)))
		}
	}
	pl, planned, err := o.root.planCall(ctx, s, activityType, args, budgeted)
	if err != nil {
		return failedFuture(ctx, misconfigured(s, activityType, err))
	}
	// A call the kit leaves alone keeps its options but for the retry policy
	// the plan gives it (the never-retryable types, the one rule no setting
	// changes, which then holds on whichever worker its attempts run), and
	// carries a header with no class: the activity side can tell it from a
	// call scheduled by a worker without the kit.
	var deadline time.Duration
	if planned {
		deadline = workflowDeadline(ctx)
	}
	ctx, err = s.apply(ctx, pl.Plan, deadline, pl.Class.Lower()+": "+activityType)
	if err != nil {
		return failedFuture(ctx, misconfigured(s, activityType, err))
	}
	h := pl.header()
	var meters charge.Meters
	if h.Spend, meters, err = charge.SpendOf(ctx, pl.Class, owner, s.local()); err != nil {
		return failedFuture(ctx, misconfigured(s, activityType, err))
	}
	if run != nil || pool != nil || meters.Metered() {
		// A budgeted call after one that ran on an activity worker without
		// the kit is refused (the ledger decides from the run's history).
		if err := o.ledger.Unmetered(ctx, meters.Metered()); err != nil {
			return failedFuture(ctx, misconfigured(s, activityType, err))
		}
	}
	if meters.Metered() {
		if refused := o.ledger.Precheck(ctx, activityType, pl.Class, meters, h.Spend.MaxTokens); refused != nil {
			return failedFuture(ctx, refused)
		}
	}
	if run != nil || pool != nil || meters.Metered() {
		// Whether a call is charged follows the workflow code (the budget on
		// its context), never the kit's options, which a replay may read
		// changed: a call the kit does not plan is charged too.
		h.Budget, err = o.ledger.Open(ctx, activityType, pl.Class, run, pool, meters)
		if err != nil {
			return failedFuture(ctx, err)
		}
		// The server holds the call to what its budgets have left, so that
		// no worker without the kit runs a retry nobody charged.
		ctx, h.BudgetBound = s.bound(ctx, o.ledger.AttemptsLeft(h.Budget))
	}
	if owner != nil {
		// A child's call is charged at the root of its family too, every
		// attempt, by the activity side before the user's code runs.
		h.Owner = o.ledger.OwnerCall(ctx, owner)
		h.Owner.Tokens, h.Owner.Cost = owner.Tokens && h.Spend.MaxTokens > 0, owner.Cost && h.Spend.MaxTokens > 0
	}
	h.Seq, h.Root = o.nextSeq(s), rootOf(ctx)
	if err := o.root.writeHeader(ctx, h); err != nil {
		return failedFuture(ctx, misconfigured(s, activityType, err))
	}
	call := o.planned(ctx, s, activityType, h)
	o.ends.flush(ctx, o.root.notify)
	o.root.notify.callPlanned(ctx, call)
	f := s.next(ctx, activityType, args)
	if h.Budget != "" {
		// The ledger reads how the call ended, later, in workflow code: its
		// attempts are checked where the run sees its retries (an activity
		// of its own, charged here).
		var retry *temporal.RetryPolicy
		if !s.local() && owner == nil {
			retry = s.callerRetry(ctx)
		}
		o.ledger.Watch(h.Budget, activityType, f, retry)
	}
	if planned && pl.SingleAttempt {
		f = indeterminateOnTimeout(ctx, activityType, f)
	}
	o.root.notify.watchCall(ctx, o.ends, call, f, func() int { return o.ledger.Charged(h.Budget) })
	return f
}

// planned describes the call the kit schedules on ctx with header h, for
// the observer, and numbers it in the run.
func (o *workflowOutbound) planned(ctx workflow.Context, s scheduler, activityType string, h wire.CallHeader) observe.Call {
	c := observe.Call{ActivityType: activityType, Local: s.local(), Class: h.Class, Key: h.IdempotencyKey,
		SingleAttempt: h.SingleAttempt, Budget: h.Budget, BudgetBound: h.BudgetBound,
		MaxTokens: h.Spend.MaxTokens, Model: h.Spend.Model}
	if s.local() {
		o.localCalls++
		c.Seq = o.localCalls
	} else {
		o.calls++
		c.Seq = o.calls
	}
	if h.Idempotency != "" {
		_ = c.Idempotency.UnmarshalText([]byte(h.Idempotency))
	}
	if h.Owner.Call != "" {
		c.Owner = &observe.Owner{WorkflowID: h.Owner.WorkflowID, RunID: h.Owner.RunID, Delegation: h.Owner.Delegation, Call: h.Owner.Call}
	}
	s.describe(ctx, &c)
	return c
}

// nextSeq is the number planned gives the call about to be scheduled with
// s, so that its header names the call as its CallPlanned does.
func (o *workflowOutbound) nextSeq(s scheduler) int {
	if s.local() {
		return o.localCalls + 1
	}
	return o.calls + 1
}

// rootOf is the workflow ID of the root of the run's family, "" for a run
// that is its own root.
func rootOf(ctx workflow.Context) string {
	if root := workflow.GetInfo(ctx).RootWorkflowExecution; root != nil && root.ID != workflow.GetInfo(ctx).WorkflowExecution.ID {
		return root.ID
	}
	return ""
}

// describeRetry fills c with rp's attempts and backoff, with the server's
// defaults for what rp leaves unset.
func describeRetry(c *observe.Call, rp *temporal.RetryPolicy) {
	c.InitialInterval, c.BackoffCoefficient = time.Second, 2
	if rp != nil {
		c.MaxAttempts = int(rp.MaximumAttempts)
		if rp.InitialInterval > 0 {
			c.InitialInterval = rp.InitialInterval
		}
		if rp.BackoffCoefficient > 0 {
			c.BackoffCoefficient = rp.BackoffCoefficient
		}
		c.MaxInterval = rp.MaximumInterval
	}
	if c.MaxInterval <= 0 {
		c.MaxInterval = 100 * c.InitialInterval
	}
}

// writeHeader puts h in the call's Temporal header.
func (i *kitInterceptor) writeHeader(ctx workflow.Context, h wire.CallHeader) error {
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil {
		return errors.New("no header to write the call to")
	}
	payload, err := i.encodeHeader(h)
	if err != nil {
		return err
	}
	fields[wire.HeaderKey] = payload
	return nil
}

// workflowDeadline is what is left, from now, of the workflow's own deadline
// (its run or execution timeout, from this run's start); zero for none.
// Workflow time only: the same on replay. A planned call's ScheduleToClose
// is capped at it, so that the activity side reads the call's whole deadline
// from its own activity.Info and never schedules a retry the workflow cannot
// wait for.
func workflowDeadline(ctx workflow.Context) time.Duration {
	info := workflow.GetInfo(ctx)
	var deadline time.Duration
	for _, timeout := range []time.Duration{info.WorkflowRunTimeout, info.WorkflowExecutionTimeout} {
		if timeout <= 0 {
			continue
		}
		// At least a millisecond: zero would read as no deadline at all,
		// and the server keeps timeouts in milliseconds.
		left := max(info.WorkflowStartTime.Add(timeout).Sub(workflow.Now(ctx)), time.Millisecond)
		if deadline <= 0 || left < deadline {
			deadline = left
		}
	}
	return deadline
}

// capped is scheduleToClose capped at deadline; either may be zero for none.
func capped(scheduleToClose, deadline time.Duration) time.Duration {
	if deadline > 0 && (scheduleToClose <= 0 || deadline < scheduleToClose) {
		return deadline
	}
	return scheduleToClose
}

// misconfigured is the error of a call the kit refuses to schedule because
// it is set up wrong: a non-retryable ApplicationError of type
// temporaladk.TypeMisconfigured whose message is one sentence naming the call and what
// to change, so that a workflow that returns it fails typed, never as the
// SDK's retryable wrapper of a plain error.
func misconfigured(s scheduler, activityType string, err error) error {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "temporaladk: "), "policies: ")
	return misconfiguredCall(fmt.Sprintf("temporaladk: %s %s was not scheduled: %s", s.kind(), activityType, msg))
}

func failedFuture(ctx workflow.Context, err error) workflow.Future {
	f, s := workflow.NewFuture(ctx)
	s.SetError(err)
	return f
}

type remoteScheduler struct {
	out interceptor.WorkflowOutboundInterceptor
}

func (remoteScheduler) kind() string { return "activity" }
func (remoteScheduler) local() bool  { return false }

func (remoteScheduler) callerRetry(ctx workflow.Context) *temporal.RetryPolicy {
	return workflow.GetActivityOptions(ctx).RetryPolicy
}

func (remoteScheduler) apply(ctx workflow.Context, pl policies.Plan, deadline time.Duration, summary string) (workflow.Context, error) {
	opts, err := policies.Apply(workflow.GetActivityOptions(ctx), pl)
	if err != nil {
		return ctx, err
	}
	if pl.Class != "" && opts.Summary == "" {
		opts.Summary = summary
	}
	opts.ScheduleToCloseTimeout = capped(opts.ScheduleToCloseTimeout, deadline)
	return workflow.WithActivityOptions(ctx, opts), nil
}

func (remoteScheduler) bound(ctx workflow.Context, most int) (workflow.Context, bool) {
	opts := workflow.GetActivityOptions(ctx)
	var bounded bool
	opts.RetryPolicy, bounded = policies.BoundAttempts(opts.RetryPolicy, most)
	return workflow.WithActivityOptions(ctx, opts), bounded
}

func (remoteScheduler) describe(ctx workflow.Context, c *observe.Call) {
	opts := workflow.GetActivityOptions(ctx)
	c.StartToClose, c.ScheduleToClose, c.ScheduleToStart, c.Heartbeat = opts.StartToCloseTimeout, opts.ScheduleToCloseTimeout, opts.ScheduleToStartTimeout, opts.HeartbeatTimeout
	describeRetry(c, opts.RetryPolicy)
}

func (r remoteScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return r.out.ExecuteActivity(ctx, activityType, replayed(ctx, args)...)
}

// replayedArgs is what the kit hands the SDK, in place of a call's
// arguments, when the workflow code schedules an activity or starts a child
// while it replays history: the SDK matches the command that makes with the
// history's event by activity or workflow ID and type, never by input
// (isCommandMatchEvent, v1.51.0), and sends it nowhere, but it encodes the
// input and keeps the command until the workflow task ends. A worker that
// takes a long conversation over (a deploy, a restart, an evicted sticky
// cache) replays every turn in one workflow task: encoding the whole
// conversation again for each turn cost it time and memory that grew with
// the square of the turns. Local activities keep their arguments: one
// whose marker is not in history yet runs again from them.
type replayedArgs struct {
	// Omitted is how many arguments the call had.
	Omitted int `json:"omitted"`
}

// replayed is args, or their stand-in while ctx replays history.
func replayed(ctx workflow.Context, args []any) []any {
	if !workflow.IsReplaying(ctx) {
		return args
	}
	return []any{replayedArgs{Omitted: len(args)}}
}

type localScheduler struct {
	out interceptor.WorkflowOutboundInterceptor
}

func (localScheduler) kind() string { return "local activity" }
func (localScheduler) local() bool  { return true }

func (localScheduler) callerRetry(ctx workflow.Context) *temporal.RetryPolicy {
	return workflow.GetLocalActivityOptions(ctx).RetryPolicy
}

func (localScheduler) apply(ctx workflow.Context, pl policies.Plan, deadline time.Duration, summary string) (workflow.Context, error) {
	opts, err := policies.ApplyLocal(workflow.GetLocalActivityOptions(ctx), pl)
	if err != nil {
		return ctx, err
	}
	if pl.Class != "" && opts.Summary == "" {
		opts.Summary = summary
	}
	opts.ScheduleToCloseTimeout = capped(opts.ScheduleToCloseTimeout, deadline)
	return workflow.WithLocalActivityOptions(ctx, opts), nil
}

func (localScheduler) bound(ctx workflow.Context, _ int) (workflow.Context, bool) { return ctx, false }

func (localScheduler) describe(ctx workflow.Context, c *observe.Call) {
	opts := workflow.GetLocalActivityOptions(ctx)
	c.StartToClose, c.ScheduleToClose = opts.StartToCloseTimeout, opts.ScheduleToCloseTimeout
	describeRetry(c, opts.RetryPolicy)
}

func (l localScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return l.out.ExecuteLocalActivity(ctx, activityType, args...)
}
