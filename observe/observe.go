package observe

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Observer is called by the kit at each decision it has an event for. Embed
// Base in an implementation and override the methods it needs: a method
// added to Observer later then does nothing in it, and no implementation
// breaks.
//
// The activity-side methods run in the attempt's goroutine with the
// activity's context; the workflow-side methods run in workflow code with
// the workflow's context, only when workflow.IsReplaying is false, so that
// each decision is observed once. No method may block, schedule anything or
// change the workflow: the kit decides the same whatever they do.
type Observer interface {
	// AttemptStarted is called for every activity attempt the kit serves,
	// before anything of the kit's or the user's runs for it.
	AttemptStarted(ctx context.Context, a Attempt)
	// AttemptEnded is called when the attempt returns, with the error the
	// kit hands to the SDK.
	AttemptEnded(ctx context.Context, a Attempt, o Outcome)
	// TextDelta is called on the activity side for each delta of model
	// output the attempt's code reports (providers.ReportText), in order,
	// between AttemptStarted and AttemptEnded, on the goroutine that
	// reported it. Nothing of it enters history: it is best effort, and it
	// must return at once (a live stream buffers and drops, never waits).
	TextDelta(ctx context.Context, a Attempt, d Delta)
	// Charged is called in workflow code, outside replay, when a budget
	// grants an attempt of a budgeted call: a first attempt before the call
	// is scheduled, a retry in the kit's charge Update.
	Charged(ctx workflow.Context, c Charge)
	// BudgetRefused is called in workflow code, outside replay, when a
	// budget refuses an attempt: a first attempt, which the kit fails
	// without scheduling the call, or a retry asked for through the kit's
	// charge Update.
	BudgetRefused(ctx workflow.Context, r Refusal)
	// CallPlanned is called in workflow code, outside replay, when the kit
	// schedules an activity call with its plan applied: after its approval
	// (if it needs one) and its budgets' first charge, with the options the
	// server will record. A call refused before it is scheduled (a budget,
	// a misconfiguration) is not planned.
	CallPlanned(ctx workflow.Context, c Call)
	// CallEnded is called in workflow code, outside replay, when the
	// future of a planned call resolves, with the call as planned, before
	// any later workflow-side event of the run (a next call's Charged or
	// CallPlanned, an ApprovalAsked), and calls that end together in the
	// order they were planned. Without such an event it runs in a
	// coroutine of its own, which leaves the future as the workflow sees
	// it: after the workflow code waiting on the future has run on to its
	// next wait, possibly after the workflow function returned.
	CallEnded(ctx workflow.Context, c Call, e CallEnd)
	// ApprovalAsked is called in workflow code, outside replay, when a call
	// that needs an approval begins to wait for it, before it is planned.
	ApprovalAsked(ctx workflow.Context, a Approval)
	// ApprovalDecided is called in workflow code, outside replay, when the
	// wait ends: granted, rejected or expired. A wait the workflow's
	// cancellation ends is not decided.
	ApprovalDecided(ctx workflow.Context, a Approval, d Decision)
	// TokensReserved is called in workflow code, outside replay, when a
	// token or cost budget reserves an attempt's most before it runs. A
	// reservation refused is a BudgetRefused.
	TokensReserved(ctx workflow.Context, r Reservation)
	// UsageSettled is called in workflow code, outside replay, when an
	// attempt's reservation is settled: with the usage it reported, or
	// spent whole.
	UsageSettled(ctx workflow.Context, s Settlement)

	mustEmbedBase()
}

// Base is an Observer whose methods do nothing. Embed it.
type Base struct{}

var _ Observer = Base{}

// AttemptStarted does nothing.
func (Base) AttemptStarted(context.Context, Attempt) {}

// AttemptEnded does nothing.
func (Base) AttemptEnded(context.Context, Attempt, Outcome) {}

// TextDelta does nothing.
func (Base) TextDelta(context.Context, Attempt, Delta) {}

// Charged does nothing.
func (Base) Charged(workflow.Context, Charge) {}

// BudgetRefused does nothing.
func (Base) BudgetRefused(workflow.Context, Refusal) {}

// CallPlanned does nothing.
func (Base) CallPlanned(workflow.Context, Call) {}

