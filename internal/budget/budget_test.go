package budget_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/budget"
)

func TestAttemptBudgetChargedBeforeEachAttempt(t *testing.T) {
	t.Parallel()
	run, err := budget.NewAttemptBudget(2)
	require.NoError(t, err)
	require.Nil(t, budget.Charge(run, nil, 1))
	require.Nil(t, budget.Charge(run, nil, 2))
	refused := budget.Charge(run, nil, 3)
	require.NotNil(t, refused)
	assert.Equal(t, budget.Refusal{Breached: "attempts", Limit: 2, Spent: 2, Attempts: 2}, *refused, "how many attempts were spent reaching the ceiling")
	assert.Equal(t, 2, run.Spent(), "a refused attempt is not charged: the ceiling is never widened")
	assert.Equal(t, 0, run.Remaining())
}

func TestRetryBudgetNeverRefusesAFirstAttempt(t *testing.T) {
	t.Parallel()
	pool, err := budget.NewRetryBudget(0)
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		require.Nil(t, budget.Charge(nil, pool, 1), "a first attempt is the work itself")
	}
	refused := budget.Charge(nil, pool, 2)
	require.NotNil(t, refused)
	assert.Equal(t, "retries", refused.Breached)
	assert.Equal(t, 1, refused.Attempts)
	assert.Equal(t, 10, pool.FirstAttempts())
	assert.Equal(t, 0, pool.Spent())
}

func TestBudgetsCheckedTogether(t *testing.T) {
	t.Parallel()
	run, _ := budget.NewAttemptBudget(10)
	pool, _ := budget.NewRetryBudget(1)
	require.Nil(t, budget.Charge(run, pool, 1))
	require.Nil(t, budget.Charge(run, pool, 2))
	require.NotNil(t, budget.Charge(run, pool, 3))
	assert.Equal(t, 2, run.Spent(), "the pool's refusal spends nothing of the run budget")
	assert.Equal(t, 1, pool.Spent())
}

func TestBudgetConstructorsRefuseBadInput(t *testing.T) {
	t.Parallel()
	_, err := budget.NewAttemptBudget(0)
	assert.ErrorContains(t, err, "maxAttempts is 0")
	_, err = budget.NewAttemptBudget(-1)
	assert.ErrorContains(t, err, "maxAttempts is -1")
	_, err = budget.NewRetryBudget(-1)
	assert.ErrorContains(t, err, "retries is -1")
	b, err := budget.NewAttemptBudget(1)
	require.NoError(t, err)
	assert.Equal(t, 1, b.Limit())
	p, err := budget.NewRetryBudget(3)
	require.NoError(t, err)
	assert.Equal(t, 3, p.Limit())
	run, pool := budget.From(nil)
	assert.Nil(t, run)
	assert.Nil(t, pool)
	assert.Nil(t, budget.Charge(nil, nil, 1), "no budget: nothing to refuse")
}
