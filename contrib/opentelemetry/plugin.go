package opentelemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// PluginName is the name of the plugin New returns.
const PluginName = "temporaladk-opentelemetry"

// Options configure the plugin.
type Options struct {
	// Kit is the kit's plugin (interceptors.NewPlugin). Required: the plugin
	// places the kit's interceptor between its own, where the order is
	// right (see the package doc), and does everything else the kit's
	// plugin does, so a worker registers this plugin instead of the kit's.
	Kit worker.Plugin
	// Tracing configures the SDK's OpenTelemetry tracing interceptor that
	// the plugin runs (go.temporal.io/sdk/contrib/opentelemetry). If not
	// set, the SDK's defaults: the global tracer provider's tracer
	// "temporal-sdk-go" and its default propagator. Its SpanContextKey must
	// be left unset: the plugin finds the workflow's span under the SDK's
	// own key, as temporalotel.SpanFromWorkflowContext does. Its
	// SpanStarter, if set, starts every span.
	Tracing temporalotel.TracerOptions
}

// Plugin is the kit's plugin with OpenTelemetry tracing: the SDK's tracing
// interceptor outermost, the kit's attribute interceptor, the kit's own, and
// the interceptor that sees the calls the kit refuses in workflow code. It
// does what the kit's plugin does besides (its other methods are the kit
// plugin's).
type Plugin struct {
	worker.Plugin
	tracing interceptor.Interceptor
}

// New checks opts and returns the plugin, for worker.Options.Plugins and
// worker.WorkflowReplayerOptions.Plugins in place of the kit's plugin.
func New(opts Options) (*Plugin, error) {
	if opts.Kit == nil {
		return nil, errors.New("opentelemetry: Options.Kit is required: the kit's plugin, from interceptors.NewPlugin")
	}
	if opts.Tracing.SpanContextKey != nil {
		return nil, errors.New("opentelemetry: Options.Tracing.SpanContextKey must be unset: the plugin reads the workflow's span under the SDK's default key")
	}
	start := opts.Tracing.SpanStarter
	if start == nil {
		start = func(ctx context.Context, t trace.Tracer, name string, o ...trace.SpanStartOption) trace.Span {
			_, span := t.Start(ctx, name, o...)
			return span
		}
	}
	opts.Tracing.SpanStarter = func(ctx context.Context, t trace.Tracer, name string, o ...trace.SpanStartOption) trace.Span {
		span := start(ctx, t, name, o...)
		if strings.HasPrefix(name, runWorkflowPrefix) || strings.HasPrefix(name, handleUpdatePrefix) {
			return &replayedSpan{Span: span}
		}
		return span
	}
	tracing, err := temporalotel.NewTracingInterceptor(opts.Tracing)
	if err != nil {
		return nil, fmt.Errorf("opentelemetry: the SDK's tracing interceptor: %w", err)
	}
	return &Plugin{Plugin: opts.Kit, tracing: tracing}, nil
}

// Name returns PluginName.
func (p *Plugin) Name() string { return PluginName }

// ConfigureWorker adds the interceptors around the kit's and lets the kit's
// plugin configure the worker.
func (p *Plugin) ConfigureWorker(ctx context.Context, o worker.PluginConfigureWorkerOptions) error {
	o.WorkerOptions.Interceptors = append(o.WorkerOptions.Interceptors, p.tracing, &root{})
	if err := p.Plugin.ConfigureWorker(ctx, o); err != nil {
		return err
	}
	o.WorkerOptions.Interceptors = append(o.WorkerOptions.Interceptors, &root{outer: true})
	return nil
}

// ConfigureWorkflowReplayer adds the same interceptors to a replayer, so that
// a replay runs the workflow as the worker did.
func (p *Plugin) ConfigureWorkflowReplayer(ctx context.Context, o worker.PluginConfigureWorkflowReplayerOptions) error {
	o.WorkflowReplayerOptions.Interceptors = append(o.WorkflowReplayerOptions.Interceptors, p.tracing, &root{})
	if err := p.Plugin.ConfigureWorkflowReplayer(ctx, o); err != nil {
		return err
	}
	o.WorkflowReplayerOptions.Interceptors = append(o.WorkflowReplayerOptions.Interceptors, &root{outer: true})
	return nil
}

// The names of the SDK's workflow-side spans that it also starts while
// replaying: a run's, and an Update's (its handler runs again on replay).
const (
	runWorkflowPrefix  = "RunWorkflow:"
	handleUpdatePrefix = "HandleUpdate:"
)

// replayedSpan is the span of a workflow run or of an Update's handler. It is
// ended only when the workflow function, or the handler, returns outside
// replay: one that returns while replaying was ended by the worker that ran
// it live, and one that does not return (its worker evicted the run, or a
// workflow task panicked) will be ended by the worker that finishes it. A
// dropped span is never ended, so it is never exported.
type replayedSpan struct {
	trace.Span
	dropped atomic.Bool
}

// End ends the span unless it is dropped.
func (s *replayedSpan) End(options ...trace.SpanEndOption) {
	if s.dropped.Load() {
		return
	}
	s.Span.End(options...)
}

// dropReplayed drops the span of ctx, if the plugin wraps it, when the code
// it spans did not return or returned while replaying. It runs deferred.
func dropReplayed(ctx workflow.Context, returned *bool) {
	span, _ := temporalotel.SpanFromWorkflowContext(ctx)
	if s, ok := span.(*replayedSpan); ok && (!*returned || workflow.IsReplaying(ctx)) {
		s.dropped.Store(true)
	}
}