// CallEnded does nothing.
func (Base) CallEnded(workflow.Context, Call, CallEnd) {}

// ApprovalAsked does nothing.
func (Base) ApprovalAsked(workflow.Context, Approval) {}

// ApprovalDecided does nothing.
func (Base) ApprovalDecided(workflow.Context, Approval, Decision) {}

// TokensReserved does nothing.
func (Base) TokensReserved(workflow.Context, Reservation) {}

// UsageSettled does nothing.
func (Base) UsageSettled(workflow.Context, Settlement) {}

func (Base) mustEmbedBase() {}

// Attempt is one activity attempt as the kit serves it.
type Attempt struct {
	// ActivityType is the activity's type name.
	ActivityType string
	// Number is the attempt, 1 for the first.
	Number int
	// Header is true when the call carries the kit's call header: a worker
	// with the kit scheduled it. The fields below are zero when it is false
	// (a worker without the kit scheduled the call, or its header does not
	// decode, which fails the attempt as TemporaladkBadCallHeader).
	Header bool
	// Class is the call's class; "" for a call the kit left alone.
	Class temporaladk.Class
	// RetryPolicy is true when the activity task carries the retry policy
	// the server holds; the SDK's test environment's tasks carry none.
	RetryPolicy bool
	// MaxAttempts is how many attempts that retry policy gives the call,
	// the first included: 0 for unlimited, or when RetryPolicy is false.
	MaxAttempts int
	// SingleAttempt is true for a tool treated as effectful and called
	// without a key: its one attempt is all it gets.
	SingleAttempt bool
	// Idempotency is the activity's declaration; Undeclared also for an
	// activity without one.
	Idempotency temporaladk.Idempotency
	// KeyPresent says whether the call carries an idempotency key. The key
	// itself is not given.
	KeyPresent bool
	// BudgetCall is the call's name in its run's budgets (call-1, ...); ""
	// for a call under no budget of its run.
	BudgetCall string
	// Call is the call's Seq (Call.Seq of its CallPlanned), read from the
	// call's header; 0 when Header is false. Local says it numbers a local
	// activity.
	Call  int
	Local bool
	// WorkflowID, RunID and ActivityID name the run that scheduled the
	// attempt and the call's activity ID there; RootWorkflowID is the root
	// of the run's family when the run is a child, "" otherwise (and when
	// Header is false).
	WorkflowID, RunID, ActivityID string
	RootWorkflowID                string
}

// Delta is a piece of model output an attempt streamed (TextDelta).
type Delta struct {
	// Kind is the reply's text or the model's reasoning.
	Kind providers.TextKind
	// Text is the delta, as the provider sent it.
	Text string
	// Seq numbers the attempt's deltas from 1, in the order reported: with
	// the run, the call and the attempt, it names the delta wherever it is
	// published again.
	Seq int
}

// Outcome is what the kit decided about an attempt once it returned.
type Outcome struct {
	// Err is the error the kit hands to the SDK, converted (a kit error is
	// a *temporal.ApplicationError by then); nil for a success.
	Err error
	// ErrorType is Err's ApplicationError type, "" for none.
	ErrorType string
	// Retry is the wait before the next attempt the kit decided
	// (temporaladk.RetryDecisionOf of Err); nil when it decided none.
	Retry *temporaladk.RetryDecision
	// Refused is the budget's refusal that ended the call with this
	// attempt; nil when no budget refused.
	Refused *temporaladk.BudgetExceededError
}

