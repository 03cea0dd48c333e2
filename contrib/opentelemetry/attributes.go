package opentelemetry

import (
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Namespace is the prefix of every attribute and event name the plugin
// writes, as OpenTelemetry's naming rules ask of a library's own names.
const Namespace = "temporaladk"

// The attributes of a RunActivity span: what the kit planned for the call
// (from its call header) and what it decided about the attempt (from the
// error the kit's activity interceptor returned). An attribute the kit has
// no value for is left out.
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
// AttrBudgetRefusedAttempt, and AttrBudgetCall for a retry (a refused first
// attempt was never named in the budgets) or AttrActivityType for a first
// attempt.
const EventBudgetRefused = Namespace + ".budget.refused"

// The attributes only the refusal event carries.
const (
	// AttrBudgetRefusedAttempt is the attempt the budget refused, 1 for a
	// first attempt.
	AttrBudgetRefusedAttempt = Namespace + ".budget.refused_attempt"
	// AttrActivityType is the activity type of a call whose first attempt
	// was refused.
	AttrActivityType = Namespace + ".activity_type"
)

// callAttributes reads the kit's call header from an activity's Temporal
// header. A call without the kit's header (its workflow task ran on a worker
// without the kit) gets none; so does one whose header does not decode, which
// the kit's activity interceptor fails as TemporaladkBadCallHeader, an error
// AttrErrorType then names.
func callAttributes(fields map[string]*commonpb.Payload, info activity.Info) []attribute.KeyValue {
	h, ok, err := interceptors.DecodeCallHeader(fields)
	if err != nil || !ok {
		return nil
	}
	attrs := []attribute.KeyValue{
		attribute.Int(AttrAttemptNumber, int(info.Attempt)),
		attribute.Bool(AttrIdempotencyKeyPresent, h.IdempotencyKey != ""),
	}
	if h.Class != "" {
		attrs = append(attrs,
			attribute.String(AttrClass, h.Class.String()),
			attribute.Bool(AttrAttemptSingle, h.SingleAttempt))
		// The server's retry policy is what the attempts follow; an
		// activity task without one (the SDK's test environment's) says
		// nothing of them.
		if info.RetryPolicy != nil {
			attrs = append(attrs, attribute.Int(AttrAttemptPlanned, int(info.RetryPolicy.MaximumAttempts)))
		}
	}
	if h.Idempotency != "" {
		attrs = append(attrs, attribute.String(AttrIdempotencyKind, h.Idempotency))
	}
	if h.Budget != "" {
		attrs = append(attrs, attribute.String(AttrBudgetCall, h.Budget))
	}
	return attrs
}

// outcomeAttributes reads what the kit decided about a failed attempt from the
// error its activity interceptor returned: the error's type, the retry
// decision it carries, and the refusal of a budget.
func outcomeAttributes(err error) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if kitErr, ok := temporaladk.AsError(err); ok {
		attrs = append(attrs, attribute.String(AttrErrorType, kitErr.Type()))
		if refused, ok := kitErr.(*temporaladk.BudgetExceededError); ok {
			attrs = append(attrs, refusalAttributes(refused)...)
		}
	} else if appErr := (*temporal.ApplicationError)(nil); errors.As(err, &appErr) && appErr.Type() != "" {
		attrs = append(attrs, attribute.String(AttrErrorType, appErr.Type()))
	}
	if d, ok := temporaladk.RetryDecisionOf(err); ok {
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
