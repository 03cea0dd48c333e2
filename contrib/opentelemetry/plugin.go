package opentelemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
)

// PluginName is the name of the plugin New returns.
const PluginName = "temporaladk-opentelemetry"

// Options configure the plugin.
type Options struct {
	// Kit is the kit's options: the plugin builds the kit's plugin from
	// them (interceptors.NewPlugin), with its own observer called before
	// Kit.Observer when that is set (observe.Join), and places the kit's interceptor
	// between its own, where the order is right (see the package doc). A
	// worker registers this plugin instead of the kit's.
	Kit interceptors.Options
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
// interceptor outermost, the plugin's own workflow interceptor, then the
// kit's, built with the plugin's observer. It does what the kit's plugin does
// besides (its other methods are the kit plugin's).
type Plugin struct {
	worker.Plugin
	tracing interceptor.Interceptor
}

// New checks opts and returns the plugin, for worker.Options.Plugins and
// worker.WorkflowReplayerOptions.Plugins in place of the kit's plugin. Bad
// kit options are the kit's error.
func New(opts Options) (*Plugin, error) {
	if opts.Tracing.SpanContextKey != nil {
		return nil, errors.New("opentelemetry: Options.Tracing.SpanContextKey must be unset: the plugin reads the workflow's span under the SDK's default key")
	}
	var observer observe.Observer = spans{}
	if opts.Kit.Observer != nil {
		joined, err := observe.Join(spans{}, opts.Kit.Observer)
		if err != nil {
			return nil, fmt.Errorf("opentelemetry: Options.Kit.Observer: %w", err)
		}
		observer = joined
	}
	opts.Kit.Observer = observer
	kit, err := interceptors.NewPlugin(opts.Kit)
	if err != nil {
		return nil, fmt.Errorf("opentelemetry: Options.Kit: %w", err)
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
	return &Plugin{Plugin: kit, tracing: tracing}, nil
}

// Name returns PluginName.
func (p *Plugin) Name() string { return PluginName }

// ConfigureWorker adds the interceptors before the kit's and lets the kit's
// plugin configure the worker.
func (p *Plugin) ConfigureWorker(ctx context.Context, o worker.PluginConfigureWorkerOptions) error {
	o.WorkerOptions.Interceptors = append(o.WorkerOptions.Interceptors, p.tracing, &root{})
	return p.Plugin.ConfigureWorker(ctx, o)
}

// ConfigureWorkflowReplayer adds the same interceptors to a replayer, so that
// a replay runs the workflow as the worker did.
func (p *Plugin) ConfigureWorkflowReplayer(ctx context.Context, o worker.PluginConfigureWorkflowReplayerOptions) error {
	o.WorkflowReplayerOptions.Interceptors = append(o.WorkflowReplayerOptions.Interceptors, p.tracing, &root{})
	return p.Plugin.ConfigureWorkflowReplayer(ctx, o)
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

// root is the plugin's workflow interceptor, listed after the SDK's tracing
// interceptor and before the kit's: it drops a replayed run's span and an
// Update handler's, and puts the run's span on the contexts the kit's
// workflow code and its Update handlers run with, for the observer.
type root struct {
	interceptor.WorkerInterceptorBase
}

// InterceptWorkflow wraps a workflow's inbound calls.
func (r *root) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	w := &workflowInbound{}
	w.Next = next
	return w
}

// runSpanKey is the key of the run's span on a workflow context.
type runSpanKey struct{}

// runSpan is the run's span on ctx, or nil.
func runSpan(ctx workflow.Context) trace.Span {
	span, _ := ctx.Value(runSpanKey{}).(trace.Span)
	return span
}

// workflowInbound holds one run's span.
type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	span trace.Span
}

// ExecuteWorkflow keeps the run's span, runs the workflow with it on its
// context, and drops it, unended, when the workflow function returns while
// replaying or does not return at all.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	w.span, _ = temporalotel.SpanFromWorkflowContext(ctx)
	returned := false
	defer dropReplayed(ctx, &returned)
	ret, err := w.Next.ExecuteWorkflow(workflow.WithValue(ctx, runSpanKey{}, w.span), in)
	returned = true
	return ret, err
}

// ExecuteUpdate runs the handler with the run's span on its context (the
// SDK hands handlers the workflow's root context, whose span is the
// handler's own), and drops the handler's span when it runs while
// replaying.
func (w *workflowInbound) ExecuteUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (any, error) {
	returned := false
	defer dropReplayed(ctx, &returned)
	ret, err := w.Next.ExecuteUpdate(workflow.WithValue(ctx, runSpanKey{}, w.span), in)
	returned = true
	return ret, err
}

// spans is the plugin's observer: it writes the kit's decisions on the
// spans the SDK's tracing interceptor started.
type spans struct {
	observe.Base
}

// AttemptStarted sets the call's attributes on the RunActivity span.
func (spans) AttemptStarted(ctx context.Context, a observe.Attempt) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(callAttributes(a)...)
	}
}

// AttemptEnded sets the outcome's attributes on the RunActivity span of an
// attempt that failed.
func (spans) AttemptEnded(ctx context.Context, _ observe.Attempt, o observe.Outcome) {
	if span := trace.SpanFromContext(ctx); o.Err != nil && span.IsRecording() {
		span.SetAttributes(outcomeAttributes(o)...)
	}
}

// BudgetRefused adds the refusal event to the run's span. The kit calls it
// outside replay only: a replayed refusal had its event when it was decided.
func (spans) BudgetRefused(ctx workflow.Context, r observe.Refusal) {
	span := runSpan(ctx)
	if span == nil || r.Err == nil {
		return
	}
	attrs := append(refusalAttributes(r.Err), attribute.Int(AttrBudgetRefusedAttempt, r.Attempt))
	if r.Call != "" {
		attrs = append(attrs, attribute.String(AttrBudgetCall, r.Call))
	}
	if r.ActivityType != "" {
		attrs = append(attrs, attribute.String(AttrActivityType, r.ActivityType))
	}
	runEvent(ctx, span, EventBudgetRefused, attrs)
}

// ApprovalAsked adds the asked event to the run's span.
func (spans) ApprovalAsked(ctx workflow.Context, a observe.Approval) {
	if span := runSpan(ctx); span != nil {
		runEvent(ctx, span, EventApprovalAsked, append(approvalAttributes(a), attribute.Int(AttrApprovalRequired, a.Required)))
	}
}

// ApprovalDecided adds the decided event to the run's span.
func (spans) ApprovalDecided(ctx workflow.Context, a observe.Approval, d observe.Decision) {
	span := runSpan(ctx)
	if span == nil {
		return
	}
	attrs := append(approvalAttributes(a), attribute.String(AttrApprovalOutcome, string(d.Outcome)), attribute.Int64(AttrApprovalWaitMillis, millis(d.Waited)))
	if d.By != "" {
		attrs = append(attrs, attribute.String(AttrApprovalBy, d.By))
	}
	runEvent(ctx, span, EventApprovalDecided, attrs)
}

// runEvent adds an event to the run's span. The kit calls its observer in
// workflow code outside replay only: a replayed decision had its event when
// it was made.
func runEvent(ctx workflow.Context, span trace.Span, name string, attrs []attribute.KeyValue) {
	// The event is a side output, not a command, stamped with workflow time.
	//workflowguard:ignore ADK-W005 a span event outside replay, stamped with workflow.Now; the SDK's own clock read is never reached with a timestamp given
	span.AddEvent(name, trace.WithAttributes(attrs...), trace.WithTimestamp(workflow.Now(ctx)))
}
