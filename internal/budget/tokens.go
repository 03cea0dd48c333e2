package budget

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/spend"
)

// Micros, Price, State, Tally and Usage are the public value types of
// package spend, which this package counts in.
type (
	Micros = spend.Micros
	Price  = spend.Price
	State  = spend.State
	Tally  = spend.Tally
	Usage  = spend.Usage
)

// Highest is the highest of p's three prices: what a reservation prices
// every token at, since it cannot know which kind the attempt spends.
func Highest(p Price) Micros { return max(p.Input, p.CachedInput, p.Output) }

const perMillion = 1_000_000

// mulAdd returns sum + a×b, or false when it overflows; a, b and sum are
// not negative.
func mulAdd(sum, a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	if sum > math.MaxInt64-a*b {
		return 0, false
	}
	return sum + a*b, true
}

// ceilMillionth is n/1,000,000 rounded up, for n not negative: a price per
// million tokens applied to a count, never rounded in the spender's favour.
func ceilMillionth(n int64) Micros {
	return Micros(n/perMillion + min(n%perMillion, 1))
}

// CostOf is what u costs at p: the uncached input at Input, the cached
// input at CachedInput, the output at Output, rounded up to a whole
// micro-dollar.
func CostOf(u Usage, p Price) (Micros, error) {
	if err := u.Check(); err != nil {
		return 0, err
	}
	sum, ok := mulAdd(0, u.InputTokens-u.CachedInputTokens, int64(p.Input))
	if ok {
		sum, ok = mulAdd(sum, u.CachedInputTokens, int64(p.CachedInput))
	}
	if ok {
		sum, ok = mulAdd(sum, u.OutputTokens, int64(p.Output))
	}
	if !ok {
		return 0, fmt.Errorf("the cost of usage %+v at price %+v overflows", u, p)
	}
	return ceilMillionth(sum), nil
}

// ReservationCost is the most an attempt capped at maxTokens can cost at p:
// every token at p's highest price, rounded up. CostOf of any usage of at
// most maxTokens tokens is never above it.
func ReservationCost(maxTokens int64, p Price) (Micros, error) {
	if maxTokens < 0 {
		return 0, fmt.Errorf("max tokens is %d: it must not be negative", maxTokens)
	}
	sum, ok := mulAdd(0, maxTokens, int64(Highest(p)))
	if !ok {
		return 0, fmt.Errorf("%d tokens at %d micro-dollars per million overflow", maxTokens, Highest(p))
	}
	return ceilMillionth(sum), nil
}

// Key is what a budget's breakdown is by: the call's class and model.
type Key struct {
	Class string `json:"class"`
	Model string `json:"model"`
}

// meter is the state a token budget and a cost budget share: a ceiling,
// what is reserved for attempts under way and what settled attempts spent,
// with the breakdown by class and model. It lives in workflow state.
type meter struct {
	name     string
	limit    int64
	reserved int64
	spent    int64
	by       map[Key]*Tally
	order    []Key
}

func newMeter(limit int64) meter { return meter{limit: limit, by: map[Key]*Tally{}} }

func (m *meter) remaining() int64 { return max(m.limit-m.reserved-m.spent, 0) }

func (m *meter) fits(n int64) bool { return n <= m.remaining() }

func (m *meter) tally(k Key) *Tally {
	t, ok := m.by[k]
	if !ok {
		t = &Tally{Class: k.Class, Model: k.Model}
		m.by[k] = t
		m.order = append(m.order, k)
	}
	return t
}

func (m *meter) reserve(k Key, n int64) {
	m.reserved += n
	m.tally(k).Reserved += n
}

// settle turns a reservation of n into spent actual.
func (m *meter) settle(k Key, n, actual int64) {
	t := m.tally(k)
	m.reserved -= n
	t.Reserved -= n
	m.spent += actual
	t.Spent += actual
}

