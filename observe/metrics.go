package observe

// The metrics the kit records through the SDK's metrics handler (the one in
// client.Options.MetricsHandler), tagged with "class" and, on the activity
// side, "activity_type". Nothing is recorded while a workflow replays. They
// are the kit's other report beside an Observer: counts a dashboard keeps,
// where an Observer sees each decision.
const (
	// MetricAttempts counts activity attempts served, first ones included.
	MetricAttempts = "temporaladk_activity_attempts"
	// MetricRetries counts attempts after the first.
	MetricRetries = "temporaladk_activity_retries"
	// MetricHeartbeats counts heartbeats sent by the kit's heartbeater.
	MetricHeartbeats = "temporaladk_heartbeats"
	// MetricTruncatedWaits counts retry waits cut to a deadline.
	MetricTruncatedWaits = "temporaladk_retry_waits_truncated"
	// MetricRetryWait records the wait chosen before the next attempt.
	MetricRetryWait = "temporaladk_retry_wait"
	// MetricBudgetRefusals counts attempts a budget refused, tagged
	// "budget" with "attempts" (Budgets.Attempts) or "retries" (Budgets.Retries).
	MetricBudgetRefusals = "temporaladk_budget_refusals"
	// MetricUnplannedCalls counts activity calls served by a kit worker that
	// arrived without the kit's header, tagged "workflow_type" and
	// "activity_type": their workflow task ran on a worker without the kit
	// (every call a kit worker schedules carries the header, also one the
	// kit leaves alone). Non-zero means a mixed fleet.
	MetricUnplannedCalls = "temporaladk_unplanned_calls"
)

// The metrics of a mixed fleet, recorded through
// interceptors.FleetOptions.MetricsHandler (not the SDK's handler: the
// first is read outside any task, the second during a replay, where the
// SDK's handler records nothing).
const (
	// MetricPlainPollers is a gauge, tagged "task_queue": how many pollers
	// of a queue a worker with the kit serves lacked the kit's identity
	// mark (interceptors.IdentityMark) at the last read. Non-zero means a
	// worker without the kit takes tasks of that queue.
	MetricPlainPollers = "temporaladk_plain_pollers"
	// MetricUngatedCalls counts calls of a tool declared RequiresApproval
	// that a worker with the kit met, replaying a run, scheduled without
	// its approval gate, tagged "workflow_type" and "activity_type": a
	// worker without the kit scheduled them, or a build before the
	// declaration.
	MetricUngatedCalls = "temporaladk_ungated_calls"
)

// The metrics of token and cost budgets, tagged "class" and "model",
// recorded by the workflow side when the ledger reserves and settles;
// nothing is recorded while a workflow replays. A reservation that is
// spent whole (its attempt ended without settling) counts as settled.
const (
	// MetricTokensReserved counts tokens reserved before attempts.
	MetricTokensReserved = "temporaladk_tokens_reserved"
	// MetricTokensSettled counts tokens settled attempts spent.
	MetricTokensSettled = "temporaladk_tokens_settled"
	// MetricCostReserved counts micro-dollars reserved before attempts.
	MetricCostReserved = "temporaladk_cost_reserved_micros"
	// MetricCostSettled counts micro-dollars settled attempts spent.
	MetricCostSettled = "temporaladk_cost_settled_micros"
)

// The approval metrics, tagged "class" and "activity_type". The calls
// pending at a moment are MetricApprovalsRequested less
// MetricApprovalDecisions.
const (
	// MetricApprovalsRequested counts calls that began to wait for a
	// decision.
	MetricApprovalsRequested = "temporaladk_approvals_requested"
	// MetricApprovalDecisions counts the ends of those waits, tagged
	// "decision": "approved", "denied" or "timed_out".
	MetricApprovalDecisions = "temporaladk_approval_decisions"
	// MetricApprovalWait records how long a call waited for its decision,
	// in workflow time.
	MetricApprovalWait = "temporaladk_approval_wait"
)