// root is one of the plugin's two interceptors. The inner one (outer
// false), listed before the kit's, sets the activity spans' attributes, adds
// the refusals of the kit's charge Update and drops a replayed run's span. The
// outer one, listed after the kit's, is outside the kit's workflow outbound
// calls (the SDK wraps outbound calls in the reverse order), so it sees the
// calls the kit refuses without scheduling them.
type root struct {
	interceptor.WorkerInterceptorBase
	outer bool
}

// InterceptActivity wraps an activity's inbound calls.
func (r *root) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	if r.outer {
		return next
	}
	a := &activityInbound{}
	a.Next = next
	return a
}

// InterceptWorkflow wraps a workflow's inbound and outbound calls.
func (r *root) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	w := &workflowInbound{outer: r.outer}
	w.Next = next
	return w
}

// activityInbound sets the kit's attributes on the RunActivity span the
// SDK's tracing interceptor, outside it, started.
type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
}

// ExecuteActivity sets the call's attributes before the attempt runs and
// the outcome's after: the error it reads is the one the kit's activity
// interceptor, inside this one, converted.
func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return a.Next.ExecuteActivity(ctx, in)
	}
	span.SetAttributes(callAttributes(interceptor.Header(ctx), activity.GetInfo(ctx))...)
	ret, err := a.Next.ExecuteActivity(ctx, in)
	if err != nil {
		span.SetAttributes(outcomeAttributes(err)...)
	}
	return ret, err
}

// workflowInbound holds one run's span and adds the budget refusals to it.
type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	outer bool
	span  trace.Span
}

// Init wraps the outbound calls.
func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	o := &workflowOutbound{in: w}
	o.Next = outbound
	return w.Next.Init(o)
}

// ExecuteWorkflow keeps the run's span and drops it, unended, when the
// workflow function returns while replaying or does not return at all.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	w.span, _ = temporalotel.SpanFromWorkflowContext(ctx)
	returned := false
	if !w.outer {
		defer dropReplayed(ctx, &returned)
	}
	ret, err := w.Next.ExecuteWorkflow(ctx, in)
	returned = true
	return ret, err
}

// ExecuteUpdate drops the handler's span when it runs while replaying, and
// adds an event for each retry the kit's charge Update refused. Nothing is
// added while replaying: the refusal is in history, and its event was added
// when it was decided.
func (w *workflowInbound) ExecuteUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (any, error) {
	if w.outer {
		return w.Next.ExecuteUpdate(ctx, in)
	}
	returned := false
	defer dropReplayed(ctx, &returned)
	ret, err := w.Next.ExecuteUpdate(ctx, in)
	returned = true
	if err != nil || in.Name != interceptors.ChargeUpdateName || workflow.IsReplaying(ctx) || w.span == nil {
		return ret, err
	}
	results, _ := ret.([]interceptors.ChargeResult)
	var reqs []interceptors.ChargeRequest
	if len(in.Args) == 1 {
		reqs, _ = in.Args[0].([]interceptors.ChargeRequest)
	}
	for i, res := range results {
		if res.Refused == nil || i >= len(reqs) {
			continue
		}
		attrs := append(refusalAttributes(res.Refused),
			attribute.String(AttrBudgetCall, reqs[i].Call),
			attribute.Int(AttrBudgetRefusedAttempt, reqs[i].Attempt))
		// The event is a side output, not a command: it is added only
		// outside replay, stamped with workflow time.
		//workflowguard:ignore ADK-W005 a span event outside replay, stamped with workflow.Now; the SDK's own clock read is never reached with a timestamp given
		w.span.AddEvent(EventBudgetRefused, trace.WithAttributes(attrs...), trace.WithTimestamp(workflow.Now(ctx)))
	}
	return ret, err
}

// workflowOutbound adds an event for a call whose first attempt a budget
// refused: the kit fails such a call at once, in workflow code.
type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	in *workflowInbound
}

// ExecuteActivity adds the event when the call comes back already refused.
func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	fut := o.Next.ExecuteActivity(ctx, activityType, args...)
	o.firstRefused(ctx, activityType, fut)
	return fut
}

// ExecuteLocalActivity adds the event when the call comes back already
// refused.
func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	fut := o.Next.ExecuteLocalActivity(ctx, activityType, args...)
	o.firstRefused(ctx, activityType, fut)
	return fut
}

// firstRefused adds the refusal event of a future that failed as soon as it
// was made with a budget's refusal. A ready future's Get does not block.
func (o *workflowOutbound) firstRefused(ctx workflow.Context, activityType string, fut workflow.Future) {
	if !o.in.outer || !fut.IsReady() || workflow.IsReplaying(ctx) || o.in.span == nil {
		return
	}
	var refused *temporaladk.BudgetExceededError
	if err := fut.Get(ctx, nil); !errors.As(temporaladk.FromApplicationError(err), &refused) {
		return
	}
	attrs := append(refusalAttributes(refused),
		attribute.String(AttrActivityType, activityType),
		attribute.Int(AttrBudgetRefusedAttempt, 1))
	//workflowguard:ignore ADK-W005 a span event outside replay, stamped with workflow.Now; the SDK's own clock read is never reached with a timestamp given
	o.in.span.AddEvent(EventBudgetRefused, trace.WithAttributes(attrs...), trace.WithTimestamp(workflow.Now(ctx)))
}
