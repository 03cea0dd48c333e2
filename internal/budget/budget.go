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

// RunBudget is a ceiling on the attempts of one agent run, charged before
// each attempt: a retry the allowance cannot cover never happens, and the
// ceiling is never widened to let one more through.
//
// It lives in workflow state: temporaladk.WithBudgets names it in the run's
// chain and attaches it, and every call made under that context is
// charged, its first attempt in workflow code before it is scheduled and
// each retry through the kit's charge Update before the retry runs. It must
// not be shared with code outside the workflow.
type RunBudget struct {
	name  string
	limit int
	spent int
}

// NewRunBudget returns a budget of maxAttempts attempts. It must be at least
// 1.
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

// Remaining returns how many attempts are left: never below zero, also for
// a budget whose chain spent more than a later run's narrower ceiling.
func (b *RunBudget) Remaining() int { return max(b.limit-b.spent, 0) }

// State is the budget as the budgets Query reports it.
func (b *RunBudget) State() State {
	return State{Name: b.name, Kind: spend.KindAttempts, Limit: int64(b.limit), Settled: int64(b.spent), Remaining: int64(b.Remaining())}
}

// AttemptBudget is one pool of retries shared by every branch of a fan-out.
// Ten branches each retrying three times is thirty calls at a provider that
// is already struggling; with a pool the retries are capped in total. A
// first attempt is never refused: it is the work itself, not a retry.
//
// Like RunBudget it lives in workflow state; temporaladk.WithBudgets
// names and attaches it (Budgets.Retries).
type AttemptBudget struct {
	name    string
	retries int
	used    int
	firsts  int
}

// NewAttemptBudget returns a pool of retries. Zero is a pool that allows no
// retry at all (every first attempt still runs), which WithBudgets never
// asks for (Retries 0 sets no pool); a negative size is an error.
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

// Left returns how many retries the pool has left: never below zero, also
// for a pool whose chain used more than a later run's smaller size.
func (p *AttemptBudget) Left() int { return max(p.retries-p.used, 0) }

// FirstAttempts returns how many first attempts were made under the pool.
func (p *AttemptBudget) FirstAttempts() int { return p.firsts }

// State is the pool as the budgets Query reports it: Settled is the
// retries taken.
func (p *AttemptBudget) State() State {
	return State{Name: p.name, Kind: spend.KindRetries, Limit: int64(p.retries), Settled: int64(p.used), Remaining: int64(p.Left())}
}

// Refusal is why Charge refused an attempt: Breached "attempts" for the run
// budget, with Attempts the attempts the run spent reaching its ceiling;
// Breached "retries" for the pool, with Attempts the attempts the call made
// before its retry was refused.
type Refusal struct {
	Breached        string
	Limit, Consumed int
	Attempts        int
}

// Charge charges attempt number attempt (1 for the first) of one call
// against whichever of run and pool are not nil, before the attempt is made,
// and returns nil; or it charges nothing and returns why not. Both are
// checked before either is charged, so a refusal by one spends nothing of
// the other.
func Charge(run *RunBudget, pool *AttemptBudget, attempt int) *Refusal {
	if run != nil && run.spent >= run.limit {
		return &Refusal{Breached: "attempts", Limit: run.limit, Consumed: run.spent, Attempts: run.spent}
	}
	if pool != nil && attempt > 1 && pool.used >= pool.retries {
		return &Refusal{Breached: "retries", Limit: pool.retries, Consumed: pool.used, Attempts: attempt - 1}
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

type runKey struct{}
type poolKey struct{}

// WithRun returns ctx whose calls are charged against b.
func WithRun(ctx workflow.Context, b *RunBudget) workflow.Context {
	return workflow.WithValue(ctx, runKey{}, b)
}

// WithPool returns ctx whose calls draw their retries from p.
func WithPool(ctx workflow.Context, p *AttemptBudget) workflow.Context {
	return workflow.WithValue(ctx, poolKey{}, p)
}

// From returns the run budget and the pool attached to ctx; either may be
// nil.
func From(ctx workflow.Context) (*RunBudget, *AttemptBudget) {
	if ctx == nil {
		return nil, nil
	}
	run, _ := ctx.Value(runKey{}).(*RunBudget)
	pool, _ := ctx.Value(poolKey{}).(*AttemptBudget)
	return run, pool
}
