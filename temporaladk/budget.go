package temporaladk

import (
	"fmt"

	"go.temporal.io/sdk/workflow"
)

// RunBudget is a ceiling on the attempts of one agent run, charged before
// each attempt: a retry the allowance cannot cover never happens, and the
// ceiling is never widened to let one more through.
//
// It lives in workflow state: create it in the workflow, attach it with
// WithRunBudget, and every call made under that context is charged. Workflow
// code runs one coroutine at a time, so a budget needs no lock; it must not
// be shared with code outside the workflow.
type RunBudget struct {
	limit int
	spent int
}

// NewRunBudget returns a budget of maxAttempts attempts for a run. It must be
// at least 1.
func NewRunBudget(maxAttempts int) (*RunBudget, error) {
	if maxAttempts < 1 {
		return nil, fmt.Errorf("temporaladk: NewRunBudget: maxAttempts is %d: it must be at least 1", maxAttempts)
	}
	return &RunBudget{limit: maxAttempts}, nil
}

// Limit returns the ceiling.
func (b *RunBudget) Limit() int { return b.limit }

// Spent returns how many attempts were charged.
func (b *RunBudget) Spent() int { return b.spent }

// Remaining returns how many attempts are left.
func (b *RunBudget) Remaining() int { return b.limit - b.spent }

// AttemptBudget is one pool of retries shared by every branch of a fan-out.
// Ten branches each retrying three times is thirty calls at a provider that
// is already struggling; with a pool the retries are capped in total. A
// first attempt is never refused: it is the work itself, not a retry.
//
// Like RunBudget it lives in workflow state; attach it with
// WithAttemptBudget.
type AttemptBudget struct {
	retries int
	used    int
	firsts  int
}

// NewAttemptBudget returns a pool of retries. Zero is a pool that allows no
// retry at all (every first attempt still runs); a negative size is an
// error.
func NewAttemptBudget(retries int) (*AttemptBudget, error) {
	if retries < 0 {
		return nil, fmt.Errorf("temporaladk: NewAttemptBudget: retries is %d: it must not be negative", retries)
	}
	return &AttemptBudget{retries: retries}, nil
}

// Size returns the pool's size in retries.
func (p *AttemptBudget) Size() int { return p.retries }

// Used returns how many retries were taken from the pool.
func (p *AttemptBudget) Used() int { return p.used }

// FirstAttempts returns how many first attempts were made under the pool.
func (p *AttemptBudget) FirstAttempts() int { return p.firsts }

// ChargeAttempt charges attempt number attempt (1 for the first) of one call
// against whichever of run and pool are not nil, before the attempt is made.
// Both are checked before either is charged, so a refusal by one spends
// nothing of the other.
//
// A refusal is a *BudgetExceededError: Breached "attempts" for the run
// budget, with Attempts the attempts the run spent reaching its ceiling;
// Breached "retries" for the pool, with Attempts the attempts this call made
// before its retry was refused.
func ChargeAttempt(run *RunBudget, pool *AttemptBudget, attempt int) error {
	attemptsSoFar := attempt - 1
	if run != nil && run.spent >= run.limit {
		return &BudgetExceededError{Breached: "attempts", Limit: float64(run.limit), Consumed: float64(run.spent), Attempts: run.spent}
	}
	if pool != nil && attempt > 1 && pool.used >= pool.retries {
		return &BudgetExceededError{Breached: "retries", Limit: float64(pool.retries), Consumed: float64(pool.used), Attempts: attemptsSoFar}
	}
	if run != nil {
		run.spent++
	}
	if pool != nil {
		if attempt > 1 {
			pool.used++
		} else {
			pool.firsts++
		}
	}
	return nil
}

type runBudgetKey struct{}
type attemptBudgetKey struct{}

// WithRunBudget returns a context whose activity calls are charged against
// b before each attempt. A call under a budget has its retries driven from
// the workflow (one attempt scheduled at a time, waits on workflow timers),
// so that every attempt is charged before it is made.
func WithRunBudget(ctx workflow.Context, b *RunBudget) workflow.Context {
	return workflow.WithValue(ctx, runBudgetKey{}, b)
}

// RunBudgetFrom returns the run budget attached to ctx, or nil.
func RunBudgetFrom(ctx workflow.Context) *RunBudget {
	if ctx == nil {
		return nil
	}
	b, _ := ctx.Value(runBudgetKey{}).(*RunBudget)
	return b
}

// WithAttemptBudget returns a context whose activity calls draw their
// retries from pool. Give every branch of a fan-out a context derived from
// this one.
func WithAttemptBudget(ctx workflow.Context, pool *AttemptBudget) workflow.Context {
	return workflow.WithValue(ctx, attemptBudgetKey{}, pool)
}

// AttemptBudgetFrom returns the retry pool attached to ctx, or nil.
func AttemptBudgetFrom(ctx workflow.Context) *AttemptBudget {
	if ctx == nil {
		return nil
	}
	p, _ := ctx.Value(attemptBudgetKey{}).(*AttemptBudget)
	return p
}
