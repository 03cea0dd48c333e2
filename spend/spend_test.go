package spend_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestNewBudgetsRefuseBadCeilings(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, -1, math.MinInt64} {
		b, err := spend.NewTokenBudget(n)
		require.Error(t, err, "%d tokens", n)
		assert.Nil(t, b)
		assert.Contains(t, err.Error(), "maxTokens")
		c, err := spend.NewCostBudget(spend.Micros(n))
		require.Error(t, err, "%d micro-dollars", n)
		assert.Nil(t, c)
		assert.Contains(t, err.Error(), "maxCost")
	}
	b, err := spend.NewTokenBudget(math.MaxInt64)
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), b.Remaining())
	c, err := spend.NewCostBudget(5 * spend.Dollar)
	require.NoError(t, err)
	assert.Equal(t, spend.Micros(5_000_000), c.Limit(), "five dollars, exactly")
}

// chat is a MODEL activity that must not run in these tests.
func chat(ctx context.Context) error { return nil }

// metered calls chat under a token budget with the cap and model given.
func metered(ctx workflow.Context, maxTokens int64, model string, cost bool) error {
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	if cost {
		b, err := spend.NewCostBudget(spend.Dollar)
		if err != nil {
			return err
		}
		ctx = spend.WithCostBudget(ctx, b)
	} else {
		b, err := spend.NewTokenBudget(10_000)
		if err != nil {
			return err
		}
		ctx = spend.WithTokenBudget(ctx, b)
	}
	if maxTokens != 0 {
		ctx = spend.WithMaxTokens(ctx, maxTokens)
	}
	if model != "" {
		ctx = spend.WithModel(ctx, model)
	}
	return workflow.ExecuteActivity(ctx, chat).Get(ctx, nil)
}

// TestMeteredCallsNeedACapAndAModel runs MODEL calls under a token or cost
// budget without a cap, with a cap below 1, and under a cost budget without
// a model: each fails at scheduling with an error naming what is missing,
// and nothing is scheduled.
func TestMeteredCallsNeedACapAndAModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		maxTokens int64
		model     string
		cost      bool
		want      string
	}{
		{"no cap", 0, "m", false, "WithMaxTokens"},
		{"a negative cap", -5, "m", false, "WithMaxTokens"},
		{"no cap under a cost budget", 0, "m", true, "WithMaxTokens"},
		{"no model under a cost budget", 100, "", true, "WithModel"},
		{"capped and priced: runs", 100, "m", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s sdktestsuite.WorkflowTestSuite
			env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{Prices: map[string]spend.Price{"m": {Input: 1, Output: 1}}})
			require.NoError(t, err)
			env.RegisterWorkflow(metered)
			ran := false
			env.RegisterActivity(chat)
			env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { ran = true })
			env.ExecuteWorkflow(metered, tt.maxTokens, tt.model, tt.cost)
			require.True(t, env.IsWorkflowCompleted())
			err = env.GetWorkflowError()
			if tt.want == "" {
				require.NoError(t, err)
				assert.True(t, ran, "the call runs")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, ran, "nothing is scheduled")
		})
	}
}
