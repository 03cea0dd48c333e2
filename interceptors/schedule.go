package interceptors

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// scheduler is what differs between an activity and a local activity: their
// options types, and the call that schedules them.
type scheduler interface {
	// kind names the call in errors: "activity" or "local activity".
	kind() string
	// apply writes p into the call's options on ctx (see policies.Apply)
	// and returns ctx with the retry policy and ScheduleToClose the call got.
	apply(ctx workflow.Context, p policies.ActivityPolicy, singleAttempt bool, summary string) (workflow.Context, *temporal.RetryPolicy, time.Duration, error)
	// budgeted prepares a call made under a budget. An activity keeps its
	// retries on the server, each charged through the budget Update before
	// it runs. A local activity's retries run inside the worker, out of the
	// workflow's sight, so under a budget it gets the one attempt charged
	// when it is scheduled.
	budgeted(ctx workflow.Context, h *CallHeader, callID string) workflow.Context
	// neverRetryable adds the never-retryable types to the retry policy of
	// a call the kit leaves alone.
	neverRetryable(ctx workflow.Context) workflow.Context
	// next schedules the call with the next interceptor.
	next(ctx workflow.Context, activityType string, args []any) workflow.Future
}

// schedule plans a call, writes its options and header, and schedules it
// once: retries, budgeted or not, are Temporal's own.
func (o *workflowOutbound) schedule(ctx workflow.Context, s scheduler, activityType string, args []any) workflow.Future {
	run, pool := temporaladk.RunBudgetFrom(ctx), temporaladk.AttemptBudgetFrom(ctx)
	budgeted := run != nil || pool != nil
	if budgeted {
		if err := ctx.Err(); err != nil {
			// Nothing is charged and nothing scheduled for a call made on a
			// context that is already cancelled.
			return failedFuture(ctx, temporal.NewCanceledError(fmt.Sprintf("temporaladk: %s %s was not scheduled: its context is cancelled", s.kind(), activityType)))
		}
	}
	pl, planned, err := o.root.planCall(ctx, activityType, args)
	if err != nil {
		return failedFuture(ctx, err)
	}
	// A call the kit leaves alone keeps its options, but for the
	// never-retryable types its retry policy gains (the one rule no setting
	// changes, which then holds on whichever worker its attempts run), and
	// carries a header with no class: the activity side can tell it from a
	// call scheduled by a worker without the kit.
	var h CallHeader
	if !planned {
		ctx = s.neverRetryable(ctx)
	}
	if planned {
		var rp *temporal.RetryPolicy
		var scheduleToClose time.Duration
		ctx, rp, scheduleToClose, err = s.apply(ctx, pl.Policy, pl.SingleAttempt, pl.Class.Lower()+": "+activityType)
		if err != nil {
			return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err))
		}
		h = pl.header(rp, callDeadline(ctx, scheduleToClose))
	}
	if budgeted {
		// Whether a call is charged follows the workflow code (the budget on
		// its context), never the kit's options, which a replay may read
		// changed: a call the kit does not plan is charged too.
		callID, err := o.run.open(ctx, o.root, pl.Class, run, pool)
		if err != nil {
			return failedFuture(ctx, err)
		}
		ctx = s.budgeted(ctx, &h, callID)
	}
	if err := o.root.writeHeader(ctx, h); err != nil {
		return failedFuture(ctx, fmt.Errorf("temporaladk: %s %s: %w", s.kind(), activityType, err))
	}
	f := s.next(ctx, activityType, args)
	if planned && pl.SingleAttempt {
		return indeterminateOnTimeout(ctx, activityType, f)
	}
	return f
}

// writeHeader puts h in the call's Temporal header.
func (i *Interceptor) writeHeader(ctx workflow.Context, h CallHeader) error {
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil {
		return errors.New("no header to write the call to")
	}
	payload, err := i.encodeHeader(h)
	if err != nil {
		return err
	}
	fields[HeaderKey] = payload
	return nil
}

// header is what the activity side needs to know of the call.
func (pl callPlan) header(rp *temporal.RetryPolicy, deadline time.Duration) CallHeader {
	h := CallHeader{
		Class:              pl.Class,
		IdempotencyKey:     pl.key,
		SingleAttempt:      pl.SingleAttempt,
		MaxAttempts:        int(rp.MaximumAttempts),
		InitialInterval:    rp.InitialInterval,
		BackoffCoefficient: rp.BackoffCoefficient,
		MaxInterval:        rp.MaximumInterval,
		MaxRetryAfter:      pl.Policy.Retry.MaxRetryAfter,
		Deadline:           deadline,
	}
	if pl.Idempotency != temporaladk.Undeclared {
		h.Idempotency = pl.Idempotency.String()
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

// callDeadline is the call's overall deadline measured from now: its
// ScheduleToClose, or what is left of the workflow run's own deadline (run
// or execution timeout, from this run's start), whichever is shorter; zero
// for none. Workflow time only: the same on replay.
func callDeadline(ctx workflow.Context, scheduleToClose time.Duration) time.Duration {
	info := workflow.GetInfo(ctx)
	deadline := scheduleToClose
	for _, timeout := range []time.Duration{info.WorkflowRunTimeout, info.WorkflowExecutionTimeout} {
		if timeout <= 0 {
			continue
		}
		// At least a nanosecond: zero would read as no deadline at all.
		left := max(info.WorkflowStartTime.Add(timeout).Sub(workflow.Now(ctx)), time.Nanosecond)
		if deadline <= 0 || left < deadline {
			deadline = left
		}
	}
	return deadline
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

func (remoteScheduler) neverRetryable(ctx workflow.Context) workflow.Context {
	opts := workflow.GetActivityOptions(ctx)
	opts.RetryPolicy = policies.WithNeverRetryable(opts.RetryPolicy)
	return workflow.WithActivityOptions(ctx, opts)
}

func (remoteScheduler) budgeted(ctx workflow.Context, h *CallHeader, callID string) workflow.Context {
	h.Budget = callID
	return ctx
}

func (r remoteScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return r.out.ExecuteActivity(ctx, activityType, args...)
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

// neverRetryable leaves a local activity alone: its attempts run on the
// worker that ran the workflow task, which has the kit, whose activity side
// marks a never-retryable kit error non-retryable.
func (localScheduler) neverRetryable(ctx workflow.Context) workflow.Context { return ctx }

func (localScheduler) budgeted(ctx workflow.Context, h *CallHeader, _ string) workflow.Context {
	opts := workflow.GetLocalActivityOptions(ctx)
	var one temporal.RetryPolicy
	if opts.RetryPolicy != nil {
		one = *opts.RetryPolicy
	}
	one.MaximumAttempts = 1
	opts.RetryPolicy = &one
	h.MaxAttempts = 1
	return workflow.WithLocalActivityOptions(ctx, opts)
}

func (l localScheduler) next(ctx workflow.Context, activityType string, args []any) workflow.Future {
	return l.out.ExecuteLocalActivity(ctx, activityType, args...)
}
