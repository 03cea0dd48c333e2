package interceptors

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// notifier is the one way the kit calls its Observer (Options.Observer): it
// holds the rule that workflow code calls it only outside replay, as the
// kit's metrics are recorded (countRefusal).
type notifier struct {
	o observe.Observer
	// given is set when Options.Observer was: only then does the kit watch
	// its calls' futures for CallEnded.
	given bool
}

// newNotifier returns the notifier of o; nil is the Observer that does
// nothing.
func newNotifier(o observe.Observer) notifier {
	if o == nil {
		return notifier{o: observe.Base{}}
	}
	return notifier{o: o, given: true}
}

// attemptStarted tells the observer an attempt starts.
func (n notifier) attemptStarted(ctx context.Context, a observe.Attempt) {
	n.o.AttemptStarted(ctx, a)
}

// attemptEnded tells the observer what the kit decided about an attempt,
// from err, the error it hands to the SDK.
func (n notifier) attemptEnded(ctx context.Context, a observe.Attempt, err error) {
	n.o.AttemptEnded(ctx, a, observe.OutcomeOf(err))
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

// callPlanned tells the observer, outside replay, that the kit scheduled c.
func (n notifier) callPlanned(ctx workflow.Context, c observe.Call) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.CallPlanned(ctx, c)
}

// callEnds are one run's planned calls whose end the observer has not been
// told yet. A call's end is told by the run's watcher, a coroutine that runs
// after the workflow code that waited on the call has run on: told only
// there, the end of a call would reach the observer after the next call's
// plan (a screen would show the next turn inside the reply before it). So
// each workflow-side event of the run first tells the ends of the calls
// whose futures are ready (flush), in the order the calls were planned, and
// the watcher tells a call's end only if no event told it before.
//
// One watcher serves every call of the run: it waits until one of them is
// ready, so that the SDK, which wakes each blocked coroutine on every pass
// of a workflow task, wakes one for the run, not one per call in flight (a
// fan-out of n calls would wake n coroutines n times).
type callEnds struct {
	pending  []*callWatch
	watching bool
}

// callWatch is a planned call the kit watches for its end.
type callWatch struct {
	call     observe.Call
	future   workflow.Future
	attempts func() int
	told     bool
}

// anyReady reports whether a watched call's future is ready.
func (e *callEnds) anyReady() bool {
	for _, w := range e.pending {
		if w.future.IsReady() {
			return true
		}
	}
	return false
}

// watch starts the run's watcher, once: it waits, on a context the run's
// cancellation does not end, until a watched call is ready and tells the
// ends of the ready ones, for the life of the run.
func (e *callEnds) watch(ctx workflow.Context, n notifier) {
	if e.watching {
		return
	}
	e.watching = true
	// Never cancelled: the watcher lives as long as the run.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	workflow.Go(dctx, func(gctx workflow.Context) {
		for {
			if err := workflow.Await(gctx, e.anyReady); err != nil {
				return
			}
			e.flush(gctx, n)
		}
	})
}

// flush tells the observer the end of every watched call whose future is
// ready, in the order they were planned, and forgets them.
func (e *callEnds) flush(ctx workflow.Context, n notifier) {
	if e == nil {
		return
	}
	kept := e.pending[:0]
	for _, w := range e.pending {
		if w.future.IsReady() {
			n.tellEnded(ctx, w)
			continue
		}
		kept = append(kept, w)
	}
	clear(e.pending[len(kept):])
	e.pending = kept
}

// tellEnded tells the observer, outside replay, how w's call ended, once.
func (n notifier) tellEnded(ctx workflow.Context, w *callWatch) {
	if w.told {
		return
	}
	w.told = true
	if workflow.IsReplaying(ctx) {
		return
	}
	err := w.future.Get(ctx, nil)
	end := callEndOf(err, w.attempts())
	if err == nil {
		// The payload as received, undecoded: a converter that cannot
		// give it raw leaves Result empty and the call completed.
		var raw converter.RawValue
		if w.future.Get(ctx, &raw) == nil {
			end.Result = raw
		}
	}
	n.o.CallEnded(ctx, w.call, end)
}

// watchCall tells the observer, outside replay, how c ended once f, its
// future, resolves: at the run's next workflow-side event (ends.flush), or
// by the run's watcher if none comes first; attempts says then how many
// attempts the run knows it had (0 for unknown). The watcher adds no
// command and settles nothing the workflow reads, so that a worker with an
// observer runs the workflow exactly as one without; it is started only for
// an observer given.
func (n notifier) watchCall(ctx workflow.Context, ends *callEnds, c observe.Call, f workflow.Future, attempts func() int) {
	if !n.given {
		return
	}
	ends.pending = append(ends.pending, &callWatch{call: c, future: f, attempts: attempts})
	ends.watch(ctx, n)
}

