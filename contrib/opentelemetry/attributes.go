package opentelemetry

import (
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Namespace is the prefix of every attribute and event name the plugin
// writes, as OpenTelemetry's naming rules ask of a library's own names.
const Namespace = "temporaladk"

// The attributes of a RunActivity span: what the kit planned for the call
// and what it decided about the attempt, as the kit tells its observer
// (observe.Attempt and observe.Outcome). An attribute the kit has no value
// for is left out.
const (
	// AttrClass is the call's class: MODEL, TOOL, RETRIEVAL or MEMORY.
	AttrClass = Namespace + ".class"
	// AttrAttemptNumber is the attempt the span runs, 1 for the first.
	AttrAttemptNumber = Namespace + ".attempt.number"
	// AttrAttemptPlanned is how many attempts the call's retry policy gives
	// it, the first included; 0 means unlimited.
	AttrAttemptPlanned = Namespace + ".attempt.planned"
	// AttrAttemptSingle is true for a tool treated as effectful and called
	// without a key: its one attempt is all it gets.
	AttrAttemptSingle = Namespace + ".attempt.single"
	// AttrIdempotencyKind is the activity's declaration: UNDECLARED,
	// READ_ONLY, IDEMPOTENT or EFFECTFUL. Left out for an activity without
	// a declaration.
	AttrIdempotencyKind = Namespace + ".idempotency.kind"
	// AttrIdempotencyKeyPresent says whether the call carries an idempotency
	// key. The key itself is never written.
	AttrIdempotencyKeyPresent = Namespace + ".idempotency.key_present"
	// AttrBudgetCall is the call's name in its run's budgets (call-1, ...),
	// for a call made under a ceiling on attempts or a pool of retries; the same name is on
	// the workflow span's refusal event.
	AttrBudgetCall = Namespace + ".budget.call"
	// AttrBudgetBreached names the budget that refused the next attempt:
	// "attempts" (Budgets.Attempts), "retries" (Budgets.Retries), "tokens" or
	// "cost".
	AttrBudgetBreached = Namespace + ".budget.breached"
	// AttrBudgetLimit is the refusing budget's ceiling.
	AttrBudgetLimit = Namespace + ".budget.limit"
	// AttrBudgetConsumed is what the refusing budget had spent.
	AttrBudgetConsumed = Namespace + ".budget.consumed"
	// AttrBudgetRemaining is what the call's budget has left: on an attempt
	// whose next attempt the budget granted, what it has left after that
	// charge (attempts under its ceiling, or retries in its pool
	// when it has none); on one whose next attempt it refused, its limit
	// less what it had spent, never below zero.
	AttrBudgetRemaining = Namespace + ".budget.remaining"
	// AttrBudgetAttempts is how many attempts the run spent reaching the
	// ceiling.
	AttrBudgetAttempts = Namespace + ".budget.attempts"
	// AttrErrorType is the Temporal ApplicationError type of the attempt's
	// failure (a kit error's Type, or one of the kit's own such as
	// TemporaladkBudgetUnavailable).
	AttrErrorType = Namespace + ".error.type"
	// AttrRetrySource is where the wait before the next attempt came from:
	// "jitter" (drawn inside the activity) or "retry-after" (asked for by the
	// provider).
	AttrRetrySource = Namespace + ".retry.source"
	// AttrRetryWaitMillis is the wait handed to the server as
	// NextRetryDelay, in milliseconds.
	AttrRetryWaitMillis = Namespace + ".retry.wait_ms"
	// AttrRetryRequestedMillis is the wait before it was fitted to the
	// call's deadline, in milliseconds.
	AttrRetryRequestedMillis = Namespace + ".retry.requested_ms"
	// AttrRetryTruncated is true when the wait was cut to the deadline.
	AttrRetryTruncated = Namespace + ".retry.truncated"
	// AttrRetryFinal is true when no further attempt follows this failure.
	AttrRetryFinal = Namespace + ".retry.final"
	// AttrRetryReason explains a truncated or final decision.
	AttrRetryReason = Namespace + ".retry.reason"
)

// EventBudgetRefused is the event on the workflow's RunWorkflow span for
// an attempt a budget refused, with AttrBudgetBreached, AttrBudgetLimit,
// AttrBudgetConsumed, AttrBudgetRemaining, AttrBudgetAttempts and
// AttrBudgetRefusedAttempt; AttrBudgetCall for a retry (a refused first
// attempt was never named in the budgets), and AttrActivityType when the run
// knows the call's activity type (a child workflow's call charged at its
// owner has none).
const EventBudgetRefused = Namespace + ".budget.refused"

// The attributes only the refusal event carries.
const (
	// AttrBudgetRefusedAttempt is the attempt the budget refused, 1 for a
	// first attempt.
	AttrBudgetRefusedAttempt = Namespace + ".budget.refused_attempt"
	// AttrActivityType is the activity type of the call whose attempt was
	// refused.
	AttrActivityType = Namespace + ".activity_type"
)

// The events of a call's approval on the workflow's RunWorkflow span
// (observe.Observer's ApprovalAsked and ApprovalDecided), each with
// AttrApprovalCall, AttrActivityType and AttrClass when the call has one.
const (
	// EventApprovalAsked is a call that began to wait for an approval, with
	// AttrApprovalRequired.
	EventApprovalAsked = Namespace + ".approval.asked"
	// EventApprovalDecided is the end of that wait, with
	// AttrApprovalOutcome, AttrApprovalWaitMillis and, when someone decided,
	// AttrApprovalBy.
	EventApprovalDecided = Namespace + ".approval.decided"
)

// The attributes only the approval events carry.
const (
	// AttrApprovalCall is the call's approval ID in its run (approval-1,
	// ...), which a decision names.
	AttrApprovalCall = Namespace + ".approval.call"
	// AttrApprovalRequired is how many distinct approvals the call needs.
	AttrApprovalRequired = Namespace + ".approval.required"
	// AttrApprovalOutcome is how the wait ended: "granted", "rejected" or
	// "expired".
	AttrApprovalOutcome = Namespace + ".approval.outcome"
	// AttrApprovalBy is who decided: the approver whose approval made the
	// count, or who denied the call.
	AttrApprovalBy = Namespace + ".approval.by"
	// AttrApprovalWaitMillis is how long the call waited, in workflow time,
	// in milliseconds.
	AttrApprovalWaitMillis = Namespace + ".approval.wait_ms"
)

// approvalAttributes names a call waiting for an approval.
func approvalAttributes(a observe.Approval) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String(AttrApprovalCall, a.Call), attribute.String(AttrActivityType, a.ActivityType)}
	if a.Class != "" {
		attrs = append(attrs, attribute.String(AttrClass, a.Class.String()))
	}
	return attrs
}

