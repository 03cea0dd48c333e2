// Package spend is where the kit's budgets are explained, and holds what
// they count and report: money in Micros, a model's Price, the Usage a
// provider reports and the State of a budget as temporaladk.BudgetsOf and
// the budgets Query report it. Budgets are set in workflow code with one
// call, temporaladk.WithBudgets:
//
//	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{
//		Name: "agent", Attempts: 40, Retries: 10, Tokens: 2_000_000, Cost: 5 * spend.Dollar,
//		MaxTokens: 4096, Model: "gpt-5",
//	})
//
// A call under several budgets is charged by each, and refused by any. A
// zero field sets nothing of its kind, so a second call on the same context
// adds to it: Budgets{Name: "search", Retries: 3} gives the calls under it a
// pool under the run's ceiling.
//
// # One pool per Name
//
// A Name is one budget of each kind for the whole chain, not one per
// fan-out or per call of WithBudgets: every WithBudgets that asks for
// "search", in this run and in the runs it continues as new, gets the same
// pool, so every fan-out made under "search" draws from it, and a child
// workflow started on a context draws from that context's pools (see
// Children). A fan-out that is to have a pool of its own asks for a Name of
// its own ("search-1" for the first fan-out, "search-2" for the second):
// two fan-outs under two Names do not share, under one they do
// (temporaladk's TestWithBudgetsOnePoolPerName). Each Name asked is carried
// to every later run of the chain and reported by the budgets Query, so a
// chain that asks for one per turn carries one per turn, and its start
// header grows with them: reuse a few Names across turns where a pool per
// turn is not needed.
//
// # Attempts and retries
//
// Attempts is a ceiling on every attempt of every call under the context,
// the first ones included; Retries is one pool of retries shared by every
// call under it, the branches of a fan-out included, which never refuses a
// first attempt. A budgeted call keeps Temporal's own retries: it is
// scheduled once, with native attempt numbers and heartbeat details carried
// from attempt to attempt, and with RetryPolicy.MaximumAttempts held to what
// its budgets have left, so that a worker without the kit cannot run more.
// Its first attempt is charged in workflow code before it is scheduled;
// each retry is charged, before it runs, through the workflow Update the
// kit registers ("temporaladk.charges"), recorded in history so that every
// refusal replays. A worker gathers the charges its attempts ask of one run
// while an Update is in flight into the next one: it has at most one
// charge Update of a run in flight, and a fan-out's retries cost a few
// Updates (the server allows 10 in flight and 2,000 per run, by default).
// A refused attempt never runs: its call ends with a
// *temporaladk.BudgetExceededError, Breached "attempts" or "retries", never
// retried, whose cause is the failure that asked for the retry.
//
// # Tokens and cost
//
// A token budget counts tokens (input plus output); a cost budget counts
// Micros, micro-dollars, a whole number: money is never a float.
//
// # The cap and the model
//
// Every MODEL call under a token or cost budget needs a cap,
// Budgets.MaxTokens (total tokens, input plus output): WithBudgets refuses
// a token or cost budget on a context without one, naming MaxTokens, and a
// call that reaches scheduling without one anyway (a child whose start
// header an earlier build wrote) fails there, nothing scheduled; it is
// never a silent unlimited call. The model,
// Budgets.Model, names the price the call is reserved and settled at. Both
// travel in the call's header, and a child workflow started under the
// budgets gets the cap and the model it was started with for its own MODEL
// calls. Calls of the other classes (TOOL, RETRIEVAL, MEMORY) spend no
// tokens and are neither reserved nor settled. A local activity under a
// token or cost budget is an error at scheduling: its reservation is an
// Update the run cannot take while its workflow task waits for the local
// activity.
//
// # Prices
//
// The price table is the worker's: interceptors.Options.Prices, a Price
// per model, per million tokens, in Micros, input, cached input and output
// apart. interceptors.NewPlugin refuses a negative price, naming the model and
// the field. A call under a cost budget whose model has no price fails
// non-retryably (temporaladk.TypeModelUnpriced), naming the model, and
// nothing is reserved.
//
// # Reserve, then settle
//
// Every attempt of a metered call, the first too, is reserved by the kit's
// activity side before the user's code runs, through the kit's charge
// Update: the cap against a token budget,
// and the cap at the model's highest price, rounded up, against a cost
// budget; the request carries the cap, the model and the prices used, so
// that they are recorded in history and a replay with another price table
// or cap decides the same. The workflow-side ledger grants the reservation
// or refuses it: a refused attempt does not run (no provider request), and
// its call ends with a *temporaladk.BudgetExceededError, Breached "tokens"
// or "cost", never retried, its Limit and Consumed (reserved plus spent)
// in tokens or micro-dollars and its Attempts the attempts the call made
// before. Both budgets are checked before either is reserved, and before a
// ceiling on attempts is charged.
//
// The price is worker configuration, so the first attempt is reserved by
// the activity side too, not in workflow code: a decision needs the price
// in history before it is made, and the Update request is where it is
// recorded, the path a child's calls take to their parent already.
//
// The activity side installs a usage recorder (providers.WithUsageRecorder);
// contrib/openai and contrib/anthropic report the provider's own Usage
// with providers.ReportUsage, and so does any activity of the user's. After
// the attempt, whether it succeeded or failed, the kit sums what it
// reported and settles the reservation with a settle request in the same
// Update, and waits for it before it returns, so that the workflow has the
// settlement before it reads the result: spent tokens are input plus
// output (Usage.Tokens), the cost is priced at the prices recorded in the
// reservation, cached input at its own price, rounded up. A failed attempt
// that streamed half an answer is settled with what it reported. An
// attempt that died without settling keeps its whole reservation: it is
// spent, never refunded, when the next attempt of its call is reserved
// (waste, never an overrun). Settlement never changes the activity's
// result or failure, so the user's Future.Get, and a worker without the
// kit, read what the activity returned.
//
// A provider that spends more than the cap (the cap is the user's promise:
// give the provider an output limit that keeps input plus output under it)
// is settled with what it spent; the budget's Remaining is then zero and
// every later reservation is refused.
//
// # Continue-as-new
//
// Budgets are named (Budgets.Name). In the first run of a chain
// WithBudgets makes them new; in a run continued as new
// (conversation.ContinueAsNew, or the SDK's) the same call gives them as
// the run before left them, handed over in the kit's start header
// ("temporaladk-chain"): the same workflow code, continued as new any
// number of times, spends one ceiling of each kind across the whole chain.
// A restored budget keeps all it spent (a token or cost reservation still
// open at the hand-over counts as spent), and its ceiling is never widened:
// a larger number in a later run leaves the carried ceiling as it is, a
// smaller one narrows it. The hand-over carries the budgets the run named
// and those the run before carried that it did not name, so a run that
// takes another branch loses none; after it the run charges nothing more
// (its charge Update's validator rejects), so no charge falls between two
// runs and none is counted twice. Every charge is an Update of the run, and
// the server accepts a limited number per run: package conversation says
// when to continue as new before a run runs out, and what a run that does
// fails with.
//
// # Children
//
// A child workflow started on a context with budgets is charged to them:
// its start header names the parent run's ledger, and every attempt of
// every call the child makes, its first too, is charged (and, under a
// token or cost budget, reserved and settled, at the cap and model the
// child was started with) there through the parent's charge Update before
// the user's code runs, also in the runs the child continues as new and in
// the children it starts (a family has one ledger, at its root). The total
// across parent and children never passes the parent's ceiling; a refusal
// is a *temporaladk.BudgetExceededError in the child's call, never
// retried. The charges are Updates in the parent's history and the child's
// calls are activities in its own, so both replay. Nothing is reserved for
// a child: its attempts are charged as they are made, so a child that
// fails, is cancelled, times out or continues as new leaves the rest of the
// budget where it was. What it spent is the attempts it made, and at most
// one more for each call that ended while it waited for a retry (a retry is
// charged when the attempt before it fails, so that a refusal keeps that
// failure as its cause): waste, never an overrun; the same holds for a
// run's own calls. A child's own budgets cover its own calls besides. A
// child that outlives the run that started it (ParentClosePolicy abandon,
// or a parent that continued as new) can be charged nothing more: its
// calls fail with temporaladk.TypeBudgetClosed.
//
// # Reading the state
//
// Workflow code reads temporaladk.BudgetsOf. The kit registers in every run
// the workflow Query QueryName ("temporaladk.budgets",
// `temporal workflow query --type temporaladk.budgets`), whose result is a
// []State: every budget the run named or used, attempts, retries, tokens
// and cost, each with its Limit, Reserved, Spent and Remaining, with the
// breakdown by class and model of the token and cost budgets. The kit's
// metrics count tokens and cost reserved and settled, by class and model
// (observe.MetricTokensSettled and the others); none is recorded
// while a workflow replays.
//
// # Limits
//
// The reservation is the activity side's: a metered call whose activity
// runs on a worker without the kit (a mixed fleet) is neither reserved nor
// settled, and the run then refuses every later metered call
// (temporaladk.TypeMisconfigured). So with attempts: a call under a ceiling
// on attempts or a pool of retries whose retries ran on such a worker (its
// retryable failure after every attempt its retry policy gives, fewer of
// them charged) has those attempts counted when the run schedules its next
// budgeted call, which it then refuses the same way.
package spend

