// Package spend holds the kit's budgets in tokens and in money: a run's
// ceiling on what its MODEL calls spend, reserved before each attempt and
// settled with what the provider reported after it.
//
//	tokens, _ := spend.NewTokenBudget(2_000_000)
//	cost, _ := spend.NewCostBudget(5 * spend.Dollar)
//	ctx = spend.WithTokenBudget(ctx, tokens)
//	ctx = spend.WithCostBudget(ctx, cost)
//	ctx = spend.WithModel(spend.WithMaxTokens(ctx, 4096), "gpt-5")
//	err := workflow.ExecuteActivity(ctx, "Chat", req).Get(ctx, &reply)
//
// # Budgets
//
// A TokenBudget counts tokens (input plus output); a CostBudget counts
// Micros, micro-dollars, a whole number: money is never a float. They are
// attached to the workflow context like temporaladk.RunBudget, and combine
// with it and with temporaladk.AttemptBudget: a call under several is
// charged by each, and refused by any. They live in workflow state and need
// no lock. Their methods are Limit, Reserved, Settled and Remaining.
// conversation.TokenBudget and conversation.CostBudget return budgets by
// name that survive continue-as-new.
//
// # The cap and the model
//
// Every MODEL call under a token or cost budget needs a cap, WithMaxTokens
// (total tokens, input plus output): a call without one is an error at
// scheduling, a failed Future with nothing scheduled, naming WithMaxTokens;
// it is never a silent unlimited call. The model, WithModel, names the
// price the call is reserved and settled at. Both travel in the call's
// header. Calls of the other classes (TOOL, RETRIEVAL, MEMORY) spend no
// tokens and are neither reserved nor settled. A local activity under a
// token or cost budget is an error at scheduling: its reservation is an
// Update the run cannot take while its workflow task waits for the local
// activity.
//
// # Prices
//
// The price table is the worker's: interceptors.Options.Prices, a Price
// per model, per million tokens, in Micros, input, cached input and output
// apart. interceptors.New refuses a negative price, naming the model and
// the field. A call under a cost budget whose model has no price fails
// non-retryably (interceptors.TypeModelUnpriced), naming the model, and
// nothing is reserved.
//
// # Reserve, then settle
//
// Every attempt of a metered call, the first too, is reserved by the kit's
// activity side before the user's code runs, through the kit's charge
// Update (interceptors.ChargeUpdateName): the cap against a token budget,
// and the cap at the model's highest price, rounded up, against a cost
// budget; the request carries the cap, the model and the prices used, so
// that they are recorded in history and a replay with another price table
// or cap decides the same. The workflow-side ledger grants the reservation
// or refuses it: a refused attempt does not run (no provider request), and
// its call ends with a *temporaladk.BudgetExceededError, Breached "tokens"
// or "cost", never retried, its Limit and Consumed (reserved plus settled)
// in tokens or micro-dollars and its Attempts the attempts the call made
// before. Both budgets are checked before either is reserved, and before a
// run budget's attempt is charged.
//
// The price is worker configuration, so the first attempt is reserved by
// the activity side too, not in workflow code: a decision needs the price
// in history before it is made, and the Update request is where it is
// recorded, the path a child's calls take to their parent already.
//
// The activity side installs a usage recorder (providers.WithUsageRecorder);
// contrib/openai and contrib/anthropic report the provider's own usage
// with providers.ReportUsage, and so does any activity of the user's. After
// the attempt, whether it succeeded or failed, the kit sums what it
// reported and settles the reservation with a settle request in the same
// Update, and waits for it before it returns, so that the workflow has the
// settlement before it reads the result: settled tokens are input plus
// output, the cost is priced at the prices recorded in the reservation,
// cached input at its own price, rounded up. A failed attempt that streamed
// half an answer is settled with what it reported. An attempt that died
// without settling keeps its whole reservation: it is spent, never
// refunded, when the next attempt of its call is reserved (waste, never an
// overrun). Settlement never changes the activity's result or failure, so
// the user's Future.Get, and a worker without the kit, read what the
// activity returned.
//
// A provider that spends more than the cap (the cap is the user's promise:
// give the provider an output limit that keeps input plus output under it)
// is settled with what it spent; the budget's Remaining is then zero and
// every later reservation is refused.
//
// # Children and continue-as-new
//
// The budgets cross run boundaries the one way every budget of the kit
// does (see the conversation package): a named budget is handed to the run
// continued as new in its start header, with what it spent (what is still
// reserved at the hand-over counts as spent), its ceiling never widened; a
// child workflow started on a context with a token or cost budget has every
// attempt of its MODEL calls reserved and settled at the parent's ledger,
// against the budgets it was started under.
//
// # Reading the state
//
// Workflow code reads a budget's methods. The kit registers in every run
// the workflow Query interceptors.BudgetsQueryName ("temporaladk.budgets"),
// whose result is a []State: each token and cost budget the run used, its
// limit, reserved and settled, and the breakdown by class and model. The
// kit's metrics count tokens and cost reserved and settled, by class and
// model (interceptors.MetricTokensSettled and the others); none is recorded
// while a workflow replays.
//
// # Limits
//
// The reservation is the activity side's: a metered call whose activity
// runs on a worker without the kit (a mixed fleet) is neither reserved nor
// settled.
package spend