// callAttributes describes the attempt the kit serves. A call without the
// kit's header (its workflow task ran on a worker without the kit, or its
// header does not decode, which the kit fails as TemporaladkBadCallHeader,
// an error AttrErrorType then names) gets none.
func callAttributes(a observe.Attempt) []attribute.KeyValue {
	if !a.Header {
		return nil
	}
	attrs := []attribute.KeyValue{
		attribute.Int(AttrAttemptNumber, a.Number),
		attribute.Bool(AttrIdempotencyKeyPresent, a.KeyPresent),
	}
	if a.Class != "" {
		attrs = append(attrs,
			attribute.String(AttrClass, a.Class.String()),
			attribute.Bool(AttrAttemptSingle, a.SingleAttempt))
		// The server's retry policy is what the attempts follow; an
		// activity task without one (the SDK's test environment's) says
		// nothing of them.
		if a.RetryPolicy {
			attrs = append(attrs, attribute.Int(AttrAttemptPlanned, a.MaxAttempts))
		}
	}
	if a.Idempotency != temporaladk.Undeclared {
		attrs = append(attrs, attribute.String(AttrIdempotencyKind, a.Idempotency.String()))
	}
	if a.BudgetCall != "" {
		attrs = append(attrs, attribute.String(AttrBudgetCall, a.BudgetCall))
	}
	return attrs
}

// outcomeAttributes describes what the kit decided about a failed attempt:
// the error's type, the retry decision, and the refusal of a budget.
func outcomeAttributes(o observe.Outcome) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if o.ErrorType != "" {
		attrs = append(attrs, attribute.String(AttrErrorType, o.ErrorType))
	}
	if o.Refused != nil {
		attrs = append(attrs, refusalAttributes(o.Refused)...)
	}
	if d := o.Retry; d != nil {
		attrs = append(attrs,
			attribute.String(AttrRetrySource, d.Source),
			attribute.Int64(AttrRetryWaitMillis, millis(d.Wait)),
			attribute.Int64(AttrRetryRequestedMillis, millis(d.Requested)),
			attribute.Bool(AttrRetryTruncated, d.Truncated),
			attribute.Bool(AttrRetryFinal, d.Final))
		if d.Reason != "" {
			attrs = append(attrs, attribute.String(AttrRetryReason, d.Reason))
		}
		if d.BudgetRemaining != nil {
			attrs = append(attrs, attribute.Float64(AttrBudgetRemaining, float64(*d.BudgetRemaining)))
		}
	}
	return attrs
}

// refusalAttributes describes a budget's refusal.
func refusalAttributes(e *temporaladk.BudgetExceededError) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String(AttrBudgetBreached, e.Breached),
		attribute.Float64(AttrBudgetLimit, e.Limit),
		attribute.Float64(AttrBudgetConsumed, e.Consumed),
		attribute.Float64(AttrBudgetRemaining, max(e.Limit-e.Consumed, 0)),
		attribute.Int(AttrBudgetAttempts, e.Attempts),
	}
}

// millis is d in whole milliseconds.
func millis(d time.Duration) int64 { return d.Milliseconds() }
