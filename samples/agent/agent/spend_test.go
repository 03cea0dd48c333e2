package agent_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestUnitChatUsage(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{{Role: "system", Content: "two words"}, {Role: "user", Content: " three  more words "}}
	assert.Equal(t, providers.Usage{}, agent.ChatUsage(msgs, 0, false), "refused before any token: nothing used")
	assert.Equal(t, providers.Usage{InputTokens: 5, OutputTokens: 7}, agent.ChatUsage(msgs, 7, false), "failed mid-stream: the prompt and what streamed")
	assert.Equal(t, providers.Usage{InputTokens: 5, OutputTokens: 39}, agent.ChatUsage(msgs, 39, true))
	assert.Equal(t, providers.Usage{InputTokens: 5}, agent.ChatUsage(msgs, 0, true), "an empty completion still read the prompt")
}

func TestUnitCostMath(t *testing.T) {
	t.Parallel()
	p := spend.Price{Input: 2_500_000, CachedInput: 1_250_000, Output: 10_000_000}
	assert.Equal(t, spend.Micros(10_000), agent.ReservationCost(1_000, p), "every token at the highest rate")
	assert.Equal(t, spend.Micros(1), agent.ReservationCost(1, spend.Price{Output: 1}), "rounded up, never down")
	// 105 input at $2.50 and 39 output at $10 per million: 652.5, rounded up.
	assert.Equal(t, spend.Micros(653), agent.UsageCost(providers.Usage{InputTokens: 105, OutputTokens: 39}, p))
	// 5 uncached input at $2.50, 100 cached at $1.25, 39 output at $10: 527.5.
	assert.Equal(t, spend.Micros(528), agent.UsageCost(providers.Usage{InputTokens: 105, CachedInputTokens: 100, OutputTokens: 39}, p), "cached input at its own rate")
	assert.Equal(t, "$0.004062", agent.Dollars(4_062))
	assert.Equal(t, "$5.000000", agent.Dollars(5*spend.Dollar))
	assert.Equal(t, "-$0.000001", agent.Dollars(-1))
}

func TestUnitBadSpendInputIsAnError(t *testing.T) {
	tests := []struct {
		name string
		edit func(*agent.Input)
		want string
	}{
		{"negative token budget", func(in *agent.Input) { in.TokenBudget = -1 }, "Input.TokenBudget is -1"},
		{"negative cost budget", func(in *agent.Input) { in.CostBudget = -1 }, "Input.CostBudget is -1"},
		{"no cap", func(in *agent.Input) { in.MaxTokens = 0 }, "Input.MaxTokens is 0"},
		{"no model", func(in *agent.Input) { in.Model = "" }, "Input.Model is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := unitEnv(t)
			in := agent.DefaultInput()
			tt.edit(&in)
			env.ExecuteWorkflow(agent.AgentWorkflow, in)
			require.True(t, env.IsWorkflowCompleted())
			require.ErrorContains(t, env.GetWorkflowError(), tt.want)
			assert.Empty(t, env.Recorder.Calls(), "nothing scheduled")
		})
	}
}

// TestUnitTokenBudgetRefusesBeforeTheCall runs the sample under a token
// budget of one call's cap: the plan's 503 settles at zero and its retry at
// what it used, so the answer's reservation no longer fits and the answer
// is refused before it reaches the model.
func TestUnitTokenBudgetRefusesBeforeTheCall(t *testing.T) {
	env, _, model := unitEnvWithModel(t)
	in := agent.DefaultInput()
	in.Stall = 50 * time.Millisecond
	in.TokenBudget = in.MaxTokens
	in.CostBudget = 0
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "refused"})
	env.ExecuteWorkflow(agent.AgentWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.Error(t, err)
	assert.ErrorContains(t, err, "model step "+agent.StepAnswer)
	// The workflow's failure wraps the activity's: the kit error is rebuilt
	// from the activity error's ApplicationError.
	var act *temporal.ActivityError
	require.True(t, errors.As(err, &act), "%v", err)
	var refused *temporaladk.BudgetExceededError
	require.True(t, errors.As(temporaladk.FromApplicationError(act), &refused), "%v", err)
	assert.Equal(t, "tokens", refused.Breached)
	assert.Equal(t, float64(in.TokenBudget), refused.Limit)
	assert.Zero(t, refused.Attempts, "refused before its first attempt ran")
	assert.Equal(t, 2, model.RequestsFor("refused/"+agent.StepPlan), "the plan's 503 and its retry")
	assert.Zero(t, model.RequestsFor("refused/"+agent.StepAnswer), "the refused call made no request")
}

