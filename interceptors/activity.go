package interceptors

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/internal/kitcore"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// minNextRetryDelay stands in for a drawn wait of zero: Temporal reads a
// NextRetryDelay of zero as "not set" and would fall back to its own backoff,
// which is not the schedule the activity drew.
const minNextRetryDelay = time.Millisecond

// InterceptActivity wraps the activity's inbound calls.
func (i *kitInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &activityInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, root: i}
}

type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	root *kitInterceptor
}

// kitActivityKey is the key of the kit interceptor that serves an activity,
// on the context it hands the activity: an inner kit interceptor finds it
// there.
type kitActivityKey struct{}

func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if outer, ok := ctx.Value(kitActivityKey{}).(*kitInterceptor); ok {
		// The kit registered twice serves the attempt once, from outside.
		if outer != a.root {
			return nil, misconfiguredCall("temporaladk: " + ErrRegisteredTwice.Error())
		}
		return a.Next.ExecuteActivity(ctx, in)
	}
	if !a.root.configured.Load() {
		return nil, misconfiguredCall(errUnconfigured.Error())
	}
	ctx = context.WithValue(ctx, kitActivityKey{}, a.root)
	info := activity.GetInfo(ctx)
	h, ok, herr := a.root.readHeader(ctx)
	attempt := attemptOf(info, h, ok && herr == nil)
	a.root.notify.attemptStarted(ctx, attempt)
	result, err := a.serve(a.root.notify.withText(ctx, attempt), in, info, h, ok, herr)
	a.root.notify.attemptEnded(ctx, attempt, err)
	return result, err
}

// serve serves one attempt: the approval grant it needs, the charge it
// needs before it runs, then the user's code with the kit's heartbeats and
// keys, and the conversion of its error. h and ok are the call's header and
// whether it had one; herr is the header's decoding error.
func (a *activityInbound) serve(ctx context.Context, in *interceptor.ExecuteActivityInput, info activity.Info, h wire.CallHeader, ok bool, herr error) (any, error) {
	if err := a.root.checkGrant(ctx, info, in.Args); err != nil {
		return nil, err
	}
	if herr != nil {
		return nil, badCallHeader(herr.Error())
	}
	attempt := int(info.Attempt)
	if attempt > 1 && a.root.singleAttempt(info, h) {
		// The server scheduled a retry the kit allows no call of this kind:
		// the retry policy came from a workflow worker without the kit, or
		// with other declarations. The first attempt may have made its
		// effect, so this one does not run, and nothing is charged for it.
		return nil, retryRefused(fmt.Sprintf(
			"temporaladk: activity %s gets one attempt (a tool treated as effectful, called without an idempotency key) and this is attempt %d: refused before it runs, since the first may have made its effect. Its retry policy allowed more, so the workflow worker that scheduled it runs without the kit or with other declarations: register the kit's plugin with the same Options.Activities there%s",
			info.ActivityType.Name, attempt, a.root.fleet.reason()))
	}
	if ok && charge.StartCharged(h, attempt) {
		// An attempt is charged before it runs: a retry against the run's
		// own budgets (its first attempt was charged in workflow code), and
		// every attempt at its family's root when it has an owner. The
		// attempt before asked for the charge already when it failed; asking
		// again is the same charge. An attempt that died without asking is
		// charged here.
		refused, cerr := a.root.charges.Start(ctx, info, h, attempt)
		if cerr != nil {
			activity.GetLogger(ctx).Warn("temporaladk: the attempt could not be charged; it does not run", "error", cerr)
			return nil, unchargedError(cerr, nil)
		}
		if refused != nil {
			return nil, vocab.ToApplicationError(refused, vocab.ConvertOptions{Final: true})
		}
	}
	if !ok || h.Class == "" {
		// No header: the workflow task ran on a worker without the kit.
		return a.root.unplanned(ctx, info, h, a.Next, in, !ok)
	}
	start := a.root.clock.Now()
	metrics := activity.GetMetricsHandler(ctx).WithTags(map[string]string{"class": h.Class.Lower(), "activity_type": info.ActivityType.Name})
	metrics.Counter(observe.MetricAttempts).Inc(1)
	if attempt > 1 {
		metrics.Counter(observe.MetricRetries).Inc(1)
	}
	// No declaration ("") and a name this version does not know both read
	// as Undeclared (UnmarshalText leaves it unchanged on an unknown name):
	// treated as effectful, the expensive direction.
	idempotency := temporaladk.Undeclared
	if h.Idempotency != "" {
		_ = idempotency.UnmarshalText([]byte(h.Idempotency))
	}
	retry := a.root.retryOf(ctx, info, h)
	call := temporaladk.ActivityCall{
		Class:          h.Class,
		Idempotency:    idempotency,
		IdempotencyKey: h.IdempotencyKey,
		Attempt:        attempt,
		MaxAttempts:    retry.attempts,
	}
	var stopBeating func()
	// Any heartbeat window the kit can beat in gets its beats; no window, no
	// beat. Local activities do not heartbeat.
	if kitcore.CanBeat(info.HeartbeatTimeout) && !info.IsLocalActivity {
		beats := metrics.Counter(observe.MetricHeartbeats)
		hb, herr := temporaladk.NewHeartbeater(func(beat temporaladk.Heartbeat) {
			activity.RecordHeartbeat(ctx, beat)
			beats.Inc(1)
		}, info.HeartbeatTimeout, a.root.clock, info.ActivityType.Name)
		if herr != nil {
			return nil, herr
		}
		call.Heartbeater = hb
		beatCtx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { hb.Run(beatCtx) })
		// No beat may follow the activity's return.
		stopBeating = func() { cancel(); wg.Wait() }
	}

	runCtx, usage := charge.RecordUsage(ctx, h)
	result, err := a.Next.ExecuteActivity(vocab.WithActivityCall(runCtx, call), in)
	if stopBeating != nil {
		stopBeating()
	}
	a.root.charges.Settle(ctx, info, h, attempt, usage, err == nil)
	if err == nil {
		return result, nil
	}
	if h.SingleAttempt && errors.Is(err, context.DeadlineExceeded) {
		// The only attempt of an effectful call ran into its deadline: it
		// may have made its effect, as if the worker had been lost.
		err = &temporaladk.IndeterminateOutcomeError{Tool: info.ActivityType.Name, Reason: "its only attempt ran into its deadline: it may have made its effect", Cause: err}
	}
	if final := a.root.oneAttemptFinal(ctx, info, h, retry, err); final != nil {
		return result, final
	}
	return result, a.root.activityError(ctx, info, h, retry, a.root.clock.Now().Sub(start), err, metrics)
}