import (
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
)

// Micros is an amount of money in micro-dollars: 1,000,000 is one dollar.
type Micros = budget.Micros

// Dollar is one dollar in Micros: 5 * spend.Dollar is five dollars,
// exactly.
const Dollar Micros = 1_000_000

// Price is one model's price per million tokens, in Micros: Input (input
// tokens not read from the provider's cache), CachedInput and Output.
type Price = budget.Price

// TokenBudget is a ceiling on the tokens of a run's MODEL calls (input plus
// output), reserved before each attempt and settled after it. Its methods
// are Limit, Reserved, Settled, Remaining and State.
type TokenBudget = budget.TokenBudget

// CostBudget is a ceiling on what a run's MODEL calls cost, in Micros,
// reserved and settled as a TokenBudget is. Its methods are Limit,
// Reserved, Settled, Remaining and State.
type CostBudget = budget.CostBudget

// State is a token or cost budget as the kit's budgets Query reports it.
type State = budget.State

// Tally is what one class and model reserved and settled, in a State.
type Tally = budget.Tally

// NewTokenBudget returns a budget of maxTokens tokens. It must be at least
// 1.
func NewTokenBudget(maxTokens int64) (*TokenBudget, error) { return budget.NewTokenBudget(maxTokens) }

// NewCostBudget returns a budget of maxCost micro-dollars. It must be at
// least 1.
func NewCostBudget(maxCost Micros) (*CostBudget, error) { return budget.NewCostBudget(maxCost) }

// WithTokenBudget returns a context whose MODEL calls are reserved and
// settled against b, every attempt. A nil b attaches none.
//
// Like every With function of this package it needs the kit's interceptor
// in the running workflow: without it (a worker registered without the kit)
// it panics, which fails the workflow task so that a worker with the kit
// retries it, rather than run calls nobody meters. A nil ctx panics too.
func WithTokenBudget(ctx workflow.Context, b *TokenBudget) workflow.Context {
	budget.Require(ctx, "spend.WithTokenBudget")
	return budget.WithTokens(ctx, b)
}

// WithCostBudget returns a context whose MODEL calls are reserved and
// settled against b, every attempt. A nil b attaches none.
func WithCostBudget(ctx workflow.Context, b *CostBudget) workflow.Context {
	budget.Require(ctx, "spend.WithCostBudget")
	return budget.WithCost(ctx, b)
}

// WithMaxTokens returns a context whose calls are capped at n tokens each
// (input plus output): what each attempt of a call under a token or cost
// budget reserves. A cap below 1 is an error when such a call is
// scheduled.
func WithMaxTokens(ctx workflow.Context, n int64) workflow.Context {
	budget.Require(ctx, "spend.WithMaxTokens")
	return budget.WithMaxTokens(ctx, n)
}

// WithModel returns a context whose calls name model: the entry of the
// worker's price table (interceptors.Options.Prices) a call under a cost
// budget is priced at.
func WithModel(ctx workflow.Context, model string) workflow.Context {
	budget.Require(ctx, "spend.WithModel")
	return budget.WithModel(ctx, model)
}
