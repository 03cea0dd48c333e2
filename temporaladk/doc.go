// Package temporaladk is the vocabulary of temporaladk, a Go extension of the
// Temporal Go SDK for AI-agent workflows: the activity classes (MODEL, TOOL,
// RETRIEVAL, MEMORY) and their tags on a workflow context, what a tool
// declares about itself, idempotency keys, and the kit's error hierarchy with
// its trip through Temporal as an ApplicationError.
//
//	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
//	err := workflow.ExecuteActivity(ctx, CallModel, prompt).Get(ctx, &reply)
//	var blocked *temporaladk.GuardrailViolationError
//	if errors.As(temporaladk.FromApplicationError(err), &blocked) { ... }
//
// The numbers and decisions live in package policies; the Temporal wiring in
// package interceptors.
//
// # Errors
//
// Every kit error implements Error: Retryable says whether a failure is a
// fault another attempt could cure, and Type gives the stable name the
// server records, one scheme for all of them: "Temporaladk" and the name
// without "Error".
//
//	Go type                    type the server records          retried
//	*SchemaViolationError      TemporaladkSchemaViolation       never
//	*GuardrailViolationError   TemporaladkGuardrailViolation    never
//	*GuardrailEvaluationError  TemporaladkGuardrailEvaluation   never
//	*BudgetExceededError       TemporaladkBudgetExceeded        never
//	*ApprovalDeniedError       TemporaladkApprovalDenied        never
//	*ScopeEscalationError      TemporaladkScopeEscalation       never
//	*ProviderError             TemporaladkProvider              by its status
//	*ProviderTimeoutError      TemporaladkProviderTimeout       yes
//	*ProviderUnavailableError  TemporaladkProviderUnavailable   yes
//	*RateLimitError            TemporaladkRateLimit             unless Quota
//	*ToolFailureError          TemporaladkToolFailure           if Transient
//	*IndeterminateOutcomeError TemporaladkIndeterminateOutcome  no
//
// and the failures the kit makes itself before the user's code runs,
// BudgetClosedError and the rest (TemporaladkBudgetClosed, ...; their Type
// constants say each). Each error of the table is an alias of a struct
// named as its type (SchemaViolationError is TemporaladkSchemaViolation),
// since the SDK records an error returned raw, on an activity worker
// without the kit, under its Go type's name: there too it crosses under
// its type. The never-retryable errors are never retried whatever any
// setting says: every RetryPolicy the kit produces lists them in
// NonRetryableErrorTypes (policies.WithNeverRetryable adds them to one of
// your own), and the kit's activity interceptor marks their failure
// non-retryable itself, so that a retry policy of an earlier build, which
// listed other names, does not retry them either. Errors outside the
// hierarchy are left alone: retried as their policy says, whatever their
// name but the prefix "Temporaladk", which the kit keeps for itself.
//
// # Former type names
//
// An earlier build recorded these types under their Go type's name
// ("SchemaViolationError", "ProviderError", ...). A failure under such a
// name decoded from history (the SDK's failure converter keeps the Failure
// it decoded an ApplicationError from) is still the kit's error:
// FromApplicationError types it and errors.As finds it, with its fields, and
// the kit decides on it as on the current type, so that histories recorded
// before keep their meaning and replay. The same name on an ApplicationError
// your code makes is not the kit's, and is retried as its policy says; but
// once recorded, FromApplicationError reads it as the kit's in workflow
// code, so a type string of your own is best not one of those names either.
//
// The kit's activity interceptor turns a kit error into the ApplicationError
// that crosses the activity boundary (Type, fields as the first detail, the
// cause, NonRetryable, and an optional NextRetryDelay with the RetryDecision
// behind it); FromApplicationError makes the typed error reachable by
// errors.As again on the workflow side.
//
// # When to call FromApplicationError
//
// A kit error that crossed a Temporal boundary arrives as an
// ApplicationError of its Type, inside the SDK's ActivityError,
// ChildWorkflowExecutionError or WorkflowExecutionError: one an activity
// returned, one the activity side made (a retry its budget refused), one a
// child workflow returned, and, on a client, one the workflow returned.
// errors.As finds the typed error in those only on FromApplicationError's
// result:
//
//	err := workflow.ExecuteActivity(ctx, Screen, text).Get(ctx, nil)
//	var blocked *temporaladk.GuardrailViolationError
//	errors.As(err, &blocked)                                   // false: a *temporal.ActivityError
//	errors.As(temporaladk.FromApplicationError(err), &blocked) // true, with its fields
//
// The errors the kit makes in workflow code cross no boundary, and errors.As
// finds them as they are: the *ApprovalDeniedError of a call denied or not
// decided in time, and the *BudgetExceededError of a call its budget refuses
// before its first attempt is scheduled. The kit's own failures made in
// workflow code (a *MisconfiguredError for a call it cannot schedule, an
// *ApprovalRejectedError for a gated call without approvers) are
// ApplicationErrors already, so that a workflow returning one fails typed:
// errors.As finds them on FromApplicationError's result, as for the rest.
// FromApplicationError returns any error whose kit error errors.As already
// finds unchanged, so calling it on every error before errors.As is always
// right.
//
// Package providers turns a provider's HTTP response, SDK error or
// transport error into the right kit error.
//
// Errors are registered in one table (errortypes.go), one row per type
// string the server records, each with its Go type: adding a kit error is
// its type and one row, which decides whether it is retried. A cause is restored on the workflow side for every type
// with a Cause field, and a cause that is a kit error crosses typed too, so
// that errors.As finds, behind a refused retry's BudgetExceededError, the
// provider error that asked for the retry.
//
// # Declarations
//
// Declaration is the one way to say what an activity is: its class,
// idempotency, timeout and key fields, registered with the interceptor
// (interceptors.Options.Activities). Without KeyFields a call has no key
// unless the workflow gives one; KeyFields naming a field that the JSON
// form leaves out when zero (omitempty, omitzero) are refused. A key field
// may be of any argument: "flight" is a field of the first, "$2.passenger"
// one of the second and "$2" the whole second argument, so a tool of two
// arguments is keyed by both; a call whose arguments lack a declared field
// gets no key and fails, naming the field.
//
// # Time
//
// Clock is the time of the kit's activity-side machinery: the Heartbeater
// beats on it, and policies.ActivityAttempts waits on it and reads its
// deadline against it. One clock rules each: where a context's deadline is
// read, it is read against the same clock that waits (Temporal sets an
// activity's deadline on the worker's real clock).
// testsuite.FakeClock moves only when a test moves it.
//
// The retry loop within one activity execution is
// policies.ActivityAttempts, next to the decision it calls.
//
// # Idempotency keys
//
// The interceptor derives a call's key from a Declaration's KeyFields: it
// hashes (SHA-256, hex) a canonical form of the tenant,
// the run, the tool and the arguments (or only the declared key fields):
// map keys sorted, strings NFC-normalised, numbers compared exactly (1.50 is
// 1.5), booleans distinct from numbers, lists in order. The key holds no
// argument value. NFC normalisation uses golang.org/x/text, which the SDK
// already brings in.
//
// ARCHITECTURE.md draws the path of one call through the kit, where each
// decision is made, and lists every error type string the server records.
package temporaladk