// singleAttempt reports whether the call gets one attempt only: its header
// says so, or this worker's own declaration of its activity type makes it a
// tool treated as effectful (policies.PlanCall, the one decision of a
// call's attempts) and the call carries no idempotency key. A call that
// arrived without the kit's header is planned from the declaration alone.
func (i *kitInterceptor) singleAttempt(info activity.Info, h wire.CallHeader) bool {
	if h.SingleAttempt {
		return true
	}
	d, declared := i.activities[info.ActivityType.Name]
	if !declared {
		return false
	}
	pl, planned, err := policies.PlanCall(policies.Call{ActivityType: info.ActivityType.Name, Tag: h.Class, Declaration: &d,
		DefaultClass: i.defaultClass, Policies: i.policies, HasKey: h.IdempotencyKey != ""})
	return err == nil && planned && pl.SingleAttempt
}

// unplanned serves a call the kit did not plan: one it left alone, or one
// that arrived without the kit's header because its workflow task ran on a
// worker without the kit (headerless). It runs as it is; a never-retryable
// kit error it returns is still marked non-retryable, so that no setting and
// no deploy order retries one. A headerless call is counted, and logged once
// per workflow type, so that a mixed fleet is visible.
func (i *kitInterceptor) unplanned(ctx context.Context, info activity.Info, h wire.CallHeader, next interceptor.ActivityInboundInterceptor, in *interceptor.ExecuteActivityInput, headerless bool) (any, error) {
	if headerless {
		i.countHeaderless(ctx, info)
	}
	result, err := next.ExecuteActivity(ctx, in)
	if err == nil {
		return result, nil
	}
	retry := i.retryOf(ctx, info, h)
	if final := i.oneAttemptFinal(ctx, info, h, retry, err); final != nil {
		return result, final
	}
	if refused := i.budgetsLastAttempt(ctx, info, h, retry, err); refused != nil {
		return result, refused
	}
	if _, kit := temporaladk.AsError(err); !kit {
		return result, err
	}
	return result, vocab.ToApplicationError(err, vocab.ConvertOptions{Final: !policies.Retryable(err)})
}