// OutcomeOf is the Outcome of an attempt that returned err, the error the
// kit handed to the SDK or the one a recorded failure converts back to:
// the one reading the live observer and observe/recorded share. Its
// ErrorType is a kit error's Type, else an ApplicationError's type, else a
// timeout's type ("StartToClose", ...).
func OutcomeOf(err error) Outcome {
	out := Outcome{Err: err}
	if err == nil {
		return out
	}
	var app *temporal.ApplicationError
	var timeout *temporal.TimeoutError
	if kit, ok := temporaladk.AsError(err); ok {
		out.ErrorType = kit.Type()
	} else if errors.As(err, &app) {
		out.ErrorType = app.Type()
	} else if errors.As(err, &timeout) {
		out.ErrorType = timeout.TimeoutType().String()
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

// Charge is an attempt a budget granted.
type Charge struct {
	// ActivityType is the call's activity type; "" when the run does not
	// know it (a child workflow's call charged at its owner).
	ActivityType string
	// Class is the call's class.
	Class temporaladk.Class
	// Call is the call's name in the run's budgets (call-1, ...).
	Call string
	// Attempt is the attempt charged, 1 for the first.
	Attempt int
	// Remaining is what the call's budget has left after the charge:
	// attempts under its ceiling, or retries in its pool when it has none;
	// nil for a call under neither (metered by tokens or cost only).
	Remaining *int
}

// Refusal is an attempt a budget refused.
type Refusal struct {
	// ActivityType is the call's activity type; "" when the run does not
	// know it (a child workflow's call charged at its owner).
	ActivityType string
	// Class is the call's class.
	Class temporaladk.Class
	// Call is the call's name in the run's budgets (call-1, ...); "" for a
	// first attempt, refused before the call was named.
	Call string
	// Attempt is the attempt refused, 1 for a first attempt.
	Attempt int
	// Err is the refusal, the error the call fails with.
	Err *temporaladk.BudgetExceededError
}

// Join returns an Observer that calls each of observers in order. A nil
// among them is an error naming its place: an observer is given on purpose,
// and a nil one would observe nothing without a word. With none, the
// Observer does nothing.
func Join(observers ...Observer) (Observer, error) {
	for i, o := range observers {
		if o == nil {
			return nil, fmt.Errorf("observe: Join: observer %d of %d is nil", i+1, len(observers))
		}
	}
	if len(observers) == 1 {
		return observers[0], nil
	}
	return joined(append([]Observer(nil), observers...)), nil
}

// joined is the Observer Join returns.
type joined []Observer

// AttemptStarted calls each observer's AttemptStarted.
func (j joined) AttemptStarted(ctx context.Context, a Attempt) {
	for _, o := range j {
		o.AttemptStarted(ctx, a)
	}
}

// AttemptEnded calls each observer's AttemptEnded.
func (j joined) AttemptEnded(ctx context.Context, a Attempt, out Outcome) {
	for _, o := range j {
		o.AttemptEnded(ctx, a, out)
	}
}

// TextDelta calls each observer's TextDelta.
func (j joined) TextDelta(ctx context.Context, a Attempt, d Delta) {
	for _, o := range j {
		o.TextDelta(ctx, a, d)
	}
}

// Charged calls each observer's Charged.
func (j joined) Charged(ctx workflow.Context, c Charge) {
	for _, o := range j {
		o.Charged(ctx, c)
	}
}

// BudgetRefused calls each observer's BudgetRefused.
func (j joined) BudgetRefused(ctx workflow.Context, r Refusal) {
	for _, o := range j {
		o.BudgetRefused(ctx, r)
	}
}

// CallPlanned calls each observer's CallPlanned.
func (j joined) CallPlanned(ctx workflow.Context, c Call) {
	for _, o := range j {
		o.CallPlanned(ctx, c)
	}
}

// CallEnded calls each observer's CallEnded.
func (j joined) CallEnded(ctx workflow.Context, c Call, e CallEnd) {
	for _, o := range j {
		o.CallEnded(ctx, c, e)
	}
}

// ApprovalAsked calls each observer's ApprovalAsked.
func (j joined) ApprovalAsked(ctx workflow.Context, a Approval) {
	for _, o := range j {
		o.ApprovalAsked(ctx, a)
	}
}

// ApprovalDecided calls each observer's ApprovalDecided.
func (j joined) ApprovalDecided(ctx workflow.Context, a Approval, d Decision) {
	for _, o := range j {
		o.ApprovalDecided(ctx, a, d)
	}
}

// TokensReserved calls each observer's TokensReserved.
func (j joined) TokensReserved(ctx workflow.Context, r Reservation) {
	for _, o := range j {
		o.TokensReserved(ctx, r)
	}
}

// UsageSettled calls each observer's UsageSettled.
func (j joined) UsageSettled(ctx workflow.Context, s Settlement) {
	for _, o := range j {
		o.UsageSettled(ctx, s)
	}
}

func (joined) mustEmbedBase() {}
