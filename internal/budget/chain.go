package budget

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/workflow"
)

// Carried is the kit's state one run hands the next, in the start header of
// the run it begins: a run continued as new gets the named budgets of the
// run before it, as they stood; a child workflow gets the owner whose ledger
// charges its calls. It is the one way the kit's state crosses a run
// boundary, for every budget.
type Carried struct {
	// Attempts are the named ceilings on attempts, by name. Every JSON name
	// of Carried and its states is recorded in histories: it never changes.
	Attempts map[string]AttemptState `json:"runs,omitempty"`
	// Retries are the named retry pools, by name.
	Retries map[string]RetryState `json:"pools,omitempty"`
	// Tokens are the named token budgets, by name.
	Tokens map[string]MeterState `json:"tokens,omitempty"`
	// Costs are the named cost budgets, by name, in micro-dollars.
	Costs map[string]MeterState `json:"costs,omitempty"`
	// Owner is the run whose ledger charges this run's calls, for a child
	// workflow started under a budget (and the runs it continues as new);
	// nil for none.
	Owner *Owner `json:"owner,omitempty"`
}

// AttemptState is an AttemptBudget as it stood when its run ended.
type AttemptState struct {
	Limit int `json:"limit"`
	Spent int `json:"spent"`
}

// RetryState is a RetryBudget as it stood when its run ended.
type RetryState struct {
	// The JSON names are those of the headers recorded in histories: they
	// stay as they are.
	Limit  int `json:"size"`
	Spent  int `json:"used"`
	Firsts int `json:"firsts"`
}

// Owner names the ledger a child's calls are charged to: the parent run
// that started it under a budget, and the delegation there that holds the
// budgets it started the child under.
type Owner struct {
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Delegation string `json:"delegation"`
	// Tokens and Cost say whether the delegation holds a token or a cost
	// budget: the child's MODEL calls then need a cap, and every attempt
	// of theirs reserves and settles at the owner.
	Tokens bool `json:"tokens,omitempty"`
	Cost   bool `json:"cost,omitempty"`
	// MaxTokens and Model are the cap and the model of the context the
	// child was started on: its MODEL calls have them unless their own
	// context sets others.
	MaxTokens int64  `json:"max_tokens,omitempty"`
	Model     string `json:"model,omitempty"`
}

// Empty reports whether c carries nothing: the next run's header is left as
// it is.
func (c Carried) Empty() bool {
	return c.Owner == nil && len(c.Attempts)+len(c.Retries)+len(c.Tokens)+len(c.Costs) == 0
}

// Validate reports what is wrong with carried state read from a header: a
// budget whose numbers no run of the kit writes.
func (c Carried) Validate() error {
	for _, name := range slices.Sorted(maps.Keys(c.Attempts)) {
		s := c.Attempts[name]
		// Spent may be above Limit: a run that narrowed the ceiling below
		// what the chain spent keeps the spending.
		if name == "" || s.Limit < 1 || s.Spent < 0 {
			return fmt.Errorf("attempt budget %q: limit %d, spent %d", name, s.Limit, s.Spent)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Retries)) {
		s := c.Retries[name]
		if name == "" || s.Limit < 0 || s.Spent < 0 || s.Firsts < 0 {
			return fmt.Errorf("retry budget %q: limit %d, spent %d, first attempts %d", name, s.Limit, s.Spent, s.Firsts)
		}
	}
	if err := validMeters("token", c.Tokens); err != nil {
		return err
	}
	if err := validMeters("cost", c.Costs); err != nil {
		return err
	}
	if o := c.Owner; o != nil && (o.WorkflowID == "" || o.RunID == "" || o.Delegation == "" || o.MaxTokens < 0) {
		return fmt.Errorf("owner %+v: a workflow ID, a run ID and a delegation are all needed, and a cap must not be negative", *o)
	}
	return nil
}

// Chain is the kit's state of one workflow run that crosses into the next:
// what the run before it carried, the budgets named in this run, and the
// Updates this run has accepted. The interceptors create one per run and put
// it on the workflow's context; the conversation package reads it there.
// It lives in workflow state, so it needs no lock.
type Chain struct {
	carried  Carried
	attempts map[string]*AttemptBudget
	retries  map[string]*RetryBudget
	tokens   map[string]*TokenBudget
	costs    map[string]*CostBudget
	updates  int
	appended int64
	closed   bool
}

