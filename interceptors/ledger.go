package interceptors

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// budgetChangeID versions the budget path in workflow code
// (workflow.GetVersion): a change to the commands a budgeted call adds
// branches on it, so that histories recorded before the change replay.
const budgetChangeID = "temporaladk/budget"

// The versions of the budget path: budgetVersion is the newest. From
// failClosedVersion on, a run refuses metered calls once one ran on a
// worker without the kit (ledger.unmetered), and refuses in workflow code
// a metered call whose budget has nothing left (ledger.precheck).
const (
	failClosedVersion workflow.Version = 2
	budgetVersion                      = failClosedVersion
)

// failsClosed reports whether the run takes the budget path of
// failClosedVersion or later: every run started by this version does, and
// a history recorded before it replays as it ran.
func failsClosed(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, budgetChangeID, 1, budgetVersion) >= failClosedVersion
}

// ledger is the workflow side of the budgets: the calls one run made under
// a budget, by name, and the Update handler that charges their retries. It
// lives in the run's workflow state and decides every charge there, so that
// a replay decides the same.
type ledger struct {
	root  *kitInterceptor
	chain *budget.Chain
	calls map[string]*budgetedCall
	seq   int
	// delegations are the budgets the run started its children under, by
	// delegation name.
	delegations map[string]delegation
	children    int
	// budgets are the budgets the run charged calls against, in the order
	// it first did (seen holds them too), for the Query.
	budgets []budget.Budget
	seen    map[budget.Budget]bool
	// passive is set when another registration of the same kit interceptor
	// serves the run from outside this one: this one then passes every
	// call through, so that the kit applies once.
	passive bool
	// watched are the metered calls scheduled and not yet seen complete,
	// in the order they were made (unmetered); unreserved is the error of
	// the first that completed with no attempt reserved.
	watched    []watchedCall
	unreserved error
}

// watchedCall is a metered call, its activity type and the future of its
// result.
type watchedCall struct {
	name         string
	call         *budgetedCall
	activityType string
	future       workflow.Future
}

// delegation is the budgets a child workflow was started under.
type delegation struct {
	run    *budget.AttemptBudget
	pool   *budget.RetryBudget
	tokens *budget.TokenBudget
	cost   *budget.CostBudget
}

// budgetedCall is one call made under a budget, and the highest attempt
// charged for it.
type budgetedCall struct {
	run   *budget.AttemptBudget
	pool  *budget.RetryBudget
	class temporaladk.Class
	// activityType is the call's activity type; "" for a child's call,
	// which the run knows by its charges only.
	activityType string
	charged      int
	meters       meteredCall
}

func newLedger(root *kitInterceptor) *ledger {
	return &ledger{root: root, calls: map[string]*budgetedCall{}, delegations: map[string]delegation{}}
}

// register installs the charge Update handler and the budgets Query
// handler (spend.QueryName); neither adds a command. Once the
// run has handed its state to the next (it is continuing as new), its
// validator rejects every charge: a rejected Update is not written to
// history and not counted against the run's Updates, and a charge granted
// after the hand-over would be lost to the next run.
func (l *ledger) register(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, wire.ChargeUpdateName, func(ctx workflow.Context, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
		out := make([]wire.ChargeResult, len(reqs))
		for i, req := range reqs {
			out[i] = l.charge(ctx, req)
		}
		return out, nil
	}, workflow.UpdateHandlerOptions{Description: "temporaladk: charges the retries (and reserves and settles the tokens and cost) of this run's budgeted calls, asked by the kit's activity side before each attempt runs", Validator: func(ctx workflow.Context, reqs []wire.ChargeRequest) error {
		if l.chain.Closed() {
			return errRunHandedOver
		}
		return nil
	}}); err != nil {
		return err
	}
	return workflow.SetQueryHandlerWithOptions(ctx, spend.QueryName, l.states, workflow.QueryHandlerOptions{
		Description: "temporaladk: every budget this run charged or named (attempts, retries, tokens, cost): limit, reserved, spent, remaining, and tokens and cost by class and model",
	})
}

// errRunHandedOver is the validator's rejection of a charge that reaches a
// run continuing as new.
var errRunHandedOver = budgetClosed("temporaladk: this run is continuing as new and charges nothing more", nil)

// delegate names the budgets a child workflow is started under, for its
// calls' charges: deterministic, one name per child the run starts.
func (l *ledger) delegate(d delegation) string {
	l.children++
	name := fmt.Sprintf("child-%d", l.children)
	l.delegations[name] = d
	l.seeAttempts(d.run, d.pool)
	l.seeMeters(d.tokens, d.cost)
	return name
}