import (
	"fmt"
	"math"
)

// Micros is an amount of money in micro-dollars: 1,000,000 is one dollar.
// Money is counted in whole units, never in floats.
type Micros int64

// Dollar is one dollar in Micros: 5 * spend.Dollar is five dollars,
// exactly.
const Dollar Micros = 1_000_000

// QueryName is the workflow Query the kit registers in every run it
// serves: its result is a []State, every budget the run charged calls
// against or named (attempts, retries, tokens and cost), with its limit,
// reserved, spent and remaining, and for tokens and cost the breakdown by
// class and model.
const QueryName = "temporaladk.budgets"

// Price is what a model's tokens cost, per million tokens of each kind, in
// Micros.
type Price struct {
	// Input is the price of a million input tokens that were not read from
	// the provider's prompt cache.
	Input Micros `json:"input"`
	// CachedInput is the price of a million input tokens read from the
	// provider's prompt cache.
	CachedInput Micros `json:"cached_input"`
	// Output is the price of a million output tokens.
	Output Micros `json:"output"`
}

// Validate reports the first negative field of p, naming model and the
// field.
func (p Price) Validate(model string) error {
	for _, f := range []struct {
		name string
		v    Micros
	}{{"Input", p.Input}, {"CachedInput", p.CachedInput}, {"Output", p.Output}} {
		if f.v < 0 {
			return fmt.Errorf("the price of model %q has %s %d: a price must not be negative", model, f.name, f.v)
		}
	}
	return nil
}

