package temporaladk

import (
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
)

// RunBudget is a ceiling on the attempts of one agent run, charged before
// each attempt: a retry the allowance cannot cover never happens, and the
// ceiling is never widened to let one more through. A refused attempt ends
// its call with a *BudgetExceededError, Breached "attempts", whose Attempts
// is what the run spent reaching the ceiling. Its methods are Limit, Spent
// and Remaining.
//
// It lives in workflow state: create it in the workflow with NewRunBudget
// and attach it with WithRunBudget. Workflow code runs one coroutine at a
// time, so a budget needs no lock; it must not be shared with code outside
// the workflow.
type RunBudget = budget.RunBudget

// AttemptBudget is one pool of retries shared by every branch of a fan-out:
// it caps their total and never refuses a first attempt, which is the work
// itself rather than a retry. A refused retry ends its call with a
// *BudgetExceededError, Breached "retries". Its methods are Size, Used and
// FirstAttempts. Like RunBudget it lives in workflow state.
type AttemptBudget = budget.AttemptBudget

// NewRunBudget returns a budget of maxAttempts attempts for a run. It must be
// at least 1.
func NewRunBudget(maxAttempts int) (*RunBudget, error) { return budget.NewRunBudget(maxAttempts) }

// NewAttemptBudget returns a pool of retries. Zero is a pool that allows no
// retry at all (every first attempt still runs); a negative size is an
// error.
func NewAttemptBudget(retries int) (*AttemptBudget, error) { return budget.NewAttemptBudget(retries) }

// WithRunBudget returns a context whose activity calls are charged against
// b before each attempt: the first in workflow code before the call is
// scheduled, each retry through the kit's charge Update before it runs. The
// call keeps Temporal's own retries (one activity in history, native attempt
// numbers). A nil b attaches no budget.
//
// It needs the kit's interceptor in the running workflow: without it (a
// worker registered without the kit) it panics, which fails the workflow
// task so that a worker with the kit retries it, rather than run calls
// whose budget nobody charges. A nil ctx panics too.
func WithRunBudget(ctx workflow.Context, b *RunBudget) workflow.Context {
	budget.Require(ctx, "temporaladk.WithRunBudget")
	return budget.WithRun(ctx, b)
}

// WithAttemptBudget returns a context whose activity calls draw their
// retries from pool. Give every branch of a fan-out a context derived from
// this one. A nil pool attaches none. Without the kit's interceptor in the
// running workflow, or with a nil ctx, it panics, as WithRunBudget does.
func WithAttemptBudget(ctx workflow.Context, pool *AttemptBudget) workflow.Context {
	budget.Require(ctx, "temporaladk.WithAttemptBudget")
	return budget.WithPool(ctx, pool)
}