// oneAttemptFinal makes the failure err of a call that gets one attempt
// final where the call's retry policy would retry it: the workflow worker
// that scheduled it ran without the kit, or with other declarations, so the
// policy allows more attempts than the kit's plan for this worker's
// declaration (singleAttempt). The attempt may have made its effect; a retry
// would be refused before it ran (TemporaladkRetryRefused), but the server
// would still schedule it, and history would show a retry of an effectful
// call. The failure keeps its type and its fields (a kit error is converted
// as always, with NonRetryable set; any other error travels whole as the
// cause of an ApplicationError of its own type), and a warning names the
// mistake. It returns nil when that is not the case.
func (i *kitInterceptor) oneAttemptFinal(ctx context.Context, info activity.Info, h wire.CallHeader, retry callRetry, err error) error {
	if retry.attempts == 1 || int(info.Attempt) >= retry.attempts && retry.attempts > 0 ||
		!retriedByTemporal(err, info.RetryPolicy) || !i.singleAttempt(info, h) {
		return nil
	}
	activity.GetLogger(ctx).Warn(fmt.Sprintf("temporaladk: activity %s gets one attempt (a tool treated as effectful, called without an idempotency key), and its retry policy allows %s: its failure is made final here, so that the server schedules no retry. The workflow worker that scheduled it runs without the kit or with other declarations: register the kit's plugin with the same Options.Activities there%s",
		info.ActivityType.Name, attemptsText(retry.attempts), i.fleet.reason()), "error", err, "workflow_queue", schedulingQueue(ctx, info))
	if _, kit := temporaladk.AsError(err); kit {
		return vocab.ToApplicationError(err, vocab.ConvertOptions{Final: true})
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return temporal.NewApplicationErrorWithOptions(err.Error(), app.Type(), temporal.ApplicationErrorOptions{NonRetryable: true, Cause: err})
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), sdkErrorType(err), temporal.ApplicationErrorOptions{NonRetryable: true, Cause: err})
}

// sdkErrorType is the type the SDK records for an error that is not an
// ApplicationError: its Go type's name, pointers dereferenced, and "" for
// errors.New's.
func sdkErrorType(err error) string {
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "errorString" {
		return ""
	}
	return t.Name()
}

// describeTimeout bounds the one DescribeWorkflowExecution schedulingQueue
// makes: a refusal's message is not worth a long wait.
const describeTimeout = 5 * time.Second

// schedulingQueue names, for a refusal's message, the task queue of the
// workflow that scheduled the attempt: the queue whose workflow workers
// lack the kit, which is not the activity's when the workflow schedules it
// elsewhere. The activity's task does not carry it, so the server is asked,
// once, on a refusal only. Where it cannot be read (no client, as in the
// SDK's test environment, or the server does not answer) the activity's
// queue is named as what it is.
func schedulingQueue(ctx context.Context, info activity.Info) string {
	if c := activity.GetClient(ctx); c != nil && !nilPointer(c) {
		dctx, cancel := context.WithTimeout(ctx, describeTimeout)
		defer cancel()
		desc, err := c.DescribeWorkflowExecution(dctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID)
		if q := desc.GetExecutionConfig().GetTaskQueue().GetName(); err == nil && q != "" {
			return fmt.Sprintf("task queue %q (the workflow's)", q)
		}
	}
	return fmt.Sprintf("the workflow's task queue (the activity's is %q; the workflow's could not be read)", info.TaskQueue)
}

