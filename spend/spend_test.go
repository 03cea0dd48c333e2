package spend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// ceilings sets a token and a cost budget of the given ceilings and
// returns their states, or the error WithBudgets returned.
func ceilings(ctx workflow.Context, tokens int64, cost spend.Micros) ([]spend.State, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "ceilings", Tokens: tokens, Cost: cost, MaxTokens: 100, Model: "m"})
	if err != nil {
		return nil, err
	}
	return temporaladk.BudgetsOf(ctx), nil
}

// A negative ceiling is refused, naming its field; the largest is taken
// whole, and money is counted in whole micro-dollars.
func TestBudgetCeilings(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, tokens int64, cost spend.Micros) ([]spend.State, error) {
		var s sdktestsuite.WorkflowTestSuite
		env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{})
		require.NoError(t, err)
		env.RegisterWorkflow(ceilings)
		env.ExecuteWorkflow(ceilings, tokens, cost)
		require.True(t, env.IsWorkflowCompleted())
		if err := env.GetWorkflowError(); err != nil {
			return nil, err
		}
		var got []spend.State
		require.NoError(t, env.GetWorkflowResult(&got))
		return got, nil
	}
	for _, n := range []int64{-1, math.MinInt64} {
		_, err := run(t, n, spend.Dollar)
		require.Error(t, err, "%d tokens", n)
		assert.Contains(t, err.Error(), fmt.Sprintf("Tokens is %d", n))
		_, err = run(t, 10_000, spend.Micros(n))
		require.Error(t, err, "%d micro-dollars", n)
		assert.Contains(t, err.Error(), fmt.Sprintf("Cost is %d", n))
	}
	got, err := run(t, math.MaxInt64, 5*spend.Dollar)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, spend.State{Name: "ceilings", Kind: spend.KindTokens, Limit: math.MaxInt64, Remaining: math.MaxInt64}, got[0])
	assert.Equal(t, spend.State{Name: "ceilings", Kind: spend.KindCost, Limit: 5_000_000, Remaining: 5_000_000}, got[1], "five dollars, exactly")
}

// A State and its Tally read and write the JSON the budgets Query has
// always answered with.
func TestStateJSON(t *testing.T) {
	t.Parallel()
	s := spend.State{Name: "agent", Kind: spend.KindTokens, Limit: 1000, Reserved: 200, Spent: 300, Remaining: 500,
		By: []spend.Tally{{Class: "MODEL", Model: "m1", Reserved: 200, Spent: 300}}}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"agent","kind":"tokens","limit":1000,"reserved":200,"spent":300,"remaining":500,
		"by":[{"class":"MODEL","model":"m1","reserved":200,"spent":300}]}`, string(b))
	var back spend.State
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, s, back)
	b, err = json.Marshal(spend.State{Kind: spend.KindAttempts, Limit: 3, Spent: 1, Remaining: 2})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"attempts","limit":3,"reserved":0,"spent":1,"remaining":2}`, string(b), "no name, no breakdown: omitted")
}

// chat is a MODEL activity that must not run in these tests.
func chat(ctx context.Context) error { return nil }

// metered calls chat under a token or a cost budget with the cap and model
// given.
func metered(ctx workflow.Context, maxTokens int64, model string, cost bool) error {
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	b := temporaladk.Budgets{Name: "metered", MaxTokens: maxTokens, Model: model}
	if cost {
		b.Cost = spend.Dollar
	} else {
		b.Tokens = 10_000
	}
	ctx, err := temporaladk.WithBudgets(ctx, b)
	if err != nil {
		return err
	}
	return workflow.ExecuteActivity(ctx, chat).Get(ctx, nil)
}

// TestMeteredCallsNeedACapAndAModel sets a token or cost budget without a
// cap, with a cap below 1, and a cost budget without a model: each is
// refused by WithBudgets, naming the field, and nothing is scheduled.
func TestMeteredCallsNeedACapAndAModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		maxTokens int64
		model     string
		cost      bool
		want      string
	}{
		{"no cap", 0, "m", false, "MaxTokens is 0"},
		{"a negative cap", -5, "m", false, "MaxTokens is -5"},
		{"no cap under a cost budget", 0, "m", true, "MaxTokens is 0"},
		{"no model under a cost budget", 100, "", true, "Model is empty"},
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
			assert.Contains(t, err.Error(), "temporaladk: WithBudgets")
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, ran, "nothing is scheduled")
			assert.Empty(t, env.Recorder.Calls(), "nothing is scheduled")
		})
	}
}

// unbudgeted calls chat with no budget, cap or model of its own.
func unbudgeted(ctx workflow.Context) error {
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	return workflow.ExecuteActivity(ctx, chat).Get(ctx, nil)
}

// A child whose start header an earlier build wrote, naming its parent's
// token or cost budget without the cap or the model the child inherits
// now, fails its MODEL call at scheduling, naming the field of
// temporaladk.Budgets to set, and nothing is scheduled.
func TestAChildOfAnEarlierBuildNeedsACapAndAModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		owner map[string]any
		want  string
	}{
		{"a token budget, no cap", map[string]any{"tokens": true}, "temporaladk.Budgets.MaxTokens"},
		{"a cost budget, no cap", map[string]any{"cost": true, "model": "m"}, "temporaladk.Budgets.MaxTokens"},
		{"a cost budget, no model", map[string]any{"cost": true, "max_tokens": 100}, "temporaladk.Budgets.Model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s sdktestsuite.WorkflowTestSuite
			env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{Prices: map[string]spend.Price{"m": {Input: 1, Output: 1}}})
			require.NoError(t, err)
			owner := map[string]any{"workflow_id": "parent", "run_id": "r1", "delegation": "child-1"}
			maps.Copy(owner, tt.owner)
			p, err := converter.GetDefaultDataConverter().ToPayload(map[string]any{"owner": owner})
			require.NoError(t, err)
			env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{wire.ChainHeaderKey: p}})
			env.RegisterWorkflow(unbudgeted)
			ran := false
			env.RegisterActivity(chat)
			env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { ran = true })
			env.ExecuteWorkflow(unbudgeted)
			require.True(t, env.IsWorkflowCompleted())
			err = env.GetWorkflowError()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, ran, "nothing is scheduled")
			assert.Empty(t, env.Recorder.Calls(), "nothing is scheduled")
		})
	}
}

func TestUsageTokensIsInputPlusOutput(t *testing.T) {
	t.Parallel()
	n, err := spend.Usage{InputTokens: 200, CachedInputTokens: 50, OutputTokens: 100}.Tokens()
	require.NoError(t, err)
	assert.Equal(t, int64(300), n, "the cached input is part of the input, counted once")
	_, err = spend.Usage{InputTokens: math.MaxInt64, OutputTokens: 1}.Tokens()
	assert.ErrorContains(t, err, "overflows")
	_, err = spend.Usage{InputTokens: 1, CachedInputTokens: 2}.Tokens()
	assert.ErrorContains(t, err, "more than InputTokens (1)")
}

func TestUsageJSONIsTheChargeUpdates(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(spend.Usage{InputTokens: 3, OutputTokens: 4, CachedInputTokens: 1})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input_tokens":3,"output_tokens":4,"cached_input_tokens":1}`, string(b), "recorded in the charge Update's settlements: byte for byte")
}
