// Package opentelemetry puts the kit's decisions into OpenTelemetry traces:
// it runs the Temporal SDK's tracing interceptor
// (go.temporal.io/sdk/contrib/opentelemetry) around the kit's own, writes on
// every RunActivity span what the kit planned for the call and decided about
// the attempt, and adds each budget refusal as an event on the workflow run's
// span.
//
//	kit, err := interceptors.NewPlugin(kitOpts)
//	traced, err := opentelemetry.New(opentelemetry.Options{Kit: kit, Tracing: temporalotel.TracerOptions{Tracer: tp.Tracer("agents")}})
//	w := worker.New(c, "agents", worker.Options{Plugins: []worker.Plugin{traced}})
//	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{traced}})
//
// # Order
//
// The plugin takes the place of the kit's plugin and places the interceptors
// itself, because the order matters and the SDK wraps workflow outbound calls
// in the reverse order of the list:
//
//  1. the SDK's tracing interceptor, outermost for activities, so that
//     trace.SpanFromContext in the next one is the RunActivity span;
//  2. the attribute interceptor, outside the kit's, so that it reads the
//     error the kit's activity interceptor converted (its retry decision);
//  3. the kit's interceptor (the kit plugin's ConfigureWorker runs here, so
//     the worker gets its heartbeat throttle too);
//  4. an interceptor whose workflow outbound calls wrap the kit's, so that it
//     sees a call whose first attempt the kit refused without scheduling it.
//
// The worker's client must not carry the SDK's tracing interceptor as well:
// the SDK hands a client's worker interceptors to its workers, and every span
// would be started twice.
//
// # Attributes
//
// Every name is under Namespace ("temporaladk."), lower case and
// dot-separated, and no name is the namespace of another, as OpenTelemetry's
// naming rules ask. On a RunActivity span of a call the kit planned:
// AttrClass, AttrAttemptNumber, AttrAttemptPlanned (from the retry policy the
// server holds), AttrAttemptSingle, AttrIdempotencyKind,
// AttrIdempotencyKeyPresent (the key itself is never written) and, for a call
// under a budget, AttrBudgetCall. A failed attempt adds AttrErrorType and the
// retry decision the kit recorded in the error (AttrRetrySource,
// AttrRetryWaitMillis, AttrRetryRequestedMillis, AttrRetryTruncated,
// AttrRetryFinal, AttrRetryReason) and, when a budget granted the next
// attempt, what it has left (AttrBudgetRemaining); an attempt whose next
// retry a budget refused adds AttrBudgetBreached, AttrBudgetLimit,
// AttrBudgetConsumed, AttrBudgetRemaining and AttrBudgetAttempts. Waits are
// whole milliseconds.
//
// # Refusals
//
// EventBudgetRefused goes on the RunWorkflow span for each attempt a budget
// refuses: a retry refused by the kit's charge Update (with AttrBudgetCall,
// the name its RunActivity spans carry), and a first attempt refused in
// workflow code (with AttrActivityType). Approvals will be events too when the
// kit has them.
//
// # Replay
//
// No span or event is emitted twice. Events are added only when
// workflow.IsReplaying is false. The SDK's tracing interceptor starts the
// spans of a run and of an Update's handler again when a worker replays a
// history, and ends them when the code returns; the plugin drops such a span,
// never ending it, when the code returns while replaying: the worker that ran
// it live ended it. A dropped span is started but never ended, so span
// processors see its start only, and no exporter sees it.
//
// # Not covered
//
// What is left of a budget after a granted attempt is not on the spans: the
// activity side learns a budget's state only from a refusal.
package opentelemetry
