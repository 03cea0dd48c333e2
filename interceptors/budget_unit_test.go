package interceptors_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestUnitRetryPoolAcrossAFanOut(t *testing.T) {
	tests := []struct {
		name       string
		pool, run  int
		executions int
		refused    int
	}{
		{name: "no pool: 10 × 3", pool: -1, run: -1, executions: 30},
		{name: "pool of 5", pool: 5, run: -1, executions: 15},
		{name: "pool of 1 runs every first attempt", pool: 1, run: -1, executions: 11, refused: 10},
		{name: "pool larger than needed", pool: 50, run: -1, executions: 30},
		{name: "run budget of 12 caps the whole fan-out", pool: -1, run: 12, executions: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acts := &Activities{log: newAttemptLog()}
			env, p := newProbedEnv(t, interceptors.Options{}, acts)
			env.ExecuteWorkflow(FanOutWorkflow, "fan", 10, tt.pool, tt.run)
			require.NoError(t, env.GetWorkflowError())
			var got runResult
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, tt.executions, acts.log.total("fan/"), "executions at the provider")
			require.Len(t, got.Types, 10, "every branch settled")
			refused := 0
			for _, typ := range got.Types {
				if len(typ) >= len(temporaladk.TypeBudgetExceeded) && typ[:len(temporaladk.TypeBudgetExceeded)] == temporaladk.TypeBudgetExceeded {
					refused++
				}
			}
			if tt.refused > 0 {
				assert.Equal(t, tt.refused, refused, "branches whose retry the pool refused")
			}
			// A budgeted call keeps Temporal's own retries: one schedule per
			// branch, with the class's attempts, held to what its budgets had
			// left when it was scheduled (its first attempt charged), so that
			// no worker without the kit runs a retry nobody charged.
			require.Len(t, p.Calls(), 10, "one scheduled call per branch, budget or not")
			for i, c := range p.Calls() {
				want := 3
				if tt.pool > 0 {
					want = min(want, 1+tt.pool)
				}
				if tt.run >= 0 {
					want = min(want, 1+tt.run-(i+1))
				}
				assert.Equal(t, int32(want), c.Options.RetryPolicy.MaximumAttempts, "branch %d", i)
			}
			for i := 0; i < 10; i++ {
				seen := acts.log.get(fmt.Sprintf("fan/%d", i))
				require.NotEmpty(t, seen, "branch %d made its first attempt", i)
				for n, s := range seen {
					assert.Equal(t, n+1, s.Attempt, "native attempt numbers")
				}
			}
		})
	}
}

func TestUnitRunBudgetRefusesTheThirdAttempt(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	env := newEnv(t, interceptors.Options{}, acts)
	env.ExecuteWorkflow(FanOutWorkflow, "run", 1, -1, 2)
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("run/0"), 2, "no third attempt")
	assert.Equal(t, []string{"BudgetExceededError attempts=2"}, got.Types)
}