// open charges a budgeted call's first attempt, in workflow code before the
// call is scheduled, and names the call for its retries' charges. A refusal
// is a *temporaladk.BudgetExceededError and the call is not scheduled.
func (l *ledger) open(ctx workflow.Context, activityType string, class temporaladk.Class, run *budget.AttemptBudget, pool *budget.RetryBudget, meters meteredCall) (string, error) {
	workflow.GetVersion(ctx, budgetChangeID, 1, budgetVersion)
	if refused := l.chargeAttempt(ctx, run, pool, observe.Refusal{ActivityType: activityType, Class: class, Attempt: 1}); refused != nil {
		return "", refused
	}
	l.seq++
	id := fmt.Sprintf("call-%d", l.seq)
	call := &budgetedCall{run: run, pool: pool, class: class, activityType: activityType, charged: 1, meters: meters}
	l.calls[id] = call
	l.granted(ctx, call, id, 1)
	l.seeAttempts(run, pool)
	l.seeMeters(meters.tokens, meters.cost)
	return id, nil
}

// ownerCall names a call of this run in its owner's ledger: unique across
// the owner's family, since it names this run, and the same on replay.
func (l *ledger) ownerCall(ctx workflow.Context, owner *budget.Owner) wire.CallOwner {
	l.seq++
	return wire.CallOwner{
		WorkflowID: owner.WorkflowID,
		RunID:      owner.RunID,
		Delegation: owner.Delegation,
		Call:       fmt.Sprintf("%s/%s/%d", owner.Delegation, workflow.GetInfo(ctx).WorkflowExecution.RunID, l.seq),
	}
}

// charge answers one request of the Update: it charges req.Attempt of
// req.Call, once. A request for an attempt already charged (the same retry
// asked for again) is granted without a second charge.
func (l *ledger) charge(ctx workflow.Context, req wire.ChargeRequest) wire.ChargeResult {
	call, ok := l.calls[req.Call]
	if !ok && req.Delegation != "" {
		// A child's call, charged here for the first time.
		d, known := l.delegations[req.Delegation]
		if !known {
			return wire.ChargeResult{Error: fmt.Sprintf("temporaladk: this run started no child under budgets %q", req.Delegation)}
		}
		call = &budgetedCall{run: d.run, pool: d.pool, class: req.Class, meters: meteredCall{tokens: d.tokens, cost: d.cost}}
		l.calls[req.Call] = call
		ok = true
	}
	if !ok {
		return wire.ChargeResult{Error: fmt.Sprintf("temporaladk: this run made no budgeted call %q", req.Call)}
	}
	if req.Settle != nil {
		return l.settle(ctx, call, req)
	}
	var reserve func()
	if req.Reserve != nil {
		// The reservation is checked before the attempt is charged, so that
		// a refusal by a token or cost budget spends no attempt.
		var res wire.ChargeResult
		if reserve, res = l.reserve(ctx, call, req); reserve == nil {
			return res
		}
	}
	if req.Attempt > call.charged {
		if refused := l.chargeAttempt(ctx, call.run, call.pool, observe.Refusal{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt}); refused != nil {
			return wire.ChargeResult{Refused: refused}
		}
		call.charged = req.Attempt
		l.granted(ctx, call, req.Call, req.Attempt)
	}
	if reserve != nil {
		reserve()
	}
	return wire.ChargeResult{Granted: true, Remaining: remainingOf(call)}
}

// attemptsLeft is the most attempts call can have, its first (charged
// already) included: one more than the fewest its run budget and its pool
// have left; 0 for a call under neither (only metered), which has no such
// bound.
func (call *budgetedCall) attemptsLeft() int {
	most := 0
	if call.run != nil {
		most = 1 + call.run.Remaining()
	}
	if call.pool != nil {
		if left := 1 + call.pool.Remaining(); most == 0 || left < most {
			most = left
		}
	}
	return most
}

// watchMetered keeps a metered call's future until it completes: see
// unmetered.
func (l *ledger) watchMetered(name, activityType string, f workflow.Future) {
	l.watched = append(l.watched, watchedCall{name: name, call: l.calls[name], activityType: activityType, future: f})
}

// unmetered returns an error once a metered call of the run has completed
// in a way only a worker without the kit leaves: on a worker with the kit,
// each attempt of a metered call is reserved through the charge Update
// before the user's code runs and settled after it, a success settled as
// one, before the attempt returns. A call that succeeded with no success
// settled, or failed in the user's code with no attempt reserved, ran (at
// least its last attempt) on an activity worker without the kit, and
// nothing metered it. Every metered call after it is refused, so that a
// fleet with such a worker fails closed instead of spending past the
// ceiling. A call that ended because its charge was refused or could not be
// asked is no such call. It reads only what the run's history gave it
// (Future.IsReady, the accepted Updates), the same on replay, and runs from
// version 2 of the budget path on, so that histories recorded before it
// replay as they ran.
func (l *ledger) unmetered(ctx workflow.Context) error {
	if l.unreserved != nil {
		return l.unreserved
	}
	if !failsClosed(ctx) {
		return nil
	}
	open := l.watched[:0]
	for _, w := range l.watched {
		if !w.future.IsReady() {
			open = append(open, w)
			continue
		}
		m := w.call.meters
		err := w.future.Get(ctx, nil)
		switch {
		case err == nil && !m.succeeded:
			l.unreserved = fmt.Errorf("an earlier MODEL call of this run under a token or cost budget, %s (%s), succeeded with no success settled, so an activity worker without the kit ran it and nothing metered that attempt (or its settlement got no answer): register the kit's plugin on every activity worker of its task queue", w.activityType, w.name)
		case err != nil && m.reservedAttempt == 0 && m.refusedAttempt == 0 && ranUserCode(err):
			l.unreserved = fmt.Errorf("an earlier MODEL call of this run under a token or cost budget, %s (%s), failed in its own code with no attempt reserved, so an activity worker without the kit ran it and nothing metered it: register the kit's plugin on every activity worker of its task queue", w.activityType, w.name)
		default:
			continue
		}
		clear(l.watched)
		l.watched = nil
		return l.unreserved
	}
	clear(l.watched[len(open):])
	l.watched = open
	return nil
}

