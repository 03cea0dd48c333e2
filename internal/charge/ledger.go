package charge

import (
	"errors"
	"fmt"
	"slices"

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
// worker without the kit (Ledger.Unmetered), and refuses in workflow code
// a metered call whose budget has nothing left (Ledger.Precheck). From
// countedVersion on, it also counts the attempts such a worker ran of a
// call under a ceiling on attempts or a pool of retries, and then refuses
// every budgeted call, not only metered ones. From namespacedVersion on,
// the retry policies of the run's calls list the never-retryable types as
// "Temporaladk..." (temporaladk's error table): before it they listed the
// former types (vocab.ErrorType.Formerly), which exhaustedRetryably then
// counts as listed, as the server did.
const (
	failClosedVersion workflow.Version = 2
	countedVersion    workflow.Version = 3
	namespacedVersion workflow.Version = 4
	budgetVersion                      = namespacedVersion
)

// budgetPath is the version of the budget path the run takes: every run
// started by this version takes budgetVersion, and a history recorded
// before it replays as it ran.
func budgetPath(ctx workflow.Context) workflow.Version {
	return workflow.GetVersion(ctx, budgetChangeID, 1, budgetVersion)
}

// failsClosed reports whether the run takes the budget path of
// failClosedVersion or later.
func failsClosed(ctx workflow.Context) bool { return budgetPath(ctx) >= failClosedVersion }

// Hooks is what the Ledger needs of the kit that wires it: where it reports
// its decisions, and the error it rejects a charge with once the run has
// handed over. Each hook is called in workflow code, replay included: a hook
// that records or notifies does so outside replay only. A nil hook is not
// called.
type Hooks struct {
	// Refused records a budget's refusal of an attempt (the metrics, the
	// log, the observer).
	Refused func(ctx workflow.Context, r observe.Refusal)
	// Charged tells the observer a budget granted an attempt.
	Charged func(ctx workflow.Context, c observe.Charge)
	// Reserved tells the observer a token or cost budget reserved an
	// attempt's most.
	Reserved func(ctx workflow.Context, r observe.Reservation)
	// Settled tells the observer an attempt's reservation was settled.
	Settled func(ctx workflow.Context, s observe.Settlement)
	// HandedOver is the error the charge Update's validator rejects every
	// charge with once the run is continuing as new. If not set, an error
	// that says so.
	HandedOver error
}

// Ledger is the workflow side of the budgets: the calls one run made under
// a budget, by name, and the Update handler that charges their retries. It
// lives in the run's workflow state and decides every charge there, so that
// a replay decides the same. A Ledger serves one run.
type Ledger struct {
	hooks Hooks
	chain *budget.Chain
	calls map[string]*budgetedCall
	seq   int
	// delegations are the budgets the run started its children under, by
	// delegation name.
	delegations map[string]Delegation
	children    int
	// budgets are the budgets the run charged calls against, in the order
	// it first did (seen holds them too), for the Query.
	budgets []budget.Budget
	seen    map[budget.Budget]bool
	// watched are the metered calls scheduled and not yet seen complete,
	// in the order they were made (Unmetered); unreserved is the error of
	// the first that completed with no attempt reserved.
	watched    []watchedCall
	unreserved error
}

// watchedCall is a metered or attempt-budgeted call, its activity type
// and the future of its result; for an activity under a ceiling on attempts
// or a pool of retries, the attempts its retry policy gives it and the
// error types the policy does not retry (maxAttempts 0 for none to check).
type watchedCall struct {
	name         string
	call         *budgetedCall
	activityType string
	future       workflow.Future
	maxAttempts  int
	nonRetryable []string
}

// Delegation is the budgets a child workflow is started under; each may be
// nil.
type Delegation struct {
	// Attempts is the ceiling on attempts (temporaladk.Budgets.Attempts).
	Attempts *budget.AttemptBudget
	// Retries is the pool of retries (temporaladk.Budgets.Retries).
	Retries *budget.RetryBudget
	// Tokens is the token budget (temporaladk.Budgets.Tokens).
	Tokens *budget.TokenBudget
	// Cost is the cost budget (temporaladk.Budgets.Cost).
	Cost *budget.CostBudget
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
	meters       Meters
}

// NewLedger returns the ledger of one run, which reports its decisions to
// hooks.
func NewLedger(hooks Hooks) *Ledger {
	if hooks.HandedOver == nil {
		hooks.HandedOver = errors.New("temporaladk: this run is continuing as new and charges nothing more")
	}
	return &Ledger{hooks: hooks, calls: map[string]*budgetedCall{}, delegations: map[string]Delegation{}}
}

// Register gives the ledger the run's chain state and installs the charge
// Update handler (wire.ChargeUpdateName) and the budgets Query handler
// (spend.QueryName); neither adds a command. Once the run has handed its
// state to the next (chain.Closed: it is continuing as new), the validator
// rejects every charge with Hooks.HandedOver: a rejected Update is not
// written to history and not counted against the run's Updates, and a
// charge granted after the hand-over would be lost to the next run.
func (l *Ledger) Register(ctx workflow.Context, chain *budget.Chain) error {
	l.chain = chain
	return l.register(ctx)
}

func (l *Ledger) register(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, wire.ChargeUpdateName, func(ctx workflow.Context, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
		out := make([]wire.ChargeResult, len(reqs))
		for i, req := range reqs {
			out[i] = l.charge(ctx, req)
		}
		return out, nil
	}, workflow.UpdateHandlerOptions{Description: "temporaladk: charges the retries (and reserves and settles the tokens and cost) of this run's budgeted calls, asked by the kit's activity side before each attempt runs", Validator: func(ctx workflow.Context, reqs []wire.ChargeRequest) error {
		if l.chain.Closed() {
			return l.hooks.HandedOver
		}
		return nil
	}}); err != nil {
		return err
	}
	return workflow.SetQueryHandlerWithOptions(ctx, spend.QueryName, l.states, workflow.QueryHandlerOptions{
		Description: "temporaladk: every budget this run charged or named (attempts, retries, tokens, cost): limit, reserved, spent, remaining, and tokens and cost by class and model",
	})
}