// The kinds of budget a State reports.
const (
	// KindAttempts is a run's ceiling on attempts (Budgets.Attempts):
	// Spent is the attempts charged.
	KindAttempts = "attempts"
	// KindRetries is a retry pool shared by every call under it
	// (Budgets.Retries): Spent is the retries taken from it.
	KindRetries = "retries"
	// KindTokens is a ceiling on tokens, input plus output
	// (Budgets.Tokens).
	KindTokens = "tokens"
	// KindCost is a ceiling on cost in micro-dollars (Budgets.Cost).
	KindCost = "cost"
)

// State is one budget as it stands: its ceiling, what is reserved for
// attempts under way and what was spent, and for a token or cost budget
// the breakdown by class and model.
type State struct {
	// Name is the budget's name (Budgets.Name).
	Name string `json:"name,omitempty"`
	// Kind is KindAttempts, KindRetries, KindTokens or KindCost.
	Kind string `json:"kind"`
	// Limit is the ceiling: attempts, retries, tokens or micro-dollars.
	Limit int64 `json:"limit"`
	// Reserved is what attempts under way reserved; always 0 for attempts
	// and retries, which are charged whole before each attempt.
	Reserved int64 `json:"reserved"`
	// Spent is what was spent: attempts charged, retries taken, tokens
	// or micro-dollars settled (and the whole reservation of attempts that
	// ended without settling), by this run and the runs of its chain
	// before it.
	Spent int64 `json:"spent"`
	// Remaining is what is left: Limit less Reserved and Spent, never
	// below zero.
	Remaining int64 `json:"remaining"`
	// By is the breakdown of what this run reserved and settled of a token
	// or cost budget, by class and model, in the order each was first
	// charged. A run continued as new starts it empty: what the runs
	// before spent is in Spent alone.
	By []Tally `json:"by,omitempty"`
}

// Tally is what one class and model reserved and settled of a token or
// cost budget, in a State.
type Tally struct {
	// Class is the calls' class ("MODEL").
	Class string `json:"class"`
	// Model is the calls' model (Budgets.Model).
	Model string `json:"model"`
	// Reserved is what is reserved for attempts not settled yet.
	Reserved int64 `json:"reserved"`
	// Spent is what settled attempts spent, and the whole reservation of
	// attempts that ended without settling.
	Spent int64 `json:"spent"`
}

// Usage is what a provider counted for one model call, as it reported it:
// what settles a token or cost budget. Activities report it with
// providers.ReportUsage (providers.Usage is this type). Its JSON travels in
// the kit's charge Update, recorded in history.
type Usage struct {
	// InputTokens are all the prompt's tokens, the cached ones included.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens are the completion's tokens.
	OutputTokens int64 `json:"output_tokens"`
	// CachedInputTokens are the part of InputTokens the provider read from
	// its prompt cache (and may price lower); never more than InputTokens.
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
}

// IsZero reports whether u counts nothing: the provider reported no usage.
func (u Usage) IsZero() bool { return u == Usage{} }

// Check reports what is wrong with u, naming the field: a negative count, or
// more cached input tokens than input tokens.
func (u Usage) Check() error {
	switch {
	case u.InputTokens < 0:
		return fmt.Errorf("Usage.InputTokens is %d: it must not be negative", u.InputTokens)
	case u.OutputTokens < 0:
		return fmt.Errorf("Usage.OutputTokens is %d: it must not be negative", u.OutputTokens)
	case u.CachedInputTokens < 0:
		return fmt.Errorf("Usage.CachedInputTokens is %d: it must not be negative", u.CachedInputTokens)
	case u.CachedInputTokens > u.InputTokens:
		return fmt.Errorf("Usage.CachedInputTokens is %d, more than InputTokens (%d): the cached tokens are part of the input", u.CachedInputTokens, u.InputTokens)
	}
	return nil
}

// Tokens is what u counts against a token budget: input plus output. A u
// that fails Check, or whose sum overflows, is an error.
func (u Usage) Tokens() (int64, error) {
	if err := u.Check(); err != nil {
		return 0, err
	}
	if u.InputTokens > math.MaxInt64-u.OutputTokens {
		return 0, fmt.Errorf("usage %+v overflows", u)
	}
	return u.InputTokens + u.OutputTokens, nil
}