// nilPointer reports whether v holds a nil pointer: the SDK's test
// environment hands its activities a client interface holding one.
func nilPointer(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// attemptsText says how many attempts a retry policy allows: "unlimited
// attempts" for 0, else "N attempts".
func attemptsText(n int) string {
	if n == 0 {
		return "unlimited attempts"
	}
	return fmt.Sprintf("%d attempts", n)
}

// countHeaderless records a call that arrived without the kit's header.
func (i *kitInterceptor) countHeaderless(ctx context.Context, info activity.Info) {
	activity.GetMetricsHandler(ctx).WithTags(map[string]string{"workflow_type": info.WorkflowType.Name, "activity_type": info.ActivityType.Name}).
		Counter(observe.MetricUnplannedCalls).Inc(1)
	if _, seen := i.unplannedSeen.LoadOrStore(info.WorkflowType.Name, true); !seen {
		activity.GetLogger(ctx).Warn("temporaladk: an activity call arrived without the kit's header: its workflow task ran on a worker without the kit (a mixed fleet?); logged once per workflow type"+i.fleet.reason(),
			"workflow_type", info.WorkflowType.Name, "activity_type", info.ActivityType.Name, "header", wire.HeaderKey)
	}
}

// activityError turns a kit error into the ApplicationError that crosses the
// boundary, with the wait before the next attempt decided by
// policies.DecideWait: drawn here, inside the activity, and fitted to the
// call's deadline. A budgeted call's next attempt is charged before the
// failure is returned; a refusal ends the call with the failure as its
// cause. Errors outside the kit's hierarchy pass unchanged.
func (i *kitInterceptor) activityError(ctx context.Context, info activity.Info, h wire.CallHeader, retry callRetry, ran time.Duration, err error, metrics client.MetricsHandler) error {
	attempt := int(info.Attempt)
	if refused := i.budgetsLastAttempt(ctx, info, h, retry, err); refused != nil {
		return refused
	}
	if _, ok := temporaladk.AsError(err); !ok {
		return err
	}
	in := policies.WaitInput{Err: err, Attempt: attempt, MaxAttempts: retry.attempts, Retry: retry.config, Random: i.random}
	in.HasDeadline, in.Left = leftOf(info, ran)
	decision, derr := policies.DecideWait(in)
	if derr != nil {
		// A Random option that returns numbers outside [0, 1) is a
		// programming error of the caller's; the failure is kept and the
		// server's own schedule applies.
		activity.GetLogger(ctx).Error("temporaladk: jitter draw refused", "error", derr)
		return vocab.ToApplicationError(err, vocab.ConvertOptions{})
	}
	if decision.Source == "" {
		// Not retryable (marked so, whatever the retry policy says), or out
		// of attempts (left to the server, which stops there too).
		return vocab.ToApplicationError(err, vocab.ConvertOptions{Final: !policies.Retryable(err)})
	}
	if !decision.Final && charge.ActivityCharges(h, attempt+1) {
		// Charged now, so that a refusal keeps this failure as its cause. No
		// answer is no refusal: the next attempt asks again before it runs;
		// but a run that can take no charge at all ends the call now.
		remaining, refused, cerr := i.charges.Charge(ctx, info, h, attempt+1)
		switch {
		case cerr != nil && charge.Final(cerr):
			return unchargedError(cerr, err)
		case cerr != nil:
			activity.GetLogger(ctx).Warn("temporaladk: the next attempt could not be charged yet; it will ask before it runs", "error", cerr)
		case refused != nil:
			refused.Cause = err
			return vocab.ToApplicationError(refused, vocab.ConvertOptions{Final: true})
		default:
			decision.BudgetRemaining = remaining
		}
	}
	if decision.Truncated {
		metrics.Counter(observe.MetricTruncatedWaits).Inc(1)
		activity.GetLogger(ctx).Warn("temporaladk: retry wait truncated to the deadline",
			"requested", decision.Requested, "wait", decision.Wait, "reason", decision.Reason)
	}
	if decision.Final {
		activity.GetLogger(ctx).Info("temporaladk: no further attempt", "reason", decision.Reason)
	} else {
		metrics.Timer(observe.MetricRetryWait).Record(decision.Wait)
	}
	return vocab.ToApplicationError(err, vocab.ConvertOptions{NextRetryDelay: max(decision.Wait, minNextRetryDelay), Final: decision.Final, Decision: &decision})
}

// budgetsLastAttempt ends a call whose budgets made this attempt its last
// (CallHeader.BudgetBound: the server holds the call to what they had left)
// and whose failure would be retried otherwise: it asks the charge of the
// next attempt, whose refusal is returned as the call's final error with
// err as its cause, as on a policy the budget did not bound. It returns nil
// when that is not the case, or the charge was not refused.
func (i *kitInterceptor) budgetsLastAttempt(ctx context.Context, info activity.Info, h wire.CallHeader, retry callRetry, err error) error {
	attempt := int(info.Attempt)
	if !h.BudgetBound || retry.attempts < 1 || attempt < retry.attempts || !charge.ActivityCharges(h, attempt+1) || !retriedByTemporal(err, info.RetryPolicy) {
		return nil
	}
	_, refused, cerr := i.charges.Charge(ctx, info, h, attempt+1)
	if cerr != nil || refused == nil {
		return nil
	}
	refused.Cause = err
	return vocab.ToApplicationError(refused, vocab.ConvertOptions{Final: true})
}

// retriedByTemporal reports whether err is a failure the call's retry
// policy would retry, attempts aside: for a failure of the kit's error table,
// the kit's decision (policies.Retryable); for any other error, whether it is
// not a non-retryable ApplicationError and the policy does not list its type
// as non-retryable.
func retriedByTemporal(err error, rp *temporal.RetryPolicy) bool {
	if _, kit := vocab.ErrorTypeOf(err); kit {
		return policies.Retryable(err)
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		if app.NonRetryable() {
			return false
		}
		if rp != nil && slices.Contains(rp.NonRetryableErrorTypes, app.Type()) {
			return false
		}
	}
	return true
}

// unchargedError is the failure of an attempt that could not be charged:
// RunOutOfUpdatesError, BudgetClosedError or ModelUnpricedError,
// non-retryable, when no charge of the run can succeed any more; else
// BudgetUnavailableError, retryable after its row's wait, so that the next
// attempt asks again. failed is the attempt's own failure, or nil for an
// attempt that did not run.
func unchargedError(cerr, failed error) error {
	raise := budgetUnavailable
	switch {
	case errors.Is(cerr, charge.ErrRunOutOfUpdates):
		raise = runOutOfUpdates
	case errors.Is(cerr, charge.ErrBudgetClosed):
		raise = budgetClosed
	case errors.Is(cerr, charge.ErrModelUnpriced):
		raise = modelUnpriced
	}
	// The cause is the attempt's own failure when it ran, so that the
	// failure that asked for the retry stays in the chain; the charge's
	// error is the message (its Go error types would name the failure's
	// cause after themselves, as an SDK failure does).
	return raise(cerr.Error(), failed)
}

// callRetry is the call's retry settings, read once per attempt: its
// attempts (0 for unlimited) and the settings DecideWait draws from.
type callRetry struct {
	attempts int
	config   policies.RetryConfig
}

// retryOf reads the call's retry policy: the activity's, as the server holds
// it (it fills in its defaults for what the policy left unset), or, for an
// activity task without one (the SDK's test environment hands out such
// tasks), the one its retry-policy seam gives (internal/seam); with the header's
// MaxRetryAfter. A task with neither has no retry settings to draw from:
// unlimited attempts, and the SDK's defaults for the waits.
func (i *kitInterceptor) retryOf(ctx context.Context, info activity.Info, h wire.CallHeader) callRetry {
	var rp temporal.RetryPolicy
	switch {
	case info.RetryPolicy != nil:
		rp = *info.RetryPolicy
	case i.retryPolicyOf != nil:
		if p := i.retryPolicyOf(ctx, info); p != nil {
			rp = *p
		}
	}
	return callRetry{
		attempts: int(rp.MaximumAttempts),
		config: policies.RetryConfig{
			MaxAttempts:        max(int(rp.MaximumAttempts), 1),
			InitialInterval:    rp.InitialInterval,
			BackoffCoefficient: rp.BackoffCoefficient,
			MaxInterval:        rp.MaximumInterval,
			MaxRetryAfter:      h.MaxRetryAfter,
		},
	}
}

// leftOf is what is left of the call's overall deadline after this attempt
// ran for ran: its ScheduleToClose (which the workflow side caps at the
// workflow's own deadline), less the time from the first schedule to this
// attempt's start, both stamped by the server, less the time the attempt ran
// on this worker's clock. No instant of one machine is compared with
// another's.
func leftOf(info activity.Info, ran time.Duration) (bool, time.Duration) {
	deadline := info.ScheduleToCloseTimeout
	if deadline <= 0 {
		return false, 0
	}
	var before time.Duration
	if !info.ScheduledTime.IsZero() && info.StartedTime.After(info.ScheduledTime) {
		before = info.StartedTime.Sub(info.ScheduledTime)
	}
	return true, deadline - before - ran
}
