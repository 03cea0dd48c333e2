package interceptors

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// InterceptWorkflow wraps the workflow's outbound calls.
func (i *Interceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &workflowInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, root: i}
}

type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	root *Interceptor
}

func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return w.Next.Init(&workflowOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, root: w.root})
}

// ExecuteWorkflow runs the workflow; a kit error it returns crosses to the
// client as an ApplicationError with its type and fields, as an activity's
// does, instead of a bare message.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	result, err := w.Next.ExecuteWorkflow(ctx, in)
	return result, temporaladk.ToApplicationError(err, temporaladk.ConvertOptions{})
}

type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	root *Interceptor
}

// plan is what the kit decided for one call.
type plan struct {
	class         temporaladk.Class
	policy        policies.ActivityPolicy
	idempotency   temporaladk.Idempotency
	key           string
	singleAttempt bool
}

// attemptKey marks the context of one attempt of a call whose retries the
// workflow drives, so that the interceptor does not plan it twice.
type attemptKey struct{}

type attemptMark struct {
	plan     *plan
	attempt  int
	deadline time.Time
}

// planCall decides the class, policy, idempotency and key of a call, or
// returns nil when the call is not the kit's to touch.
func (i *Interceptor) planCall(ctx workflow.Context, activityType string, args []any) (*plan, error) {
	decl, declared := i.activities[activityType]
	class, tagged := temporaladk.ClassFrom(ctx)
	switch {
	case tagged:
		if !class.Valid() {
			return nil, fmt.Errorf("temporaladk: activity %s is tagged with class %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", activityType, class)
		}
	case declared && decl.Class != "":
		class = decl.Class
	case i.defaultClass != "":
		class = i.defaultClass
	default:
		return nil, nil
	}
	base := i.policies[class]
	p := base
	if declared && decl.Timeout > 0 {
		var err error
		if p, err = policies.ActivityPolicyFor(class, decl.Timeout, &base); err != nil {
			return nil, fmt.Errorf("temporaladk: activity %s: %w", activityType, err)
		}
	}
	pl := &plan{class: class, policy: p}
	if declared {
		pl.idempotency = decl.Idempotency
	}
	if key, ok := temporaladk.IdempotencyKeyFrom(ctx); ok {
		pl.key = key
	} else if declared && len(decl.KeyFields) > 0 {
		key, err := deriveKey(ctx, activityType, decl.KeyFields, args)
		if err != nil {
			return nil, fmt.Errorf("temporaladk: activity %s: %w", activityType, err)
		}
		pl.key = key
	}
	// The idempotency rules speak of tools: a TOOL call, or any call whose
	// declaration says it is effectful, gets one attempt without a key.
	if class == temporaladk.Tool || (declared && decl.Idempotency == temporaladk.Effectful) {
		pl.singleAttempt = policies.AttemptsForTool(p, pl.idempotency, pl.key != "") == 1
	}
	return pl, nil
}

func deriveKey(ctx workflow.Context, activityType string, keyFields []string, args []any) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("key fields are declared but the call has no argument")
	}
	info := workflow.GetInfo(ctx)
	tenant, ok := temporaladk.TenantFrom(ctx)
	if !ok {
		tenant = info.Namespace
	}
	// The run is the workflow ID with the first run of its chain, so that
	// the key survives continue-as-new and workflow retries but not the reuse
	// of a workflow ID by a later run.
	run := info.WorkflowExecution.ID + "/" + info.FirstRunID
	return temporaladk.DeriveIdempotencyKey(temporaladk.KeyScope{Tenant: tenant, Run: run, Tool: activityType}, args[0], keyFields)
}

func failedFuture(ctx workflow.Context, err error) workflow.Future {
	f, s := workflow.NewFuture(ctx)
	s.SetError(err)
	return f
}

