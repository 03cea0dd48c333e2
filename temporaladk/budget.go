package temporaladk

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/spend"
)

// Budgets are a run's budgets, set with WithBudgets; package spend
// explains how each kind is charged, refused and carried. A zero field sets
// nothing of its kind, and leaves what the context had.
type Budgets struct {
	// Name names the budgets: a run continued as new that asks for the same
	// name gets them as the run before left them, all they spent kept and
	// their ceilings never widened (the smaller of the carried ceiling and
	// the one asked), and the budgets Query reports them by it. Asked again
	// in one run, a name returns the same budgets: a Name is one pool for
	// the whole chain, shared by every fan-out made under it, and a fan-out
	// that is to have a pool of its own asks for a Name of its own (package
	// spend, "One pool per Name"). It is required when any of Attempts,
	// Retries, Tokens and Cost is set.
	Name string
	// Attempts is a ceiling on the attempts of every call under the
	// context, the first ones included: a retry the allowance cannot cover
	// never happens. A refused attempt ends its call with Breached
	// "attempts". If 0, no ceiling on attempts is set.
	Attempts int
	// Retries is one pool of retries shared by every call under the
	// context, the branches of a fan-out included, and by every other
	// context that asked for the same Name: it caps their total and never
	// refuses a first attempt. A refused retry ends its call with
	// Breached "retries". If 0, no pool is set (a call then retries as its
	// policy says; a call that must never retry sets its policy's
	// MaximumAttempts to 1).
	Retries int
	// Tokens is a ceiling on the tokens (input plus output) of the MODEL
	// calls under the context, reserved at each attempt's cap (MaxTokens)
	// and settled with what the provider reported (see package spend). If
	// 0, no token ceiling is set.
	Tokens int64
	// Cost is a ceiling on what the MODEL calls under the context cost, in
	// micro-dollars, priced at the worker's price of Model. If 0, no cost
	// ceiling is set.
	Cost spend.Micros
	// MaxTokens is the cap of each attempt of a MODEL call under the
	// context (input plus output): what it reserves against Tokens and
	// Cost. Required with Tokens or Cost unless the context has a cap
	// already. A child workflow started under the context gets it for its
	// own MODEL calls. If 0, the context's cap is left as it is.
	MaxTokens int64
	// Model names the model of the MODEL calls under the context: the entry
	// of the worker's price table (interceptors.Options.Prices) they are
	// priced at. Required with Cost unless the context names a model
	// already. A child workflow started under the context gets it too. If
	// "", the context's model is left as it is.
	Model string
}

// WithBudgets returns a context whose calls are charged against b's
// budgets, besides any the context has: a call under several is charged by
// each, and refused by any. It is the one way to set a run's budgets:
//
//	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{
//		Name: "agent", Attempts: 40, Retries: 10, Tokens: 200_000, MaxTokens: 4096, Model: "gpt-5",
//	})
//
// Package spend explains how the calls are charged, what a refusal says,
// and how the budgets cross continue-as-new and into child workflows.
//
// A negative field, budgets without a Name, a Budgets with nothing set, a
// Tokens or Cost without a cap, a Cost without a model and a nil ctx are
// a *MisconfiguredError naming the field, in one sentence: returned from
// the workflow, it fails the run as TemporaladkMisconfigured, not retried,
// since every attempt would make the same mistake. It needs the kit's interceptor in the running
// workflow: without it (a worker registered without the kit) it panics,
// which fails the workflow task so that a worker with the kit retries it,
// rather than run calls whose budgets nobody charges.
func WithBudgets(ctx workflow.Context, b Budgets) (workflow.Context, error) {
	if ctx == nil {
		return nil, &MisconfiguredError{Message: "temporaladk: WithBudgets: ctx is nil: pass the workflow's context"}
	}
	chain := budget.Require(ctx, "temporaladk.WithBudgets")
	if err := b.validate(ctx); err != nil {
		return nil, &MisconfiguredError{Message: "temporaladk: WithBudgets: " + err.Error()}
	}
	if b.Attempts > 0 {
		run, err := chain.AttemptBudget(b.Name, b.Attempts)
		if err != nil {
			return nil, misconfiguredBudgets(b.Name, err)
		}
		ctx = budget.WithAttempts(ctx, run)
	}
	if b.Retries > 0 {
		pool, err := chain.RetryBudget(b.Name, b.Retries)
		if err != nil {
			return nil, misconfiguredBudgets(b.Name, err)
		}
		ctx = budget.WithRetries(ctx, pool)
	}
	if b.Tokens > 0 {
		tokens, err := chain.TokenBudget(b.Name, b.Tokens)
		if err != nil {
			return nil, misconfiguredBudgets(b.Name, err)
		}
		ctx = budget.WithTokens(ctx, tokens)
	}
	if b.Cost > 0 {
		cost, err := chain.CostBudget(b.Name, b.Cost)
		if err != nil {
			return nil, misconfiguredBudgets(b.Name, err)
		}
		ctx = budget.WithCost(ctx, cost)
	}
	if b.MaxTokens > 0 {
		ctx = budget.WithMaxTokens(ctx, b.MaxTokens)
	}
	if b.Model != "" {
		ctx = budget.WithModel(ctx, b.Model)
	}
	return ctx, nil
}

