package interceptors

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// notifier is the one way the kit calls its Observer (Options.Observer): it
// holds the rule that workflow code calls it only outside replay, as the
// kit's metrics are recorded (countRefusal).
type notifier struct {
	o observe.Observer
}

// newNotifier returns the notifier of o; nil is the Observer that does
// nothing.
func newNotifier(o observe.Observer) notifier {
	if o == nil {
		o = observe.Base{}
	}
	return notifier{o: o}
}

// attemptStarted tells the observer an attempt starts.
func (n notifier) attemptStarted(ctx context.Context, a observe.Attempt) {
	n.o.AttemptStarted(ctx, a)
}

// attemptEnded tells the observer what the kit decided about an attempt,
// from err, the error it hands to the SDK.
func (n notifier) attemptEnded(ctx context.Context, a observe.Attempt, err error) {
	n.o.AttemptEnded(ctx, a, outcomeOf(err))
}

// charged tells the observer, outside replay, that a budget granted an
// attempt.
func (n notifier) charged(ctx workflow.Context, c observe.Charge) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.Charged(ctx, c)
}

// budgetRefused tells the observer, outside replay, that a budget refused
// an attempt.
func (n notifier) budgetRefused(ctx workflow.Context, r observe.Refusal) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.BudgetRefused(ctx, r)
}

// attemptOf describes the attempt info serves, with h the call's header and
// ok whether it had one.
func attemptOf(info activity.Info, h wire.CallHeader, ok bool) observe.Attempt {
	a := observe.Attempt{ActivityType: info.ActivityType.Name, Number: int(info.Attempt)}
	if !ok {
		return a
	}
	a.Header = true
	a.Class = h.Class
	if info.RetryPolicy != nil {
		a.RetryPolicy, a.MaxAttempts = true, int(info.RetryPolicy.MaximumAttempts)
	}
	a.SingleAttempt = h.SingleAttempt
	if h.Idempotency != "" {
		_ = a.Idempotency.UnmarshalText([]byte(h.Idempotency))
	}
	a.KeyPresent = h.IdempotencyKey != ""
	a.BudgetCall = h.Budget
	return a
}

// outcomeOf reads what the kit decided from the error it hands to the SDK.
func outcomeOf(err error) observe.Outcome {
	out := observe.Outcome{Err: err}
	if err == nil {
		return out
	}
	if kit, ok := temporaladk.AsError(err); ok {
		out.ErrorType = kit.Type()
	} else if app := (*temporal.ApplicationError)(nil); errors.As(err, &app) {
		out.ErrorType = app.Type()
	}
	if d, ok := temporaladk.RetryDecisionOf(err); ok {
		out.Retry = &d
	}
	var refused *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(err), &refused) {
		out.Refused = refused
	}
	return out
}