// indeterminateOnTimeout returns a future that settles as f does, except
// that a timeout of an effectful call's only attempt becomes an
// *temporaladk.IndeterminateOutcomeError: the worker may have changed the
// world and died before saying so, and the call must not be repeated
// blindly. The coroutine adds no command.
func indeterminateOnTimeout(ctx workflow.Context, activityType string, f workflow.Future) workflow.Future {
	future, settable := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		settleSingleAttempt(settable, activityType, f, f.Get(gctx, nil))
	})
	return future
}

// settleSingleAttempt settles settable with f's outcome, turning a timeout
// after the attempt may have started into an IndeterminateOutcomeError. A
// ScheduleToStart timeout is passed on: the attempt never started.
func settleSingleAttempt(settable workflow.Settable, activityType string, f workflow.Future, err error) {
	var timeout *temporal.TimeoutError
	if err != nil && errors.As(err, &timeout) && timeout.TimeoutType() != enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START {
		settable.SetError(&temporaladk.IndeterminateOutcomeError{
			Tool:   activityType,
			Reason: fmt.Sprintf("its only attempt timed out (%s): it may have made its effect before the worker was lost", timeoutName(timeout)),
			Cause:  err,
		})
		return
	}
	settable.Chain(f)
}

func timeoutName(t *temporal.TimeoutError) string {
	switch t.TimeoutType() {
	case enumspb.TIMEOUT_TYPE_START_TO_CLOSE:
		return "StartToClose"
	case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
		return "ScheduleToClose"
	case enumspb.TIMEOUT_TYPE_HEARTBEAT:
		return "Heartbeat"
	case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
		return "ScheduleToStart"
	}
	return t.TimeoutType().String()
}

func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.schedule(ctx, remoteScheduler{o.Next}, activityType, args)
}

func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.schedule(ctx, localScheduler{o.Next}, activityType, args)
}

// scheduler is what differs between an activity and a local activity: their
// options types, and the call that schedules them.
type scheduler interface {
	// kind names the call in errors: "activity" or "local activity".
	kind() string
	// apply writes p into the call's options on ctx (see policies.Apply)
	// and returns ctx with the retry policy and ScheduleToClose the call got.
	apply(ctx workflow.Context, p policies.ActivityPolicy, singleAttempt bool, summary string) (workflow.Context, *temporal.RetryPolicy, time.Duration, error)
	// oneAttempt sets the options of one attempt of a call whose retries
	// the workflow drives: MaximumAttempts 1 at the server and the rest of
	// the deadline as ScheduleToClose. It returns the call's retry policy
	// with its own MaximumAttempts, for the header.
	oneAttempt(ctx workflow.Context, deadline time.Time) (workflow.Context, *temporal.RetryPolicy)
	// next schedules the call with the next interceptor.
	next(ctx workflow.Context, activityType string, args []any) workflow.Future
	// reenter schedules the call through the whole chain again, for each
	// attempt the workflow drives.
	reenter(ctx workflow.Context, activityType string, args []any) workflow.Future
}

// schedule plans a call, writes its options and header, and schedules it:
// once, or attempt by attempt under a budget.
func (o *workflowOutbound) schedule(ctx workflow.Context, s scheduler, activityType string, args []any) workflow.Future {
	if mark, ok := ctx.Value(attemptKey{}).(*attemptMark); ok && mark != nil {
		ctx, rp := s.oneAttempt(ctx, mark.deadline)
		if err := writeHeader(interceptor.WorkflowHeader(ctx), o.root.header(mark.plan, rp, mark.attempt, mark.deadline)); err != nil {
			return failedFuture(ctx, err)
		}
		return s.next(ctx, activityType, args)
	}
	pl, err := o.root.planCall(ctx, activityType, args)
	if err != nil {
		return failedFuture(ctx, err)
	}
	if pl == nil {
		return s.next(ctx, activityType, args)
	}
	ctx, rp, scheduleToClose, err := s.apply(ctx, pl.policy, pl.singleAttempt, pl.class.Lower()+": "+activityType)
	if err != nil {
		return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err))
	}
	if run, pool := temporaladk.RunBudgetFrom(ctx), temporaladk.AttemptBudgetFrom(ctx); run != nil || pool != nil {
		return o.drive(ctx, pl, run, pool, rp, scheduleToClose, activityType, func(actx workflow.Context) workflow.Future {
			return s.reenter(actx, activityType, args)
		})
	}
	if err := writeHeader(interceptor.WorkflowHeader(ctx), o.root.header(pl, rp, 0, time.Time{})); err != nil {
		return failedFuture(ctx, err)
	}
	f := s.next(ctx, activityType, args)
	if pl.singleAttempt {
		return indeterminateOnTimeout(ctx, activityType, f)
	}
	return f
}

