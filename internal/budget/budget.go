// Package budget holds the kit's budgets: their state, the one rule that
// charges an attempt against them, and the workflow context values that
// attach them to calls. Users set them with temporaladk.WithBudgets and
// read them as spend.State values; the interceptors' workflow-side ledger
// charges through Charge, Reserve and Settle. Budgets live in workflow state: workflow code runs
// one coroutine at a time, so they need no lock.
package budget

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/spend"
)

// AttemptBudget is a ceiling on the attempts of one agent run, charged before
// each attempt: a retry the allowance cannot cover never happens, and the
// ceiling is never widened to let one more through.
//
// It lives in workflow state: temporaladk.WithBudgets names it in the run's
// chain and attaches it, and every call made under that context is
// charged, its first attempt in workflow code before it is scheduled and
// each retry through the kit's charge Update before the retry runs. It must
// not be shared with code outside the workflow.
type AttemptBudget struct {
	name  string
	limit int
	spent int
}

// NewAttemptBudget returns a budget of maxAttempts attempts. It must be at least
// 1.
func NewAttemptBudget(maxAttempts int) (*AttemptBudget, error) {
	if maxAttempts < 1 {
		return nil, fmt.Errorf("temporaladk: NewAttemptBudget: maxAttempts is %d: it must be at least 1", maxAttempts)
	}
	return &AttemptBudget{limit: maxAttempts}, nil
}

// Limit returns the ceiling.
func (b *AttemptBudget) Limit() int { return b.limit }

// Spent returns how many attempts were charged.
func (b *AttemptBudget) Spent() int { return b.spent }

// Remaining returns how many attempts are left: never below zero, also for
// a budget whose chain spent more than a later run's narrower ceiling.
func (b *AttemptBudget) Remaining() int { return max(b.limit-b.spent, 0) }

// State is the budget as the budgets Query reports it.
func (b *AttemptBudget) State() State {
	return State{Name: b.name, Kind: spend.KindAttempts, Limit: int64(b.limit), Spent: int64(b.spent), Remaining: int64(b.Remaining())}
}

// RetryBudget is one pool of retries shared by every branch of a fan-out.
// Ten branches each retrying three times is thirty calls at a provider that
// is already struggling; with a pool the retries are capped in total. A
// first attempt is never refused: it is the work itself, not a retry.
//
// Like AttemptBudget it lives in workflow state; temporaladk.WithBudgets
// names and attaches it (Budgets.Retries).
type RetryBudget struct {
	name   string
	limit  int
	spent  int
	firsts int
}

// NewRetryBudget returns a pool of retries. Zero is a pool that allows no
// retry at all (every first attempt still runs), which WithBudgets never
// asks for (Retries 0 sets no pool); a negative size is an error.
func NewRetryBudget(retries int) (*RetryBudget, error) {
	if retries < 0 {
		return nil, fmt.Errorf("temporaladk: NewRetryBudget: retries is %d: it must not be negative", retries)
	}
	return &RetryBudget{limit: retries}, nil
}

// Limit returns the pool's size in retries.
func (p *RetryBudget) Limit() int { return p.limit }

// Spent returns how many retries were taken from the pool.
func (p *RetryBudget) Spent() int { return p.spent }

// Remaining returns how many retries the pool has left: never below zero, also
// for a pool whose chain used more than a later run's smaller size.
func (p *RetryBudget) Remaining() int { return max(p.limit-p.spent, 0) }

// FirstAttempts returns how many first attempts were made under the pool.
func (p *RetryBudget) FirstAttempts() int { return p.firsts }

// State is the pool as the budgets Query reports it: Spent is the
// retries taken.
func (p *RetryBudget) State() State {
	return State{Name: p.name, Kind: spend.KindRetries, Limit: int64(p.limit), Spent: int64(p.spent), Remaining: int64(p.Remaining())}
}

// Refusal is why Charge refused an attempt: Breached "attempts" for the
// AttemptBudget, with Attempts the attempts the run spent reaching its ceiling;
// Breached "retries" for the RetryBudget, with Attempts the attempts the call made
// before its retry was refused.
type Refusal struct {
	Breached     string
	Limit, Spent int
	Attempts     int
}

// Charge charges attempt number attempt (1 for the first) of one call
// against whichever of run and pool are not nil, before the attempt is made,
// and returns nil; or it charges nothing and returns why not. Both are
// checked before either is charged, so a refusal by one spends nothing of
// the other.
func Charge(run *AttemptBudget, pool *RetryBudget, attempt int) *Refusal {
	if run != nil && run.spent >= run.limit {
		return &Refusal{Breached: "attempts", Limit: run.limit, Spent: run.spent, Attempts: run.spent}
	}
	if pool != nil && attempt > 1 && pool.spent >= pool.limit {
		return &Refusal{Breached: "retries", Limit: pool.limit, Spent: pool.spent, Attempts: attempt - 1}
	}
	Ran(run, pool, attempt)
	return nil
}

// Ran counts attempt number attempt (1 for the first) of one call, which ran
// without being charged (an activity worker without the kit ran it, and
// asked nothing), against whichever of run and pool are not nil: whatever
// they have left, since the attempt was made.
func Ran(run *AttemptBudget, pool *RetryBudget, attempt int) {
	if run != nil {
		run.spent++
	}
	if pool != nil {
		if attempt > 1 {
			pool.spent++
		} else {
			pool.firsts++
		}
	}
}

type runKey struct{}
type poolKey struct{}

// WithAttempts returns ctx whose calls are charged against b.
func WithAttempts(ctx workflow.Context, b *AttemptBudget) workflow.Context {
	return workflow.WithValue(ctx, runKey{}, b)
}

// WithRetries returns ctx whose calls draw their retries from p.
func WithRetries(ctx workflow.Context, p *RetryBudget) workflow.Context {
	return workflow.WithValue(ctx, poolKey{}, p)
}

// From returns the run budget and the pool attached to ctx; either may be
// nil.
func From(ctx workflow.Context) (*AttemptBudget, *RetryBudget) {
	if ctx == nil {
		return nil, nil
	}
	run, _ := ctx.Value(runKey{}).(*AttemptBudget)
	pool, _ := ctx.Value(poolKey{}).(*RetryBudget)
	return run, pool
}