// withText returns ctx carrying the reporter that hands the attempt's
// streamed model output (providers.ReportText) to the observer, numbered
// from 1; ctx itself when no observer was given.
func (n notifier) withText(ctx context.Context, a observe.Attempt) context.Context {
	if !n.given {
		return ctx
	}
	var mu sync.Mutex
	seq := 0
	rctx, err := providers.WithTextReporter(ctx, func(kind providers.TextKind, text string) {
		// Numbered and handed over under one lock, so that the order of
		// the numbers is the order the observer sees.
		mu.Lock()
		defer mu.Unlock()
		seq++
		n.o.TextDelta(ctx, a, observe.Delta{Kind: kind, Text: text, Seq: seq})
	})
	if err != nil {
		return ctx
	}
	return rctx
}

// approvalAsked tells the observer, outside replay, that a call waits for
// an approval.
func (n notifier) approvalAsked(ctx workflow.Context, a observe.Approval) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.ApprovalAsked(ctx, a)
}

// approvalDecided tells the observer, outside replay, how a call's wait for
// its approval ended.
func (n notifier) approvalDecided(ctx workflow.Context, a observe.Approval, d observe.Decision) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.ApprovalDecided(ctx, a, d)
}

// tokensReserved tells the observer, outside replay, that a token or cost
// budget reserved an attempt's most. The ledger calls it where it makes
// the reservation (see ARCHITECTURE.md).
func (n notifier) tokensReserved(ctx workflow.Context, r observe.Reservation) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.TokensReserved(ctx, r)
}

// usageSettled tells the observer, outside replay, that an attempt's
// reservation was settled.
func (n notifier) usageSettled(ctx workflow.Context, s observe.Settlement) {
	if workflow.IsReplaying(ctx) {
		return
	}
	n.o.UsageSettled(ctx, s)
}

// attemptOf describes the attempt info serves, with h the call's header and
// ok whether it had one.
func attemptOf(info activity.Info, h wire.CallHeader, ok bool) observe.Attempt {
	a := observe.Attempt{ActivityType: info.ActivityType.Name, Number: int(info.Attempt), Local: info.IsLocalActivity,
		WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, ActivityID: info.ActivityID}
	if !ok {
		return a
	}
	a.Header, a.Call, a.RootWorkflowID = true, h.Seq, h.Root
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

// callEndOf reads how a call ended from the error its future resolved
// with.
func callEndOf(err error, attempts int) observe.CallEnd {
	end := observe.CallEnd{Outcome: observe.CallCompleted, Err: err, Attempts: attempts}
	if err == nil {
		return end
	}
	end.Outcome = observe.CallFailed
	var timeout *temporal.TimeoutError
	var canceled *temporal.CanceledError
	switch {
	case errors.As(err, &timeout):
		end.Outcome = observe.CallTimedOut
	case errors.As(err, &canceled):
		end.Outcome = observe.CallCanceled
	}
	var app *temporal.ApplicationError
	if kit, ok := temporaladk.AsError(err); ok {
		end.ErrorType = kit.Type()
	} else if errors.As(err, &app) {
		end.ErrorType = app.Type()
	} else if timeout != nil {
		end.ErrorType = timeout.TimeoutType().String()
	}
	return end
}

// approvalOf describes a waiting call for the observer.
func approvalOf(w *waitingCall) observe.Approval {
	a := observe.Approval{Call: w.info.Call, ActivityType: w.info.ActivityType, Class: w.info.Class,
		Digest: w.info.Digest, Summary: w.info.Summary, Since: w.info.Since, Deadline: w.info.Deadline,
		Required: max(w.info.Approvers.Required, 1)}
	if !w.info.Approvers.Open {
		a.Principals = append([]string(nil), w.info.Approvers.Principals...)
	}
	return a
}

// decisionOf is how w's wait ended, for the observer.
func decisionOf(w *waitingCall, outcome observe.ApprovalOutcome, reason string, waited time.Duration) observe.Decision {
	d := observe.Decision{Outcome: outcome, Reason: reason, Waited: waited}
	if outcome != observe.ApprovalExpired {
		d.By = w.req.By
	}
	for _, a := range w.approvals {
		d.Approvals = append(d.Approvals, a.By)
	}
	return d
}