// oneAttemptPolicy returns the retry policy of one workflow-driven attempt
// (MaximumAttempts 1, never-retryable types) and the call's own, for the
// header.
func oneAttemptPolicy(rp *temporal.RetryPolicy) (attempt, call *temporal.RetryPolicy) {
	call = policies.WithNeverRetryable(rp)
	one := *call
	one.MaximumAttempts = 1
	return &one, call
}

type remoteScheduler struct {
	out interceptor.WorkflowOutboundInterceptor
}

func (remoteScheduler) kind() string { return "activity" }

func (r remoteScheduler) apply(ctx workflow.Context, p policies.ActivityPolicy, singleAttempt bool, summary string) (workflow.Context, *temporal.RetryPolicy, time.Duration, error) {
	opts, err := policies.Apply(workflow.GetActivityOptions(ctx), p, singleAttempt)
	if err != nil {
		return ctx, nil, 0, err
	}
	if opts.Summary == "" {
		opts.Summary = summary
	}
	return workflow.WithActivityOptions(ctx, opts), opts.RetryPolicy, opts.ScheduleToCloseTimeout, nil
}

func (r remoteScheduler) oneAttempt(ctx workflow.Context, deadline time.Time) (workflow.Context, *temporal.RetryPolicy) {
	opts := workflow.GetActivityOptions(ctx)
	one, call := oneAttemptPolicy(opts.RetryPolicy)
	opts.RetryPolicy = one
	if !deadline.IsZero() {
		opts.ScheduleToCloseTimeout = deadline.Sub(workflow.Now(ctx))
	}
	return workflow.WithActivityOptions(ctx, opts), call
}

func (r remoteScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return r.out.ExecuteActivity(ctx, activityType, args...)
}

func (remoteScheduler) reenter(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return workflow.ExecuteActivity(ctx, activityType, args...)
}

type localScheduler struct {
	out interceptor.WorkflowOutboundInterceptor
}

func (localScheduler) kind() string { return "local activity" }

func (l localScheduler) apply(ctx workflow.Context, p policies.ActivityPolicy, singleAttempt bool, summary string) (workflow.Context, *temporal.RetryPolicy, time.Duration, error) {
	opts, err := policies.ApplyLocal(workflow.GetLocalActivityOptions(ctx), p, singleAttempt)
	if err != nil {
		return ctx, nil, 0, err
	}
	if opts.Summary == "" {
		opts.Summary = summary
	}
	return workflow.WithLocalActivityOptions(ctx, opts), opts.RetryPolicy, opts.ScheduleToCloseTimeout, nil
}

func (l localScheduler) oneAttempt(ctx workflow.Context, deadline time.Time) (workflow.Context, *temporal.RetryPolicy) {
	opts := workflow.GetLocalActivityOptions(ctx)
	one, call := oneAttemptPolicy(opts.RetryPolicy)
	opts.RetryPolicy = one
	if !deadline.IsZero() {
		opts.ScheduleToCloseTimeout = deadline.Sub(workflow.Now(ctx))
	}
	return workflow.WithLocalActivityOptions(ctx, opts), call
}

func (l localScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return l.out.ExecuteLocalActivity(ctx, activityType, args...)
}

func (localScheduler) reenter(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return workflow.ExecuteLocalActivity(ctx, activityType, args...)
}