// precheck refuses, in workflow code before the call is scheduled, a
// metered call whose token or cost budget has nothing left, which the kit's
// activity side would refuse at the reservation: a worker without the kit
// would run it. It asks nothing of the call's cap or price, which workflow
// code or a worker's table may change between a run and its replay; what
// is left comes from the run's recorded reservations and settlements. It
// returns nil for a call it lets through, and for runs recorded before
// failClosedVersion.
func (l *ledger) precheck(ctx workflow.Context, activityType string, class temporaladk.Class, m meteredCall, maxTokens int64) *temporaladk.BudgetExceededError {
	if !failsClosed(ctx) {
		return nil
	}
	var refused *temporaladk.BudgetExceededError
	switch {
	case m.tokens != nil && m.tokens.Remaining() == 0:
		refused = &temporaladk.BudgetExceededError{Breached: "tokens", Limit: float64(m.tokens.Limit()),
			Consumed: float64(m.tokens.Reserved() + m.tokens.Spent()), Asked: float64(maxTokens)}
	case m.cost != nil && m.cost.Remaining() == 0:
		refused = &temporaladk.BudgetExceededError{Breached: "cost", Limit: float64(m.cost.Limit()),
			Consumed: float64(m.cost.Reserved() + m.cost.Spent())}
	default:
		return nil
	}
	l.refuse(ctx, observe.Refusal{ActivityType: activityType, Class: class, Attempt: 1, Err: refused})
	return refused
}

// ranUserCode reports whether a call that ended with err certainly ran the
// user's code: it succeeded, or failed with an ApplicationError whose type
// the error table does not mark as returned before the user's code
// (vocab.ErrorType.BeforeUserCode: a charge or reservation refused or
// not answered, a grant refused, a misconfiguration). A timeout or a
// cancellation proves nothing: the attempt may never have started.
func ranUserCode(err error) bool {
	if err == nil {
		return true
	}
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return false
	}
	row, kit := vocab.LookupErrorType(app.Type())
	return !kit || !row.BeforeUserCode
}

// remainingOf is what call's budget has left: attempts under its AttemptBudget,
// or retries in its RetryBudget when it has none; nil for neither.
func remainingOf(call *budgetedCall) *int {
	var n int
	switch {
	case call.run != nil:
		n = call.run.Remaining()
	case call.pool != nil:
		n = call.pool.Remaining()
	default:
		return nil
	}
	return &n
}

// chargeAttempt charges attempt site.Attempt with budget.Charge and turns a
// refusal into the kit's error, refused (l.refuse) with site, which names
// the call.
func (l *ledger) chargeAttempt(ctx workflow.Context, run *budget.AttemptBudget, pool *budget.RetryBudget, site observe.Refusal) *temporaladk.BudgetExceededError {
	r := budget.Charge(run, pool, site.Attempt)
	if r == nil {
		return nil
	}
	site.Err = &temporaladk.BudgetExceededError{Breached: r.Breached, Limit: float64(r.Limit), Consumed: float64(r.Spent), Attempts: r.Attempts, Asked: 1}
	l.refuse(ctx, site)
	return site.Err
}

// refuse records a budget's refusal of an attempt: the metrics, the log and
// the observer, each outside replay only.
func (l *ledger) refuse(ctx workflow.Context, r observe.Refusal) {
	l.root.countRefusal(ctx, r.Class, r.Err)
	l.root.notify.budgetRefused(ctx, r)
}

// granted tells the observer that attempt of call, named name, was charged
// against its ceiling on attempts or its pool of retries. A call under
// neither (metered by tokens or cost only) is charged nothing here.
func (l *ledger) granted(ctx workflow.Context, call *budgetedCall, name string, attempt int) {
	if call.run == nil && call.pool == nil {
		return
	}
	l.root.notify.charged(ctx, observe.Charge{ActivityType: call.activityType, Class: call.class, Call: name, Attempt: attempt, Remaining: remainingOf(call)})
}
