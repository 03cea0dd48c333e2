package interceptors

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// errModelUnpriced is the cause of a temporaladk.TypeModelUnpriced failure.
var errModelUnpriced = errors.New("the model has no price in the worker's price table (interceptors.Options.Prices)")

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

// meteredCall is the token and cost budgets of one call in the ledger, and
// its reservation: the highest attempt reserved and the highest settled,
// what is outstanding and the price it was made at.
type meteredCall struct {
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

func (m meteredCall) metered() bool { return m.tokens != nil || m.cost != nil }

// seeMeters remembers the budgets the run meters with, for the Query.
func (l *ledger) seeMeters(tokens *budget.TokenBudget, cost *budget.CostBudget) {
	if tokens != nil {
		l.see(tokens)
	}
	if cost != nil {
		l.see(cost)
	}
}

// seeAttempts remembers the attempt budgets the run charges, for the Query.
func (l *ledger) seeAttempts(run *budget.AttemptBudget, pool *budget.RetryBudget) {
	if run != nil {
		l.see(run)
	}
	if pool != nil {
		l.see(pool)
	}
}

// see remembers b, once, in the order first seen.
func (l *ledger) see(b budget.Budget) {
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
func (l *ledger) states() ([]spend.State, error) {
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
func (l *ledger) reserve(ctx workflow.Context, call *budgetedCall, req wire.ChargeRequest) (func(), wire.ChargeResult) {
	m := &call.meters
	switch {
	case !m.metered() || req.Attempt <= m.reservedAttempt:
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
			l.root.notify.usageSettled(ctx, observe.Settlement{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: m.reservedAttempt, Unsettled: true})
		}
		m.key = budget.Key{Class: call.class.String(), Model: r.Model}
		m.price = r.Price
		m.outstanding = amount
		m.reservedAttempt = req.Attempt
		_ = budget.Reserve(m.tokens, m.cost, m.key, amount)
		l.count(ctx, m.key, MetricTokensReserved, MetricCostReserved, amount, m)
		l.root.notify.tokensReserved(ctx, observe.Reservation{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt, Model: r.Model, MaxTokens: r.MaxTokens, Price: r.Price})
	}, wire.ChargeResult{}
}

// settle answers a settle request: the reservation of req.Attempt becomes
// what the attempt reported, priced at the price it was reserved at. An
// attempt with nothing outstanding (settled already, or its reservation
// spent whole when the next was reserved) is granted and changes nothing.
func (l *ledger) settle(ctx workflow.Context, call *budgetedCall, req wire.ChargeRequest) wire.ChargeResult {
	m := &call.meters
	if req.Settle.Succeeded {
		m.succeeded = true
	}
	if !m.metered() || req.Attempt != m.reservedAttempt || m.settledAttempt >= req.Attempt {
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
	l.root.notify.usageSettled(ctx, observe.Settlement{ActivityType: call.activityType, Class: call.class, Call: req.Call, Attempt: req.Attempt, Usage: req.Settle.Usage, Succeeded: req.Settle.Succeeded})
	return wire.ChargeResult{Granted: true}
}

// settleMeters settles m's outstanding reservation with actual.
func (l *ledger) settleMeters(ctx workflow.Context, m *meteredCall, actual budget.Reservation) {
	budget.Settle(m.tokens, m.cost, m.key, m.outstanding, actual)
	m.settledAttempt = m.reservedAttempt
	m.outstanding = budget.Reservation{}
	l.count(ctx, m.key, MetricTokensSettled, MetricCostSettled, actual, m)
}

// count records amount in the metrics of the budgets m has.
func (l *ledger) count(ctx workflow.Context, k budget.Key, tokensName, costName string, amount budget.Reservation, m *meteredCall) {
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

// spendOf decides, in workflow code at scheduling, whether a call is
// metered: a MODEL call on a context with a token or cost budget, or of a
// run whose owner meters. It returns the header's part, the run's own
// budgets of the call, and an error for a metered call the kit cannot
// reserve: no cap or a cap below 1, no model under a cost budget, a local
// activity.
func spendOf(ctx workflow.Context, s scheduler, class temporaladk.Class, owner *budget.Owner) (wire.CallSpend, meteredCall, error) {
	tokens, cost := budget.MetersFrom(ctx)
	ownerMeters := owner != nil && (owner.Tokens || owner.Cost)
	if class != temporaladk.Model || (tokens == nil && cost == nil && !ownerMeters) {
		return wire.CallSpend{}, meteredCall{}, nil
	}
	maxTokens, model := budget.CallSpend(ctx)
	switch {
	case maxTokens == 0:
		return wire.CallSpend{}, meteredCall{}, errors.New("a MODEL call under a token or cost budget needs a cap: set one with temporaladk.Budgets.MaxTokens")
	case maxTokens < 0:
		return wire.CallSpend{}, meteredCall{}, fmt.Errorf("the cap (temporaladk.Budgets.MaxTokens) is %d: it must be at least 1", maxTokens)
	case model == "" && (cost != nil || (owner != nil && owner.Cost)):
		return wire.CallSpend{}, meteredCall{}, errors.New("a MODEL call under a cost budget needs a model to be priced at: set one with temporaladk.Budgets.Model")
	case s.local():
		return wire.CallSpend{}, meteredCall{}, errors.New("a local activity cannot be metered by a token or cost budget (its reservation is an Update the run cannot take while its workflow task waits for it): make it an activity")
	}
	return wire.CallSpend{MaxTokens: maxTokens, Model: model, Tokens: tokens != nil, Cost: cost != nil},
		meteredCall{tokens: tokens, cost: cost}, nil
}

// metered reports whether the call's attempts are reserved and settled.
func metered(h wire.CallHeader) bool {
	return h.Spend.MaxTokens > 0 && (h.Spend.Tokens || h.Spend.Cost || h.Owner.Tokens || h.Owner.Cost)
}

// startCharged reports whether attempt is charged or reserved before it
// runs.
func startCharged(h wire.CallHeader, attempt int) bool { return charged(h, attempt) || metered(h) }

// startAttempt charges and, for a metered call, reserves attempt before the
// user's code runs, through chargeCall. A call under a cost budget whose
// model has no price reserves nothing and fails with errModelUnpriced.
func (i *kitInterceptor) startAttempt(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int) (*temporaladk.BudgetExceededError, error) {
	var r *wire.Reservation
	if metered(h) {
		r = &wire.Reservation{Model: h.Spend.Model, MaxTokens: h.Spend.MaxTokens}
		if h.Spend.Cost || h.Owner.Cost {
			p, ok := i.prices[h.Spend.Model]
			if !ok {
				return nil, fmt.Errorf("model %q: %w", h.Spend.Model, errModelUnpriced)
			}
			r.Price = &p
		}
	}
	_, refused, err := i.chargeCall(ctx, info, h, attempt, r)
	return refused, err
}

// usageSum adds up what an attempt reports with providers.ReportUsage.
type usageSum struct {
	mu       sync.Mutex
	sum      spend.Usage
	reported bool
}

// recordUsage returns ctx with a usage recorder for a metered call's
// attempt, and the sum it keeps; ctx itself and nil for any other call.
func recordUsage(ctx context.Context, h wire.CallHeader) (context.Context, *usageSum) {
	if !metered(h) {
		return ctx, nil
	}
	s := &usageSum{}
	rctx, err := providers.WithUsageRecorder(ctx, func(u spend.Usage) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sum.InputTokens += u.InputTokens
		s.sum.CachedInputTokens += u.CachedInputTokens
		s.sum.OutputTokens += u.OutputTokens
		s.reported = true
	})
	if err != nil {
		// WithUsageRecorder refuses only a nil context or recorder, and
		// neither is nil here.
		return ctx, nil
	}
	return rctx, s
}

// settleAttempt settles a metered attempt's reservation with what it
// reported, at its run and at its owner, and waits for the answers, so that
// the workflow has the settlement before it reads the attempt's outcome. It
// never changes that outcome: a settlement that gets no answer is logged,
// and the reservation stays spent whole.
func (i *kitInterceptor) settleAttempt(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int, s *usageSum, succeeded bool) {
	if s == nil {
		return
	}
	settle := wire.Settlement{Succeeded: succeeded}
	s.mu.Lock()
	if s.reported {
		u := s.sum
		settle.Usage = &u
	}
	s.mu.Unlock()
	// The attempt's own context may be done (its deadline passed): the
	// settlement still matters, and keeps the attempt's values.
	ctx = context.WithoutCancel(ctx)
	var settles []charge
	if h.Budget != "" && (h.Spend.Tokens || h.Spend.Cost) {
		settles = append(settles, ownCharge(info, h, attempt))
	}
	if h.Owner.Call != "" && (h.Owner.Tokens || h.Owner.Cost) {
		settles = append(settles, ownerCharge(h, attempt))
	}
	for _, c := range settles {
		c.req.Settle = &settle
		if _, _, err := i.charges.askWorkflow(ctx, info, c.target, c.req); err != nil {
			activity.GetLogger(ctx).Warn("temporaladk: the attempt's reservation could not be settled; it stays spent whole", "error", err)
		}
	}
}

// op names what a charge request asks beyond its attempt, for its Update
// ID: a reservation and a settlement of one attempt are Updates apart from
// its charge.
func opOf(r wire.ChargeRequest) string {
	switch {
	case r.Settle != nil:
		return "/settle"
	case r.Reserve != nil:
		return "/reserve"
	}
	return ""
}