// NewChain returns the state of a run that begins with carried.
func NewChain(carried Carried) *Chain {
	return &Chain{carried: carried, attempts: map[string]*AttemptBudget{}, retries: map[string]*RetryBudget{},
		tokens: map[string]*TokenBudget{}, costs: map[string]*CostBudget{}}
}

// Owner is the ledger this run's calls are charged to besides their own
// budgets; nil for none.
func (c *Chain) Owner() *Owner { return c.carried.Owner }

// AttemptBudget returns this run's budget named name: the one the run named so
// already, or the one the run before it carried, restored, or a new one of
// maxAttempts. A restored budget keeps all it spent, and its ceiling is
// never widened: a maxAttempts above the carried ceiling leaves it, one
// below narrows it, even below what the chain spent (the budget then has
// nothing left, and Spent still says all the chain spent). A bad
// maxAttempts is an error also when the name is asked again.
func (c *Chain) AttemptBudget(name string, maxAttempts int) (*AttemptBudget, error) {
	return named(c.attempts, name, "budget", func() (*AttemptBudget, error) { return NewAttemptBudget(maxAttempts) }, func(b *AttemptBudget) {
		b.name = name
		if s, ok := c.carried.Attempts[name]; ok {
			b.limit = min(b.limit, s.Limit)
			b.spent = s.Spent
		}
	})
}

// RetryBudget returns this run's pool named name, as AttemptBudget does: a
// restored pool keeps all its used retries and first attempts, and is
// never made larger than it was.
func (c *Chain) RetryBudget(name string, retries int) (*RetryBudget, error) {
	return named(c.retries, name, "pool", func() (*RetryBudget, error) { return NewRetryBudget(retries) }, func(p *RetryBudget) {
		p.name = name
		if s, ok := c.carried.Retries[name]; ok {
			p.limit = min(p.limit, s.Limit)
			p.spent = s.Spent
			p.firsts = s.Firsts
		}
	})
}

// TokenBudget returns this run's token budget named name, as AttemptBudget
// does: a restored budget keeps what the runs before spent (settled, and
// reserved there, which no later run can settle) and its ceiling is never
// widened.
func (c *Chain) TokenBudget(name string, maxTokens int64) (*TokenBudget, error) {
	return named(c.tokens, name, "budget", func() (*TokenBudget, error) { return NewTokenBudget(maxTokens) }, func(b *TokenBudget) {
		restore(&b.m, name, c.carried.Tokens)
	})
}

// CostBudget returns this run's cost budget named name, as TokenBudget
// does.
func (c *Chain) CostBudget(name string, maxCost Micros) (*CostBudget, error) {
	return named(c.costs, name, "budget", func() (*CostBudget, error) { return NewCostBudget(maxCost) }, func(b *CostBudget) {
		restore(&b.m, name, c.carried.Costs)
	})
}

// named is the one way a run names a budget of any kind: the budget of
// budgets named name if the run named it already, else a new one from
// newBudget, given what the run before carried of that name by restore,
// and kept under the name. An empty name is an error naming the kind.
func named[B any](budgets map[string]B, name, kind string, newBudget func() (B, error), restore func(B)) (B, error) {
	var none B
	if name == "" {
		return none, fmt.Errorf("the %s has no name: a name is what the next run finds it by", kind)
	}
	// The size is validated first, also when the name is asked again: a
	// bad size is the caller's mistake whichever run or line asks it.
	b, err := newBudget()
	if err != nil {
		return none, err
	}
	if named, ok := budgets[name]; ok {
		return named, nil
	}
	restore(b)
	budgets[name] = b
	return b, nil
}

// Budget is any of the kit's budgets, as the budgets Query reports it:
// *AttemptBudget, *RetryBudget, *TokenBudget and *CostBudget.
type Budget interface {
	State() State
}