// TestSpendReadBackFromTheRecordedHistory reads the committed history's
// charge Updates: every attempt of a MODEL call was reserved and settled,
// the injected 503 and 429 at zero, the dropped stream at part of its
// retry, and the sums are what the workflow's own budgets returned.
func TestSpendReadBackFromTheRecordedHistory(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "testdata", "histories", "agent.json"))
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	calls, err := agent.CallsFromHistory(h.GetEvents())
	require.NoError(t, err)
	var in agent.Input
	var res agent.Result
	dc := converter.GetDefaultDataConverter()
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowExecutionStartedEventAttributes(); a != nil {
			require.NoError(t, dc.FromPayloads(a.GetInput(), &in))
		}
		if a := e.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			require.NoError(t, dc.FromPayloads(a.GetResult(), &res))
		}
	}
	require.Positive(t, in.TokenBudget)
	require.Positive(t, in.CostBudget)
	r := &agent.Report{Input: in, Result: res, Calls: calls}
	for _, c := range r.CallsOf("Chat") {
		for _, a := range c.Attempts {
			require.NotNil(t, a.Spend, "%s attempt %d", c.Label, a.Number)
			s := a.Spend
			assert.True(t, s.Granted && s.Settled, "%s attempt %d", c.Label, a.Number)
			assert.Equal(t, in.MaxTokens, s.ReservedTokens)
			assert.Equal(t, in.Model, s.Model)
			require.NotNil(t, s.Price, "the price is recorded in the reservation")
			require.NotNil(t, s.Usage, "%s attempt %d reported its usage", c.Label, a.Number)
			assert.LessOrEqual(t, s.SettledTokens, s.ReservedTokens)
			assert.LessOrEqual(t, s.SettledCost, s.ReservedCost)
		}
	}
	for _, step := range []string{agent.StepPlan, agent.StepAnswer} {
		c := r.Call("Chat", step)
		require.NotNil(t, c)
		require.Len(t, c.Attempts, 2)
		assert.Equal(t, providers.Usage{}, *c.Attempts[0].Spend.Usage, "%s: the endpoint refused before any token, nothing used", step)
		assert.Positive(t, c.Attempts[1].Spend.SettledTokens)
	}
	summary := r.Call("Chat", agent.StepSummary)
	require.NotNil(t, summary)
	require.Len(t, summary.Attempts, 2)
	dropped, retried := summary.Attempts[0].Spend.Usage, summary.Attempts[1].Spend.Usage
	assert.Positive(t, dropped.OutputTokens, "the dropped stream is charged what it streamed")
	assert.Less(t, dropped.OutputTokens, retried.OutputTokens)
	assert.Equal(t, dropped.InputTokens, retried.InputTokens, "the same prompt")

	totals := r.SpendTotals()
	assert.Equal(t, res.Tokens.Spent, totals.SettledTokens, "the history's settlements sum to what the workflow's token budget holds")
	assert.Equal(t, res.Cost.Spent, int64(totals.SettledCost), "the history's settlements sum to what the workflow's cost budget holds")
	assert.Zero(t, res.Tokens.Reserved)
	assert.Zero(t, res.Cost.Reserved)
}

// TestUnitNoSpendBudgetsIsNone runs the sample with a token and a cost
// budget of 0: no such budget, and a MODEL call needs neither a cap nor a
// model.
func TestUnitNoSpendBudgetsIsNone(t *testing.T) {
	env, _ := unitEnv(t)
	in := agent.DefaultInput()
	in.Stall = 50 * time.Millisecond
	in.TokenBudget, in.CostBudget, in.MaxTokens, in.Model = 0, 0, 0, ""
	env.ExecuteWorkflow(agent.AgentWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res agent.Result
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Zero(t, res.Tokens)
	assert.Zero(t, res.Cost)
	assert.Len(t, res.Replies, 4, "the four MODEL calls ran")
}
