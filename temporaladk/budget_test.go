package temporaladk_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/temporaladk"
)

func TestRunBudgetChargedBeforeEachAttempt(t *testing.T) {
	t.Parallel()
	run, err := temporaladk.NewRunBudget(2)
	require.NoError(t, err)
	require.NoError(t, temporaladk.ChargeAttempt(run, nil, 1))
	require.NoError(t, temporaladk.ChargeAttempt(run, nil, 2))
	err = temporaladk.ChargeAttempt(run, nil, 3)
	var budget *temporaladk.BudgetExceededError
	require.ErrorAs(t, err, &budget)
	assert.Equal(t, "2", budget.Details()["attempts"], "how many attempts were spent reaching the ceiling")
	assert.Equal(t, "attempts", budget.Breached)
	assert.Equal(t, 2, run.Spent(), "a refused attempt is not charged: the ceiling is never widened")
	assert.Equal(t, 0, run.Remaining())
	assert.False(t, budget.Retryable())
}

func TestAttemptBudgetNeverRefusesAFirstAttempt(t *testing.T) {
	t.Parallel()
	pool, err := temporaladk.NewAttemptBudget(0)
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		require.NoError(t, temporaladk.ChargeAttempt(nil, pool, 1), "a first attempt is the work itself")
	}
	err = temporaladk.ChargeAttempt(nil, pool, 2)
	var budget *temporaladk.BudgetExceededError
	require.ErrorAs(t, err, &budget)
	assert.Equal(t, "retries", budget.Breached)
	assert.Equal(t, 1, budget.Attempts)
	assert.Equal(t, 10, pool.FirstAttempts())
	assert.Equal(t, 0, pool.Used())
}

func TestBudgetsCheckedTogether(t *testing.T) {
	t.Parallel()
	run, _ := temporaladk.NewRunBudget(10)
	pool, _ := temporaladk.NewAttemptBudget(1)
	require.NoError(t, temporaladk.ChargeAttempt(run, pool, 1))
	require.NoError(t, temporaladk.ChargeAttempt(run, pool, 2))
	require.Error(t, temporaladk.ChargeAttempt(run, pool, 3))
	assert.Equal(t, 2, run.Spent(), "the pool's refusal spends nothing of the run budget")
	assert.Equal(t, 1, pool.Used())
}

func TestBudgetConstructorsRefuseBadInput(t *testing.T) {
	t.Parallel()
	_, err := temporaladk.NewRunBudget(0)
	assert.ErrorContains(t, err, "maxAttempts is 0")
	_, err = temporaladk.NewRunBudget(-1)
	assert.ErrorContains(t, err, "maxAttempts is -1")
	_, err = temporaladk.NewAttemptBudget(-1)
	assert.ErrorContains(t, err, "retries is -1")
	b, err := temporaladk.NewRunBudget(1)
	require.NoError(t, err)
	assert.Equal(t, 1, b.Limit())
	p, err := temporaladk.NewAttemptBudget(3)
	require.NoError(t, err)
	assert.Equal(t, 3, p.Size())
	assert.Nil(t, temporaladk.RunBudgetFrom(nil))
	assert.Nil(t, temporaladk.AttemptBudgetFrom(nil))
}