func (i *Interceptor) header(pl *plan, rp *temporal.RetryPolicy, attempt int, deadline time.Time) CallHeader {
	h := CallHeader{
		Class:              pl.class,
		IdempotencyKey:     pl.key,
		MaxAttempts:        int(rp.MaximumAttempts),
		InitialInterval:    rp.InitialInterval,
		BackoffCoefficient: rp.BackoffCoefficient,
		MaxInterval:        rp.MaximumInterval,
		MaxRetryAfter:      pl.policy.Retry.MaxRetryAfter,
		Attempt:            attempt,
		Deadline:           deadline,
	}
	if pl.idempotency != temporaladk.Undeclared {
		h.Idempotency = pl.idempotency.String()
	}
	// A caller's retry policy may leave these to the server's defaults.
	if h.InitialInterval <= 0 {
		h.InitialInterval = time.Second
	}
	if h.BackoffCoefficient < 1 {
		h.BackoffCoefficient = 2
	}
	return h
}

// drive runs a call whose retries the workflow drives because a budget is
// attached: each attempt is charged before it is scheduled, scheduled with
// MaximumAttempts 1, and followed, when it failed retryably, by the wait the
// activity chose, on a workflow timer. Everything here is workflow code:
// deterministic, no randomness, no clock but workflow.Now.
func (o *workflowOutbound) drive(
	ctx workflow.Context, pl *plan, run *temporaladk.RunBudget, pool *temporaladk.AttemptBudget,
	rp *temporal.RetryPolicy, scheduleToClose time.Duration, activityType string, execute func(workflow.Context) workflow.Future,
) workflow.Future {
	future, settable := workflow.NewFuture(ctx)
	maxAttempts := int(rp.MaximumAttempts)
	nonRetryable := policies.WithNeverRetryable(rp).NonRetryableErrorTypes
	var deadline time.Time
	if scheduleToClose > 0 {
		deadline = workflow.Now(ctx).Add(scheduleToClose)
	}
	workflow.Go(ctx, func(gctx workflow.Context) {
		for attempt := 1; ; attempt++ {
			if err := temporaladk.ChargeAttempt(run, pool, attempt); err != nil {
				o.root.countRefusal(gctx, pl.class, err)
				settable.SetError(err)
				return
			}
			actx := workflow.WithValue(gctx, attemptKey{}, &attemptMark{plan: pl, attempt: attempt, deadline: deadline})
			f := execute(actx)
			err := f.Get(gctx, nil)
			if err == nil || (maxAttempts > 0 && attempt >= maxAttempts) || !retryableOnWorkflow(err, nonRetryable) {
				if pl.singleAttempt {
					settleSingleAttempt(settable, activityType, f, err)
				} else {
					settable.Chain(f)
				}
				return
			}
			delay := nextDelay(err, pl.policy.Retry, attempt)
			if !deadline.IsZero() && !workflow.Now(gctx).Add(delay).Before(deadline) {
				settable.Chain(f)
				return
			}
			if delay > 0 {
				if serr := workflow.Sleep(gctx, delay); serr != nil {
					settable.SetError(serr)
					return
				}
			}
		}
	})
	return future
}

// retryableOnWorkflow mirrors the server's retry decision for one failed
// attempt: a non-retryable ApplicationError, a type in nonRetryable, a
// cancellation and a ScheduleToClose timeout end the call; everything else
// (retryable errors, StartToClose and heartbeat timeouts, panics) is worth
// another attempt.
func retryableOnWorkflow(err error, nonRetryable []string) bool {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return false
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		if app.NonRetryable() {
			return false
		}
		for _, t := range nonRetryable {
			if app.Type() == t {
				return false
			}
		}
		return true
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return timeout.TimeoutType() != enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE
	}
	return true
}

// nextDelay returns the wait before the next attempt: the one the activity
// chose (NextRetryDelay, drawn with jitter inside the activity), or, when the
// activity is not served by the kit, the backoff window itself: workflow code
// draws no randomness.
func nextDelay(err error, retry policies.RetryConfig, attempt int) time.Duration {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NextRetryDelay() > 0 {
		return app.NextRetryDelay()
	}
	return retry.BackoffWindow(attempt)
}