// misconfiguredBudgets is the *MisconfiguredError of budgets named name
// that the run's chain cannot give: err's sentence, once, after the call's
// name, so that the recorded failure says it once.
func misconfiguredBudgets(name string, err error) error {
	return &MisconfiguredError{Message: fmt.Sprintf("temporaladk: WithBudgets %q: %v", name, err)}
}

// validate reports the first thing wrong with b, as set on ctx.
func (b Budgets) validate(ctx workflow.Context) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"Attempts", int64(b.Attempts)}, {"Retries", int64(b.Retries)}, {"Tokens", b.Tokens}, {"Cost", int64(b.Cost)}, {"MaxTokens", b.MaxTokens}} {
		if f.v < 0 {
			return fmt.Errorf("%s is %d: it must not be negative (0 sets none)", f.name, f.v)
		}
	}
	budgets := b.Attempts > 0 || b.Retries > 0 || b.Tokens > 0 || b.Cost > 0
	switch {
	case !budgets && b.MaxTokens == 0 && b.Model == "":
		return errors.New("nothing is set: set at least one of Attempts, Retries, Tokens, Cost, MaxTokens and Model")
	case budgets && strings.TrimSpace(b.Name) == "":
		return errors.New("Name is empty: budgets are named, so that a run continued as new finds them and the budgets Query reports them")
	}
	maxTokens, model := budget.CallSpend(ctx)
	if b.Tokens > 0 || b.Cost > 0 {
		if b.MaxTokens == 0 && maxTokens == 0 {
			return fmt.Errorf("budgets %q: MaxTokens is 0 and the context has no cap: every MODEL call under a token or cost budget reserves its cap", b.Name)
		}
	}
	if b.Cost > 0 && b.Model == "" && model == "" {
		return fmt.Errorf("budgets %q: Model is empty and the context names none: a call under a cost budget is priced at its model's price", b.Name)
	}
	return nil
}

// BudgetsOf returns the budgets attached to ctx as they stand, in the order
// attempts, retries, tokens, cost: the ones WithBudgets set there. It is
// empty for a context without budgets (and a nil one). The kit's budgets
// Query (spend.QueryName) reports every budget of the run.
func BudgetsOf(ctx workflow.Context) []spend.State {
	run, pool := budget.From(ctx)
	tokens, cost := budget.MetersFrom(ctx)
	var out []spend.State
	if run != nil {
		out = append(out, run.State())
	}
	if pool != nil {
		out = append(out, pool.State())
	}
	if tokens != nil {
		out = append(out, tokens.State())
	}
	if cost != nil {
		out = append(out, cost.State())
	}
	return out
}