// Named returns the budgets named in this run, attempts, pools, tokens
// and costs, each kind by name.
func (c *Chain) Named() []Budget {
	var out []Budget
	for _, name := range slices.Sorted(maps.Keys(c.attempts)) {
		out = append(out, c.attempts[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.retries)) {
		out = append(out, c.retries[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.tokens)) {
		out = append(out, c.tokens[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.costs)) {
		out = append(out, c.costs[name])
	}
	return out
}

// restore names m and gives it what the run before left of the budget of
// that name: the smaller ceiling, and its spending as settled.
func restore(m *meter, name string, carried map[string]MeterState) {
	m.name = name
	if s, ok := carried[name]; ok {
		m.limit = min(m.limit, s.Limit)
		m.spent = s.Spent
	}
}

// handOver is what a named meter hands the next run: what it reserved
// counts as spent, since no attempt of this run settles in the next.
func handOver(m *meter) MeterState {
	return MeterState{Limit: m.limit, Spent: m.spent + m.reserved}
}

// CountUpdate counts one Update this run accepted.
func (c *Chain) CountUpdate() { c.updates++ }

// Updates is how many Updates this run accepted.
func (c *Chain) Updates() int { return c.updates }

// CountAppended counts n bytes a conversation log appended in this run:
// its replay appends them again.
func (c *Chain) CountAppended(n int64) { c.appended += n }

// Appended is how many bytes this run's conversation logs appended.
func (c *Chain) Appended() int64 { return c.appended }

// Carry is what the next run is handed: the budgets named in this run as
// they stand, and those the run before carried that this run did not name
// (a run that takes a different branch loses none), with the owner.
func (c *Chain) Carry() Carried {
	return Carried{
		Owner:    c.carried.Owner,
		Attempts: carry(c.carried.Attempts, c.attempts, func(b *AttemptBudget) AttemptState { return AttemptState{Limit: b.limit, Spent: b.spent} }),
		Retries:  carry(c.carried.Retries, c.retries, func(p *RetryBudget) RetryState { return RetryState{Limit: p.limit, Spent: p.spent, Firsts: p.firsts} }),
		Tokens:   carry(c.carried.Tokens, c.tokens, func(b *TokenBudget) MeterState { return handOver(&b.m) }),
		Costs:    carry(c.carried.Costs, c.costs, func(b *CostBudget) MeterState { return handOver(&b.m) }),
	}
}

// carry is what the next run is handed of one kind of budget: what the run
// before carried, with the budgets this run named, as state says they
// stand, over it; nil when there is neither.
func carry[B, S any](carried map[string]S, named map[string]B, state func(B) S) map[string]S {
	if len(carried)+len(named) == 0 {
		return nil
	}
	out := make(map[string]S, len(carried)+len(named))
	maps.Copy(out, carried)
	for name, b := range named {
		out[name] = state(b)
	}
	return out
}

// Close takes what the next run is handed (Carry) and closes the run: from
// then on it charges nothing, since a charge granted after the hand-over
// would be lost to the next run, and the ceiling widened by it.
func (c *Chain) Close() Carried {
	out := c.Carry()
	c.closed = true
	return out
}

// Closed reports whether the run handed its state over (Close).
func (c *Chain) Closed() bool { return c.closed }

type chainKey struct{}

// WithChain returns ctx carrying the run's chain state.
func WithChain(ctx workflow.Context, c *Chain) workflow.Context {
	return workflow.WithValue(ctx, chainKey{}, c)
}

// ChainFrom returns the run's chain state, or nil when the run has none (its
// worker runs without the kit's interceptors).
func ChainFrom(ctx workflow.Context) *Chain {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(chainKey{}).(*Chain)
	return c
}

// ErrNoKit is the cause of the panic Require raises in a workflow that runs
// without the kit's interceptor.
var ErrNoKit = errors.New("this workflow runs without the kit's interceptor, so what it asks of the kit would be silently ignored: register the kit on every worker and replayer of this task queue (interceptors.NewPlugin in worker.Options.Plugins); this workflow task fails until a worker with the kit runs it")

// Require returns the run's chain state, the mark that the kit's
// interceptor runs this workflow. Every workflow-side kit call asks for it
// first, named by call ("temporaladk.WithBudgets"). Without the kit it
// panics with an error wrapping ErrNoKit: a panic fails the workflow task
// (the SDK's default WorkflowPanicPolicy, BlockWorkflow), so that the
// server retries the task until a worker with the kit takes it, and a fleet
// without the kit runs nothing unguarded. A nil ctx is a programming error
// and panics too, naming call.
func Require(ctx workflow.Context, call string) *Chain {
	if ctx == nil {
		panic(fmt.Errorf("temporaladk: %s: ctx is nil: pass the workflow's context", call))
	}
	c := ChainFrom(ctx)
	if c == nil {
		panic(fmt.Errorf("temporaladk: %s: %w", call, ErrNoKit))
	}
	return c
}
