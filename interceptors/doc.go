// Package interceptors is the Temporal wiring of temporaladk: one worker
// interceptor (also as a worker plugin, so the workflow replayer runs it too)
// that applies the class policies to every activity call and serves the
// calls on the activity side.
//
//	kit, err := interceptors.New(interceptors.Options{
//		Activities: map[string]temporaladk.Declaration{
//			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}},
//		},
//	})
//	w := worker.New(c, "agents", worker.Options{Interceptors: []interceptor.WorkerInterceptor{kit}})
//
// # Workflow side
//
// For ExecuteActivity and ExecuteLocalActivity the class comes from the tag
// on the context (temporaladk.WithClass), else the activity's declaration,
// else Options.DefaultClass; a call with none is left exactly as it was. The
// activity options are read, changed and written back: what the caller set
// stays; when the caller set a StartToClose the heartbeat window is derived
// from it; the retry policy takes its attempts from the idempotency rules
// (an effectful or undeclared tool without a key gets one) and always
// carries the never-retryable error types, also a retry policy the caller
// brought; an empty Summary becomes "class: ActivityType". The class, the
// idempotency declaration, the retry settings and the idempotency key travel
// to the activity in the Temporal header HeaderKey. Nothing is drawn at
// random and no command is added.
//
// A call made under a temporaladk.RunBudget or temporaladk.AttemptBudget
// has its retries driven from the workflow: each attempt is charged before
// it is scheduled, scheduled with MaximumAttempts 1, and followed by the
// wait the activity chose, on a workflow timer. Such a call's history holds
// one ActivityTaskScheduled event per attempt and one timer per retry; a call
// without a budget keeps its retries on the server and adds nothing.
//
// The only attempt of an effectful call (an effectful or undeclared tool
// without a key, as an activity or a local activity) that times out after it
// may have started ends as a
// *temporaladk.IndeterminateOutcomeError: the worker may have made the
// effect and been lost before saying so, and the kit will not repeat it
// blindly. The wrapping coroutine adds no command.
//
// A kit error a workflow returns crosses to the client as an ApplicationError
// with its type and fields, as an activity's does.
//
// # Activity side
//
// The header becomes a temporaladk.ActivityCall in the activity's context
// (temporaladk.IdempotencyKey, temporaladk.ActivityClass,
// temporaladk.HeartbeaterFrom). An activity with a heartbeat window gets a
// heartbeater that beats every window/3 while it runs, whether or not it
// streams, with details {step, tokens, chunks, time} and never text;
// Heartbeater.Chunk only counts.
//
// A kit error becomes a Temporal ApplicationError with its Type and fields
// (NonRetryable where it is not retryable). For a retryable one that has an
// attempt left, the wait is drawn here, inside the activity: full jitter over
// the backoff window, or the provider's Retry-After when it is within
// MaxRetryAfter (beyond it, the failure is final). The wait is cut to what is
// left of the call's overall deadline (ScheduleToClose from the first
// schedule) and reported as truncated in the error's details
// (temporaladk.RetryDecisionOf), a log line and a metric; with no time left
// the failure is final. The wait goes to the server as NextRetryDelay. Errors
// outside the kit's hierarchy pass unchanged.
//
// # Metrics and logs
//
// Through the SDK's metrics handler and logger: MetricAttempts,
// MetricRetries, MetricHeartbeats, MetricTruncatedWaits, MetricRetryWait
// (activity side, tagged class and activity_type) and MetricBudgetRefusals
// (workflow side, tagged class and budget). Nothing is logged or counted on
// the workflow side while replaying.
//
// # Decisions where the design is silent
//
// Idempotency keys are derived on the workflow side, deterministically, from
// the declared KeyFields of the call's first argument, the tenant
// (temporaladk.WithTenant, else the namespace) and the run (workflow ID and
// first run ID, so a key survives continue-as-new and workflow retries). A
// declaration without KeyFields gives no key unless the workflow sets one
// with temporaladk.WithIdempotencyKey: deriving one silently would restore
// retries to a tool that does not deduplicate.
//
// A drawn wait of zero is sent as 1ms: Temporal reads a NextRetryDelay of
// zero as unset and would follow its own schedule instead of the drawn one.
//
// When the workflow drives retries and the activity is not served by the
// kit (no drawn wait comes back), the workflow waits the backoff window
// itself, without jitter: workflow code draws no randomness.
package interceptors