// Chain is the run's chain state, given to Register; nil before.
func (l *Ledger) Chain() *budget.Chain { return l.chain }

// Owner is the ledger this run's calls are charged to besides their own
// budgets; nil for none.
func (l *Ledger) Owner() *budget.Owner {
	if l.chain == nil {
		return nil
	}
	return l.chain.Owner()
}

// Delegate names the budgets a child workflow is started under, for its
// calls' charges: deterministic, one name per child the run starts.
func (l *Ledger) Delegate(d Delegation) string {
	l.children++
	name := fmt.Sprintf("child-%d", l.children)
	l.delegations[name] = d
	l.seeAttempts(d.Attempts, d.Retries)
	l.seeMeters(d.Tokens, d.Cost)
	return name
}

// Open charges a budgeted call's first attempt, in workflow code before the
// call is scheduled, and names the call for its retries' charges. A refusal
// is a *temporaladk.BudgetExceededError and the call is not scheduled.
func (l *Ledger) Open(ctx workflow.Context, activityType string, class temporaladk.Class, run *budget.AttemptBudget, pool *budget.RetryBudget, meters Meters) (string, error) {
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

// OwnerCall names a call of this run in its owner's ledger: unique across
// the owner's family, since it names this run, and the same on replay.
func (l *Ledger) OwnerCall(ctx workflow.Context, owner *budget.Owner) wire.CallOwner {
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
func (l *Ledger) charge(ctx workflow.Context, req wire.ChargeRequest) wire.ChargeResult {
	call, ok := l.calls[req.Call]
	if !ok && req.Delegation != "" {
		// A child's call, charged here for the first time.
		d, known := l.delegations[req.Delegation]
		if !known {
			return wire.ChargeResult{Error: fmt.Sprintf("temporaladk: this run started no child under budgets %q", req.Delegation)}
		}
		call = &budgetedCall{run: d.Attempts, pool: d.Retries, class: req.Class, meters: Meters{tokens: d.Tokens, cost: d.Cost}}
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

// AttemptsLeft is the most attempts the call named name can have, its first
// (charged already) included: one more than the fewest its run budget and
// its pool have left; 0 for a call under neither (only metered), which has
// no such bound, and for a name the run did not give.
func (l *Ledger) AttemptsLeft(name string) int {
	call, ok := l.calls[name]
	if !ok {
		return 0
	}
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

// Charged is the highest attempt the run charged of its budgeted call name;
// 0 for a call under no budget of the run (name ""), whose attempts the
// workflow does not see.
func (l *Ledger) Charged(name string) int {
	if call, ok := l.calls[name]; ok && name != "" {
		return call.charged
	}
	return 0
}

// Watch keeps the future of the budgeted call named name until it
// completes: see Unmetered. retry is the retry policy the call was
// scheduled with, nil for a call whose retries the run does not see (a
// local activity, a child's call charged at its owner): its attempts are
// not checked.
func (l *Ledger) Watch(name, activityType string, f workflow.Future, retry *temporal.RetryPolicy) {
	w := watchedCall{name: name, call: l.calls[name], activityType: activityType, future: f}
	if w.call == nil {
		return
	}
	if retry != nil && (w.call.run != nil || w.call.pool != nil) {
		w.maxAttempts, w.nonRetryable = int(retry.MaximumAttempts), retry.NonRetryableErrorTypes
	}
	if !w.call.meters.Metered() && w.maxAttempts == 0 {
		return
	}
	l.watched = append(l.watched, w)
}

// Unmetered returns an error once a budgeted call of the run has completed
// in a way only a worker without the kit leaves, so that the next budgeted
// call is refused and a fleet with such a worker fails closed instead of
// spending past the ceiling. metered says whether the call asking is
// metered.
//
// On a worker with the kit, each attempt of a metered call is reserved
// through the charge Update before the user's code runs and settled after
// it, a success settled as one, before the attempt returns: a metered call
// that succeeded with no success settled, or failed in the user's code
// with no attempt reserved, ran (at least its last attempt) on an activity
// worker without the kit, and nothing metered it. From version 2 of the
// budget path on, every metered call after it is refused.
//
// On a worker with the kit, every retry of a call under a ceiling on
// attempts or a pool of retries is charged before the user's code runs,
// and the last attempt the budget allows asks for one more, whose refusal
// ends the call with BudgetExceededError: a call that failed in the user's
// code, retryably by its retry policy (so the server ran every attempt the
// policy gives), with fewer attempts charged than that, had its retries run
// on a worker without the kit. From version 3 on, those attempts are
// counted against its budgets (the server held the call to what they had
// left when it was scheduled), and every budgeted call after it is refused.
//
// A call that ended because its charge was refused or could not be asked,
// by a timeout or by a cancellation is no such call. It reads only what the
// run's history gave it (Future.IsReady, the accepted Updates), the same on
// replay.
func (l *Ledger) Unmetered(ctx workflow.Context, metered bool) error {
	version := budgetPath(ctx)
	if version < failClosedVersion {
		return nil
	}
	if l.unreserved == nil {
		l.unreserved = l.firstUnmetered(ctx, version)
	}
	if l.unreserved != nil && (metered || version >= countedVersion) {
		return l.unreserved
	}
	return nil
}

// firstUnmetered reads the watched calls that have completed, drops them,
// and returns the error of the first that ran where the kit did not meter
// or charge it (see Unmetered); nil when none did.
func (l *Ledger) firstUnmetered(ctx workflow.Context, version workflow.Version) error {
	open := l.watched[:0]
	for _, w := range l.watched {
		if !w.future.IsReady() {
			open = append(open, w)
			continue
		}
		m := w.call.meters
		err := w.future.Get(ctx, nil)
		var unmetered error
		switch {
		case m.Metered() && err == nil && !m.succeeded:
			unmetered = fmt.Errorf("an earlier MODEL call of this run under a token or cost budget, %s (%s), succeeded with no success settled, so an activity worker without the kit ran it and nothing metered that attempt (or its settlement got no answer): register the kit's plugin on every activity worker of its task queue", w.activityType, w.name)
		case m.Metered() && err != nil && m.reservedAttempt == 0 && m.refusedAttempt == 0 && RanUserCode(err):
			unmetered = fmt.Errorf("an earlier MODEL call of this run under a token or cost budget, %s (%s), failed in its own code with no attempt reserved, so an activity worker without the kit ran it and nothing metered it: register the kit's plugin on every activity worker of its task queue", w.activityType, w.name)
		case version >= countedVersion && w.maxAttempts > w.call.charged && exhaustedRetryably(err, w.nonRetryable, version):
			charged := w.call.charged
			for attempt := charged + 1; attempt <= w.maxAttempts; attempt++ {
				budget.Ran(w.call.run, w.call.pool, attempt)
			}
			w.call.charged = w.maxAttempts
			unmetered = fmt.Errorf("an earlier call of this run under a ceiling on attempts or a pool of retries, %s (%s), failed retryably after the %d attempts its retry policy gives, of which the run charged %d, so an activity worker without the kit ran the others and nothing charged them (they are counted now): register the kit's plugin on every activity worker of its task queue", w.activityType, w.name, w.maxAttempts, charged)
		}
		if unmetered != nil {
			clear(l.watched)
			l.watched = nil
			return unmetered
		}
	}
	clear(l.watched[len(open):])
	l.watched = open
	return nil
}

// exhaustedRetryably reports whether a call that ended with err ran out of
// its retry policy's attempts on failures the policy retries: the user's
// code ran (RanUserCode), and the failure is an ApplicationError neither
// marked non-retryable nor of a type the policy lists in nonRetryable, and
// no timeout or cancellation ended the call (a ScheduleToClose timeout ends
// it with attempts left). nonRetryable is the policy as this build plans
// it; a run of a version before namespacedVersion was scheduled with the
// never-retryable types under their former names, which count as listed.
func exhaustedRetryably(err error, nonRetryable []string, version workflow.Version) bool {
	if err == nil || !RanUserCode(err) {
		return false
	}
	var timeout *temporal.TimeoutError
	var canceled *temporal.CanceledError
	if errors.As(err, &timeout) || errors.As(err, &canceled) {
		return false
	}
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.NonRetryable() || slices.Contains(nonRetryable, app.Type()) {
		return false
	}
	return version >= namespacedVersion || !vocab.IsFormerNeverRetryableType(app.Type())
}

// Precheck refuses, in workflow code before the call is scheduled, a
// metered call whose token or cost budget has nothing left, which the kit's
// activity side would refuse at the reservation: a worker without the kit
// would run it. It asks nothing of the call's cap or price, which workflow
// code or a worker's table may change between a run and its replay; what
// is left comes from the run's recorded reservations and settlements. It
// returns nil for a call it lets through, and for runs recorded before
// failClosedVersion.
func (l *Ledger) Precheck(ctx workflow.Context, activityType string, class temporaladk.Class, m Meters, maxTokens int64) *temporaladk.BudgetExceededError {
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

// RanUserCode reports whether a call that ended with err certainly ran the
// user's code: it succeeded, or failed with an ApplicationError whose row of
// the error table (vocab.ApplicationErrorType: by its type, or its former
// type in a history an earlier build recorded) does not mark it as
// returned before the user's code (vocab.ErrorType.BeforeUserCode: a
// charge or reservation refused or not answered, a grant refused, a
// misconfiguration). A timeout or a
// cancellation proves nothing: the attempt may never have started.
func RanUserCode(err error) bool {
	if err == nil {
		return true
	}
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return false
	}
	row, kit := vocab.ApplicationErrorType(app)
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
func (l *Ledger) chargeAttempt(ctx workflow.Context, run *budget.AttemptBudget, pool *budget.RetryBudget, site observe.Refusal) *temporaladk.BudgetExceededError {
	r := budget.Charge(run, pool, site.Attempt)
	if r == nil {
		return nil
	}
	site.Err = &temporaladk.BudgetExceededError{Breached: r.Breached, Limit: float64(r.Limit), Consumed: float64(r.Spent), Attempts: r.Attempts, Asked: 1}
	l.refuse(ctx, site)
	return site.Err
}

// refuse records a budget's refusal of an attempt through Hooks.Refused.
func (l *Ledger) refuse(ctx workflow.Context, r observe.Refusal) {
	if l.hooks.Refused != nil {
		l.hooks.Refused(ctx, r)
	}
}

// granted tells the observer that attempt of call, named name, was charged
// against its ceiling on attempts or its pool of retries. A call under
// neither (metered by tokens or cost only) is charged nothing here.
func (l *Ledger) granted(ctx workflow.Context, call *budgetedCall, name string, attempt int) {
	if (call.run == nil && call.pool == nil) || l.hooks.Charged == nil {
		return
	}
	l.hooks.Charged(ctx, observe.Charge{ActivityType: call.activityType, Class: call.class, Call: name, Attempt: attempt, Remaining: remainingOf(call)})
}

// Meters is the token and cost budgets of one call in the ledger, and its
// reservation: the highest attempt reserved and the highest settled, what
// is outstanding and the price it was made at. SpendOf makes it.
type Meters struct {
	tokens *budget.TokenBudget
	cost   *budget.CostBudget

	reservedAttempt, settledAttempt int
	// succeeded is set when an attempt of the call settled as a success.
	succeeded      bool
	refused        *temporaladk.BudgetExceededError
	refusedAttempt int
	outstanding    budget.Reservation
	key            budget.Key
	price          *spend.Price
}

// Metered reports whether the call is under a token or a cost budget of
// the run.
func (m Meters) Metered() bool { return m.tokens != nil || m.cost != nil }

// SpendOf decides, in workflow code at scheduling, whether a call is
// metered: a MODEL call on a context with a token or cost budget, or of a
// run whose owner meters. It returns the header's part, the run's own
// budgets of the call, and an error for a metered call the kit cannot
// reserve: no cap or a cap below 1, no model under a cost budget, a local
// activity (local).
func SpendOf(ctx workflow.Context, class temporaladk.Class, owner *budget.Owner, local bool) (wire.CallSpend, Meters, error) {
	tokens, cost := budget.MetersFrom(ctx)
	ownerMeters := owner != nil && (owner.Tokens || owner.Cost)
	if class != temporaladk.Model || (tokens == nil && cost == nil && !ownerMeters) {
		return wire.CallSpend{}, Meters{}, nil
	}
	maxTokens, model := budget.CallSpend(ctx)
	switch {
	case maxTokens == 0:
		return wire.CallSpend{}, Meters{}, errors.New("a MODEL call under a token or cost budget needs a cap: set one with temporaladk.Budgets.MaxTokens")
	case maxTokens < 0:
		return wire.CallSpend{}, Meters{}, fmt.Errorf("the cap (temporaladk.Budgets.MaxTokens) is %d: it must be at least 1", maxTokens)
	case model == "" && (cost != nil || (owner != nil && owner.Cost)):
		return wire.CallSpend{}, Meters{}, errors.New("a MODEL call under a cost budget needs a model to be priced at: set one with temporaladk.Budgets.Model")
	case local:
		return wire.CallSpend{}, Meters{}, errors.New("a local activity cannot be metered by a token or cost budget (its reservation is an Update the run cannot take while its workflow task waits for it): make it an activity")
	}
	return wire.CallSpend{MaxTokens: maxTokens, Model: model, Tokens: tokens != nil, Cost: cost != nil},
		Meters{tokens: tokens, cost: cost}, nil
}

// seeMeters remembers the budgets the run meters with, for the Query.
func (l *Ledger) seeMeters(tokens *budget.TokenBudget, cost *budget.CostBudget) {
	if tokens != nil {
		l.see(tokens)
	}
	if cost != nil {
		l.see(cost)
	}
}

// seeAttempts remembers the attempt budgets the run charges, for the Query.
func (l *Ledger) seeAttempts(run *budget.AttemptBudget, pool *budget.RetryBudget) {
	if run != nil {
		l.see(run)
	}
	if pool != nil {
		l.see(pool)
	}
}

// see remembers b, once, in the order first seen.
func (l *Ledger) see(b budget.Budget) {
	if l.seen == nil {
		l.seen = map[budget.Budget]bool{}
	}
	if !l.seen[b] {
		l.seen[b] = true
		l.budgets = append(l.budgets, b)
	}
}

// states answers the budgets Query: every budget the run charged calls
// against, in the order it first did, then those it named and did not use.
func (l *Ledger) states() ([]spend.State, error) {
	out := []spend.State{}
	all := append([]budget.Budget(nil), l.budgets...)
	if l.chain != nil {
		for _, b := range l.chain.Named() {
			if !l.seen[b] {
				all = append(all, b)
			}
		}
	}
	for _, b := range all {
		out = append(out, b.State())
	}
	return out, nil
}

// reserve checks req's reservation of call and returns the function that
// makes it, once the attempt is charged; or nil and the answer that refuses
// it or says what is wrong. A reservation already made (the same attempt
// asked again) is granted without a second one, and a refusal stands.
func (l *Ledger) reserve(ctx workflow.Context, call *budgetedCall, req wire.ChargeRequest) (func(), wire.ChargeResult) {
	m := &call.meters
	switch {
	case !m.Metered() || req.Attempt <= m.reservedAttempt:
		return func() {}, wire.ChargeResult{}
	case req.Attempt == m.refusedAttempt:
		return nil, wire.ChargeResult{Refused: m.refused}
	}
	r := req.Reserve
	if r.MaxTokens < 1 {
		return nil, wire.ChargeResult{Error: fmt.Sprintf("temporaladk: the reservation of call %q has max tokens %d: it must be at least 1", req.Call, r.MaxTokens)}
	}
	var amount budget.Reservation
	if m.tokens != nil {
		amount.Tokens = r.MaxTokens
	}
	if m.cost != nil {
		if r.Price == nil {
			return nil, wire.ChargeResult{Error: fmt.Sprintf("temporaladk: the reservation of call %q under a cost budget has no price for model %q", req.Call, r.Model)}
		}
		cost, err := budget.ReservationCost(r.MaxTokens, *r.Price)
		if err != nil {
			return nil, wire.ChargeResult{Error: fmt.Sprintf("temporaladk: the reservation of call %q: %v", req.Call, err)}
		}
		amount.Cost = cost
	}
	if refusal := budget.Check(m.tokens, m.cost, amount); refusal != nil {
		asked := float64(amount.Tokens)
		if refusal.Breached == "cost" {
			asked = float64(amount.Cost)
		}
		refused := &temporaladk.BudgetExceededError{Breached: refusal.Breached, Limit: float64(refusal.Limit), Consumed: float64(refusal.Spent), Attempts: req.Attempt - 1, Asked: asked}
		l.refuse(ctx, observe.Refusal{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt, Err: refused})
		m.refused, m.refusedAttempt = refused, req.Attempt
		return nil, wire.ChargeResult{Refused: refused}
	}
	return func() {
		if m.reservedAttempt > m.settledAttempt {
			// The attempt before ended without settling: its whole
			// reservation is spent.
			l.settleMeters(ctx, m, m.outstanding)
			l.settled(ctx, observe.Settlement{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: m.reservedAttempt, Unsettled: true})
		}
		m.key = budget.Key{Class: call.class.String(), Model: r.Model}
		m.price = r.Price
		m.outstanding = amount
		m.reservedAttempt = req.Attempt
		_ = budget.Reserve(m.tokens, m.cost, m.key, amount)
		l.count(ctx, m.key, observe.MetricTokensReserved, observe.MetricCostReserved, amount, m)
		if l.hooks.Reserved != nil {
			l.hooks.Reserved(ctx, observe.Reservation{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt, Model: r.Model, MaxTokens: r.MaxTokens, Price: r.Price})
		}
	}, wire.ChargeResult{}
}

// settle answers a settle request: the reservation of req.Attempt becomes
// what the attempt reported, priced at the price it was reserved at. An
// attempt with nothing outstanding (settled already, or its reservation
// spent whole when the next was reserved) is granted and changes nothing.
func (l *Ledger) settle(ctx workflow.Context, call *budgetedCall, req wire.ChargeRequest) wire.ChargeResult {
	m := &call.meters
	if req.Settle.Succeeded {
		m.succeeded = true
	}
	if !m.Metered() || req.Attempt != m.reservedAttempt || m.settledAttempt >= req.Attempt {
		return wire.ChargeResult{Granted: true}
	}
	actual := m.outstanding
	if usage := req.Settle.Usage; usage != nil {
		tokens, err := usage.Tokens()
		if err != nil {
			return wire.ChargeResult{Error: fmt.Sprintf("temporaladk: settling call %q: %v", req.Call, err)}
		}
		actual = budget.Reservation{}
		if m.tokens != nil {
			actual.Tokens = tokens
		}
		if m.cost != nil {
			cost, err := budget.CostOf(*usage, *m.price)
			if err != nil {
				return wire.ChargeResult{Error: fmt.Sprintf("temporaladk: settling call %q: %v", req.Call, err)}
			}
			actual.Cost = cost
		}
	}
	l.settleMeters(ctx, m, actual)
	l.settled(ctx, observe.Settlement{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt, Usage: req.Settle.Usage, Succeeded: req.Settle.Succeeded})
	return wire.ChargeResult{Granted: true}
}

// settled tells Hooks.Settled that an attempt's reservation was settled.
func (l *Ledger) settled(ctx workflow.Context, s observe.Settlement) {
	if l.hooks.Settled != nil {
		l.hooks.Settled(ctx, s)
	}
}

// settleMeters settles m's outstanding reservation with actual.
func (l *Ledger) settleMeters(ctx workflow.Context, m *Meters, actual budget.Reservation) {
	budget.Settle(m.tokens, m.cost, m.key, m.outstanding, actual)
	m.settledAttempt = m.reservedAttempt
	m.outstanding = budget.Reservation{}
	l.count(ctx, m.key, observe.MetricTokensSettled, observe.MetricCostSettled, actual, m)
}

// count records amount in the metrics of the budgets m has.
func (l *Ledger) count(ctx workflow.Context, k budget.Key, tokensName, costName string, amount budget.Reservation, m *Meters) {
	if workflow.IsReplaying(ctx) {
		return
	}
	h := workflow.GetMetricsHandler(ctx).WithTags(map[string]string{"class": temporaladk.Class(k.Class).Lower(), "model": k.Model})
	if m.tokens != nil {
		h.Counter(tokensName).Inc(amount.Tokens)
	}
	if m.cost != nil {
		h.Counter(costName).Inc(int64(amount.Cost))
	}
}