func (m *meter) state(kind string) State {
	s := State{Name: m.name, Kind: kind, Limit: m.limit, Reserved: m.reserved, Spent: m.spent, Remaining: m.remaining()}
	for _, k := range m.order {
		s.By = append(s.By, *m.by[k])
	}
	return s
}

// TokenBudget is a ceiling on the tokens (input plus output) of a run's
// MODEL calls. Each attempt reserves its cap before it runs and settles
// with what its provider reported after; an attempt the remaining
// allowance cannot cover is refused before it runs. It lives in workflow
// state.
type TokenBudget struct{ m meter }

// NewTokenBudget returns a budget of maxTokens tokens; it must be at least
// 1.
func NewTokenBudget(maxTokens int64) (*TokenBudget, error) {
	if maxTokens < 1 {
		return nil, fmt.Errorf("temporaladk: NewTokenBudget: maxTokens is %d: it must be at least 1", maxTokens)
	}
	return &TokenBudget{m: newMeter(maxTokens)}, nil
}

// Limit returns the ceiling, in tokens.
func (b *TokenBudget) Limit() int64 { return b.m.limit }

// Reserved returns the tokens reserved for attempts not settled yet.
func (b *TokenBudget) Reserved() int64 { return b.m.reserved }

// Spent returns the tokens settled attempts spent, with the whole
// reservation of attempts that ended without settling.
func (b *TokenBudget) Spent() int64 { return b.m.spent }

// Remaining returns the tokens left to reserve: the ceiling less what is
// reserved and settled, never below zero.
func (b *TokenBudget) Remaining() int64 { return b.m.remaining() }

// State returns the budget's figures and breakdown.
func (b *TokenBudget) State() State { return b.m.state(spend.KindTokens) }

// CostBudget is a ceiling on what a run's MODEL calls cost, in
// micro-dollars, reserved and settled as a TokenBudget is, at the prices of
// the worker's price table recorded in each reservation.
type CostBudget struct{ m meter }

// NewCostBudget returns a budget of maxCost micro-dollars; it must be at
// least 1.
func NewCostBudget(maxCost Micros) (*CostBudget, error) {
	if maxCost < 1 {
		return nil, fmt.Errorf("temporaladk: NewCostBudget: maxCost is %d micro-dollars: it must be at least 1", maxCost)
	}
	return &CostBudget{m: newMeter(int64(maxCost))}, nil
}

// Limit returns the ceiling.
func (b *CostBudget) Limit() Micros { return Micros(b.m.limit) }

// Reserved returns what is reserved for attempts not settled yet.
func (b *CostBudget) Reserved() Micros { return Micros(b.m.reserved) }

// Spent returns what settled attempts cost, with the whole reservation of
// attempts that ended without settling.
func (b *CostBudget) Spent() Micros { return Micros(b.m.spent) }

// Remaining returns what is left to reserve, never below zero.
func (b *CostBudget) Remaining() Micros { return Micros(b.m.remaining()) }

// State returns the budget's figures and breakdown.
func (b *CostBudget) State() State { return b.m.state(spend.KindCost) }

// Reservation is what one attempt reserves: tokens against a token budget,
// cost against a cost budget.
type Reservation struct {
	Tokens int64  `json:"tokens,omitempty"`
	Cost   Micros `json:"cost,omitempty"`
}

// SpendRefusal is why Reserve refused an attempt: Breached "tokens" or
// "cost", with the ceiling and what was reserved and settled.
type SpendRefusal struct {
	Breached     string
	Limit, Spent int64
}

// Check reports why r does not fit the remaining allowance of tokens or
// cost (either may be nil), or nil when it fits both.
func Check(tokens *TokenBudget, cost *CostBudget, r Reservation) *SpendRefusal {
	if tokens != nil && !tokens.m.fits(r.Tokens) {
		return &SpendRefusal{Breached: "tokens", Limit: tokens.m.limit, Spent: tokens.m.reserved + tokens.m.spent}
	}
	if cost != nil && !cost.m.fits(int64(r.Cost)) {
		return &SpendRefusal{Breached: "cost", Limit: cost.m.limit, Spent: cost.m.reserved + cost.m.spent}
	}
	return nil
}

