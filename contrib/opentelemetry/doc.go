// Package opentelemetry puts the kit's decisions into OpenTelemetry traces:
// it runs the Temporal SDK's tracing interceptor
// (go.temporal.io/sdk/contrib/opentelemetry) around the kit's own, writes on
// every RunActivity span what the kit planned for the call and decided about
// the attempt, and adds each budget refusal as an event on the workflow run's
// span.
//
//	traced, err := opentelemetry.New(opentelemetry.Options{Kit: kitOpts, Tracing: temporalotel.TracerOptions{Tracer: tp.Tracer("agents")}})
//	w := worker.New(c, "agents", worker.Options{Plugins: []worker.Plugin{traced}})
//	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{traced}})
//
// kitOpts are the kit's interceptors.Options: the plugin builds the kit's
// plugin from them, with its own observer (package observe) called before
// kitOpts.Observer when that is set. It reads what the kit decided from that
// observer alone, never from the kit's headers or Updates.
//
// # Order
//
// The plugin takes the place of the kit's plugin and places the interceptors
// itself, because the order matters:
//
//  1. the SDK's tracing interceptor, outermost, so that trace.SpanFromContext
//     on the context the kit hands its observer is the RunActivity span;
//  2. the plugin's workflow interceptor, which puts the run's span on the
//     contexts of the kit's workflow code and Update handlers (the SDK gives
//     a handler its own span), where the observer adds the refusal events;
//  3. the kit's interceptor (the kit plugin's ConfigureWorker runs here, so
//     the worker gets its heartbeat throttle too).
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
// retry decision the kit made (AttrRetrySource,
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
// refuses (observe.Observer's BudgetRefused): a retry refused by the kit's
// charge Update (with AttrBudgetCall, the name its RunActivity spans carry),
// and a first attempt refused in workflow code; both with AttrActivityType
// when the run knows it.
//
// # Approvals
//
// EventApprovalAsked goes on the RunWorkflow span when a call begins to wait
// for an approval (AttrApprovalCall, AttrActivityType, AttrClass,
// AttrApprovalRequired), and EventApprovalDecided when the wait ends
// (AttrApprovalOutcome: granted, rejected or expired; AttrApprovalBy;
// AttrApprovalWaitMillis).
//
// # Replay
//
// No span or event is emitted twice. The kit calls its observer in workflow
// code only when workflow.IsReplaying is false, so events are added once.
// The SDK's tracing interceptor starts the spans of a run and of an Update's
// handler again when a worker replays a history, and ends them when the code
// returns; the plugin drops such a span,
// never ending it, when the code returns while replaying: the worker that ran
// it live ended it. A dropped span is started but never ended, so span
// processors see its start only, and no exporter sees it.
//
// # Not covered
//
// The kit's grants of budgeted attempts (observe.Observer's Charged) are not
// on the spans, but what a budget has left once a failed attempt's retry is
// charged is (AttrBudgetRemaining). A call's plan is on its RunActivity
// spans; its end (CallEnded) is not on the run's span, which may have ended
// by the time the kit sees the call's future resolve.
package opentelemetry
