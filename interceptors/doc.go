// Package interceptors is the Temporal wiring of temporaladk: one worker
// interceptor (also as a worker plugin, so the workflow replayer runs it too)
// that applies the class policies to every activity call and serves the
// calls on the activity side. The decisions themselves (a call's plan, the
// wait after a failure, retryability) are package policies'; this package
// calls them.
//
//	kit, err := interceptors.New(interceptors.Options{
//		Activities: map[string]temporaladk.Declaration{
//			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}},
//		},
//	})
//	w := worker.New(c, "agents", kit.WorkerOptions(worker.Options{}))
//
// # Workflow side
//
// For ExecuteActivity and ExecuteLocalActivity, policies.PlanCall decides the
// plan: the class comes from the tag on the context (temporaladk.WithClass),
// else the activity's declaration, else Options.DefaultClass; a call with
// none is left as it was, but for the never-retryable error types its retry
// policy gains, so that no worker of a mixed fleet retries one (a local
// activity is left exactly as it was: its attempts run on the kit's worker). The activity options are read, changed and
// written back: what the caller set stays; when the caller set a
// StartToClose the heartbeat window is derived from it; the retry policy
// takes its attempts from the idempotency rules (an effectful or undeclared
// tool without a key gets one, a tool declared TOOL keeps that rule under any
// class tag) and always carries the never-retryable error types, also a retry
// policy the caller brought; an empty Summary becomes "class: ActivityType".
// The call's ScheduleToClose is capped at what is left of the workflow's own
// run or execution deadline, so that the activity reads the call's whole
// deadline from its activity.Info, as it reads its retry policy. What the
// activity cannot read there (the class, the idempotency declaration, the
// key, MaxRetryAfter, the budget's call name) travels in the Temporal header
// HeaderKey (a call the kit leaves alone carries a header with no class);
// the header is one per plan unless it holds a key or a budget name, and a
// worker keeps at most 256 encodings and 256 decodings of such headers.
// Nothing is drawn at random, and a call without a budget adds no command.
//
// The only attempt of an effectful call (an effectful or undeclared tool
// without a key) that times out after it may have started, or that returns
// context.DeadlineExceeded at its deadline, ends as a
// *temporaladk.IndeterminateOutcomeError: the worker may have made the effect
// and been lost before saying so, and the kit will not repeat it blindly.
//
// A kit error a workflow returns crosses to the client as an ApplicationError
// with its type and fields, as an activity's does.
//
// # Priority and fairness
//
// A planned activity call is scheduled with its class policy's Priority
// (policies.ActivityPolicy.Priority: for example MODEL calls with a
// PriorityKey below TOOL calls'), with the call's tenant
// (temporaladk.WithTenant) as its FairnessKey, so that one tenant's backlog
// of retries does not hold up the first attempts of the others. Each field
// the caller set on the call's own Priority (workflow.WithPriority) wins; a
// call the kit does not plan, and a local activity, carry none of the kit's.
// The server records the priority on the ActivityTaskScheduled event and
// hands it to the worker in activity.Info. Its matching service orders a
// backlog by it with the new matcher (dynamic config
// matching.useNewMatcher=true on the dev server of the Temporal CLI).
//
// # Budgets on Temporal's own retries
//
// A call made under a ceiling on attempts or a pool of retries
// (temporaladk.WithBudgets) is charged whether or not the kit plans it: what is charged follows the
// workflow code (the budget on the call's context), never the kit's options,
// which a replay may read changed. It is scheduled once, with its retry
// policy, like any other: one
// ActivityTaskScheduled per call, native attempt numbers, heartbeat details
// carried from attempt to attempt, and outer interceptors and the Web UI see
// one call. Every attempt is still charged before it runs:
//   - the first in workflow code, when the call is scheduled; a refusal
//     fails the call at once and schedules nothing;
//   - each retry through the workflow Update ChargeUpdateName, which the kit
//     registers in every workflow it runs: the activity side asks for the
//     next attempt's charge when an attempt fails retryably (so that a
//     refusal keeps that failure as its cause), and every attempt after the
//     first asks again before the user's code runs (the same charge, or
//     the only one when the attempt before died without asking). A worker
//     has at most one charge Update of a run in flight: the charges its
//     attempts ask meanwhile go together in the next one, so that a
//     fan-out's retries are not paced by the server's limit on a run's
//     Updates in flight (history.maxInFlightUpdates, 10 by default) and
//     spend few of the Updates it accepts per run (history.maxTotalUpdates,
//     2,000 by default). A refusal ends the call with a non-retryable
//     *temporaladk.BudgetExceededError whose details say how many attempts
//     were spent.
//
// The charges are decided in workflow code and recorded in history as
// accepted Updates, so they replay exactly. A charge that gets no answer in
// time (the server or the workflow's worker is away) never lets an attempt
// run uncharged: the attempt fails retryably with TypeBudgetUnavailable and
// the next one asks again. A charge granted while its answer was lost is
// spent without its attempt: waste, never an attempt past the ceiling. So
// is the charge of a retry whose call is cancelled, or times out, before
// the retry starts: it was charged when the attempt before it failed.
//
// A local activity's retries run inside the worker, out of the workflow's
// sight, so a local activity under a budget gets one attempt, charged when
// it is scheduled.
//
// # Across runs: continue-as-new and child workflows
//
// A run's state crosses into the run it begins in one place, the start
// header ChainHeaderKey, for every budget:
//   - On continue-as-new (the kit intercepts workflow.NewContinueAsNewError
//     and NewContinueAsNewErrorWithOptions) the budgets the run named through
//     the conversation package are written there as they stand, with the
//     owner its calls are charged to; the next run restores them by name.
//     From then on the run's charge Update validator rejects every charge:
//     a charge granted after the hand-over would be lost to the next run. A
//     run with nothing to carry writes no header field.
//   - A child workflow started on a context with a budget gets the run's
//     ledger as its owner: every attempt of the child's calls (its first
//     too, since the child's workflow code cannot ask another run) is
//     charged at the owner by the activity side, through ChargeUpdateName,
//     before the user's code runs, as CallHeader.Owner names it. The
//     children a child starts are charged at the same owner. Nothing is
//     reserved for a child, so a child that fails, is cancelled, times out
//     or continues as new has spent the attempts it made, and one more for
//     a call that ended while it waited for a retry already charged (see
//     "Budgets on Temporal's own retries": waste, never an overrun).
//
// A charge the server refuses because the run holding the budget accepted
// all its Updates (history.maxTotalUpdates) fails the attempt at once with
// the non-retryable TypeRunOutOfUpdates, and one whose run has closed with
// TypeBudgetClosed: no later attempt could be charged there either. The
// conversation package says when to continue as new before that happens.
//
// The budget path is versioned (workflow.GetVersion "temporaladk/budget",
// recorded once per run that makes a budgeted call), so that a later change
// to the commands it adds can branch on it. A history whose budgeted calls
// re-schedule each attempt on a workflow timer does not replay with this
// version: see UPGRADING.md.
//
// # Approvals
//
// A call of an activity declared RequiresApproval, or made on an
// approvals.WithApproval context, waits in workflow code before anything
// else of it happens: ExecuteActivity returns its future at once, and a
// coroutine waits (a timer of the approval timeout) for the Update
// approvals.UpdateName, then plans, charges and schedules the call, or
// fails it with a never-retried *temporaladk.ApprovalDeniedError (denied,
// or timed out). Nothing is charged to a budget before the approval. Who
// may approve a declared activity is Options.Approvals (ApprovalOptions:
// approvers per activity type, the Verifier of signed decisions, and the
// search attribute an inbox finds waiting runs by); every activity
// declared RequiresApproval needs approvers there, or New refuses. The
// inbound interceptor registers the Update, whose validator rejects a
// decision for an unknown or decided call, for other arguments, by a
// principal not allowed, unsigned where signatures are needed, not
// verifying, expired against workflow.Now, or a second approval by one
// principal (no history event), and the Query approvals.QueryName; the
// waiting calls are the workflow's current details while they wait. The
// gate of a declared activity is versioned per activity type
// (workflow.GetVersion "temporaladk/approval/<type>", recorded at the first
// call of the type a run gates), so that a history recorded before a deploy
// added the declaration replays as recorded; a second version
// ("temporaladk/approval/approvers", once per run) records each gated
// call's approvers in a SideEffect marker and schedules the approved call
// with the activity ID "approval-N" and its grant (ApprovalGrant) in the
// header ApprovalHeaderKey, so that histories recorded before it replay as
// they were. The activity side refuses, with approvals.TypeNotGranted, a
// call of an activity declared RequiresApproval on its worker, or carrying
// a grant, without a grant bound to it that holds with the worker's own
// approvers and keys, whoever scheduled it. The one option change that is
// not free: removing RequiresApproval from an activity while runs that
// gated a call of it are open (their histories hold the gate's timer);
// drain them first (UPGRADING.md). The approvals package documents the
// rest; MetricApprovalsRequested, MetricApprovalDecisions and
// MetricApprovalWait count it.
//
// # Activity side
//
// The header becomes a temporaladk.ActivityCall in the activity's context
// (temporaladk.ActivityCallFrom, temporaladk.HeartbeaterFrom). An activity with a heartbeat window gets a
// heartbeater that beats every window/3 on Options.Clock while it runs,
// whether or not it streams, with details {step, tokens, chunks, time} and
// never text; Heartbeater.Chunk only counts.
//
// The SDK sends at most one heartbeat per 0.8 × HeartbeatTimeout unless the
// worker's MaxHeartbeatThrottleInterval is lower. The plugin's
// ConfigureWorker and Interceptor.WorkerOptions set it to HeartbeatThrottle
// (1s), so that three beats per window reach the server for every window of
// three seconds and up. The trade: the SDK retries a failing heartbeat RPC
// for as long as the throttle interval (at least a second) and then gives the
// attempt up, so a frontend outage longer than that ends the attempt, which
// its retry policy retries. A worker that registers the interceptor in
// worker.Options.Interceptors by hand keeps the SDK's throttle; use
// WorkerOptions.
//
// A kit error becomes a Temporal ApplicationError with its Type and fields.
// policies.DecideWait decides what follows: a failure that is not
// retryable, or a call out of attempts, is final (a never-retryable kit
// error is marked NonRetryable on every kit worker, whatever the call's tag,
// declaration or header, also for a call whose workflow task ran on a worker
// without the kit); otherwise the wait is full jitter drawn here, inside the
// activity, or the provider's Retry-After within MaxRetryAfter. The wait is
// fitted to what is left of the call's overall deadline (its ScheduleToClose,
// capped at the workflow's own run or execution deadline), measured
// on the server's timestamps of the first schedule and this attempt's start
// plus the time the attempt ran on this worker's clock, never by comparing
// two machines' clocks. A cut wait is reported as truncated in the error's
// details (temporaladk.RetryDecisionOf), a log line and a metric; a wait
// that leaves no time for the attempt is final. The wait goes to the server
// as NextRetryDelay. Errors outside the kit's hierarchy pass unchanged.
//
// A call header that does not decode, or names an unknown class, fails the
// attempt non-retryably (TypeBadCallHeader) before the user's code runs.
//
// # Fail closed: fleets, deploys and mistakes
//
// Every guarantee holds on a misconfigured fleet or refuses, naming the
// mistake; none silently stops being enforced:
//
//   - Workflow code that calls the kit (temporaladk.WithClass,
//     WithBudgets, the conversation calls,
//     approvals.WithApproval, ...) needs the kit's interceptor in the
//     running workflow: without it the call panics with an error naming the
//     call and the fix, which fails the workflow task (the SDK's default
//     WorkflowPanicPolicy, BlockWorkflow), so that in a mixed fleet the
//     server retries the task until a worker with the kit takes it, and a
//     fleet without the kit runs nothing unguarded (leave the policy at its
//     default: FailWorkflow turns a panic into a failed workflow). A
//     replayer without the kit fails the same way.
//   - The activity side checks what it can: a tool this worker declares
//     effectful, called without a key, is refused at its second attempt
//     (TypeRetryRefused) whoever scheduled it; never-retryable kit errors
//     are marked non-retryable on every call.
//   - The server bounds what it can: a call under a RunBudget or pool is
//     scheduled with MaximumAttempts held to what the budgets had left
//     (policies.BoundAttempts), so no worker without the kit retries it past
//     the ceiling; its last attempt still ends with the BudgetExceededError
//     (CallHeader.BudgetBound).
//   - A metered call that completed as only a worker without the kit leaves
//     it (a success never settled as one, a failure of its own code with no
//     attempt reserved) makes the run refuse every later metered call with
//     TypeMisconfigured, naming the activity worker without the kit; and a
//     metered call whose budget has nothing left is refused in workflow
//     code, before it is scheduled. What this cannot hold: the attempts a
//     worker without the kit runs before the run sees one of them end (in
//     sequential code one call's, in a fan-out every call then in flight)
//     spend unreserved; the ceiling can be passed by what they spent, once,
//     and the run then refuses.
//   - Registration is idempotent: the kit's plugin keeps one kit interceptor
//     however many times and ways it is given, and refuses two different
//     ones (ErrRegisteredTwice); an inner registration it did not see
//     passes through at run time.
//   - A call the kit cannot schedule as set up fails with a non-retryable
//     ApplicationError of TypeMisconfigured in one sentence; a budget's
//     refusal says the arithmetic (ceiling, spent, left, what the attempt
//     asked).
//
// Where no code of the kit runs at all (workflow code that calls no kit
// function, on workers none of which has the kit, as for a declared
// activity scheduled and run by plain workers) the kit promises nothing: it
// cannot. A call that arrives without the kit's header (its workflow task
// ran on a worker without the kit) still runs, with never-retryable kit
// errors marked non-retryable; it is counted in MetricUnplannedCalls and
// logged once per workflow type, so that a mixed fleet is visible. RELIABILITY.md
// has the matrix of guarantees and misconfigurations as the dev server
// recorded it. Nothing the kit adds to
// history depends on options read at replay time: a call without a budget
// adds no command, and a budgeted call adds only its version marker and its
// charge Updates, whose outcomes replay from history. UPGRADING.md says what
// a configuration change, a kit upgrade and removing the kit do to running
// workflows.
//
// # Metrics and logs
//
// Through the SDK's metrics handler and logger: MetricAttempts,
// MetricRetries, MetricHeartbeats, MetricTruncatedWaits, MetricRetryWait,
// MetricUnplannedCalls (activity side, tagged class and activity_type or
// workflow_type) and MetricBudgetRefusals (workflow side, tagged class and
// budget). Nothing is logged or counted on the workflow side while replaying.
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
// The workflow's execution timeout is measured from this run's start, which
// for a continued run is later than the chain's: the cut is never tighter
// than the real deadline.
package interceptors