// Reserve reserves r for key against whichever of tokens and cost are not
// nil, and returns nil; or it reserves nothing and returns why not (Check).
// Both are checked before either is reserved.
func Reserve(tokens *TokenBudget, cost *CostBudget, k Key, r Reservation) *SpendRefusal {
	if refusal := Check(tokens, cost, r); refusal != nil {
		return refusal
	}
	if tokens != nil {
		tokens.m.reserve(k, r.Tokens)
	}
	if cost != nil {
		cost.m.reserve(k, int64(r.Cost))
	}
	return nil
}

// Settle turns reservation r of key into what the attempt spent: actual's
// tokens and cost. An attempt that ended without settling is settled with
// actual equal to r: its whole reservation is spent.
func Settle(tokens *TokenBudget, cost *CostBudget, k Key, r, actual Reservation) {
	if tokens != nil {
		tokens.m.settle(k, r.Tokens, actual.Tokens)
	}
	if cost != nil {
		cost.m.settle(k, int64(r.Cost), int64(actual.Cost))
	}
}

type tokensKey struct{}
type costKey struct{}
type maxTokensKey struct{}
type modelKey struct{}

// WithTokens returns ctx whose MODEL calls reserve and settle against b.
func WithTokens(ctx workflow.Context, b *TokenBudget) workflow.Context {
	return workflow.WithValue(ctx, tokensKey{}, b)
}

// WithCost returns ctx whose MODEL calls reserve and settle against b.
func WithCost(ctx workflow.Context, b *CostBudget) workflow.Context {
	return workflow.WithValue(ctx, costKey{}, b)
}

// MetersFrom returns the token and the cost budget attached to ctx; either
// may be nil.
func MetersFrom(ctx workflow.Context) (*TokenBudget, *CostBudget) {
	if ctx == nil {
		return nil, nil
	}
	t, _ := ctx.Value(tokensKey{}).(*TokenBudget)
	c, _ := ctx.Value(costKey{}).(*CostBudget)
	return t, c
}

// WithMaxTokens returns ctx whose calls are capped at n tokens each.
func WithMaxTokens(ctx workflow.Context, n int64) workflow.Context {
	return workflow.WithValue(ctx, maxTokensKey{}, n)
}

// WithModel returns ctx whose calls name model.
func WithModel(ctx workflow.Context, model string) workflow.Context {
	return workflow.WithValue(ctx, modelKey{}, model)
}

// CallSpend returns the cap and the model of a call made on ctx: those
// attached to ctx, else those of the owner whose ledger charges the run (a
// child workflow gets the cap and the model it was started with); zero and
// "" for none.
func CallSpend(ctx workflow.Context) (maxTokens int64, model string) {
	if ctx == nil {
		return 0, ""
	}
	maxTokens, _ = ctx.Value(maxTokensKey{}).(int64)
	model, _ = ctx.Value(modelKey{}).(string)
	if c := ChainFrom(ctx); c != nil && c.Owner() != nil {
		if maxTokens == 0 {
			maxTokens = c.Owner().MaxTokens
		}
		if model == "" {
			model = c.Owner().Model
		}
	}
	return maxTokens, model
}

// MeterState is a named token or cost budget as it stood when its run
// ended: its ceiling, and what it spent (settled and still reserved, since
// the next run cannot settle a reservation of this one).
type MeterState struct {
	Limit int64 `json:"limit"`
	Spent int64 `json:"spent"`
}

func validMeters(kind string, states map[string]MeterState) error {
	for _, name := range slices.Sorted(maps.Keys(states)) {
		s := states[name]
		if name == "" || s.Limit < 1 || s.Spent < 0 {
			return fmt.Errorf("%s budget %q: limit %d, spent %d", kind, name, s.Limit, s.Spent)
		}
	}
	return nil
}
