package budget_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/spend"
)

func TestChainRestoresAnAttemptBudgetNeverWidened(t *testing.T) {
	t.Parallel()
	carried := budget.Carried{Attempts: map[string]budget.AttemptState{"turns": {Limit: 10, Spent: 4}}}
	tests := []struct {
		name         string
		given        int
		limit, spent int
	}{
		{"the same ceiling", 10, 10, 4},
		{"a larger ceiling leaves the carried one", 50, 10, 4},
		{"a smaller ceiling narrows it", 6, 6, 4},
		{"a ceiling below what was spent keeps all the spending", 3, 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := budget.NewChain(carried)
			b, err := c.AttemptBudget("turns", tt.given)
			require.NoError(t, err)
			assert.Equal(t, tt.limit, b.Limit())
			assert.Equal(t, tt.spent, b.Spent())
		})
	}
}

func TestChainRestoresAPoolNeverMadeLarger(t *testing.T) {
	t.Parallel()
	carried := budget.Carried{Retries: map[string]budget.RetryState{"fan": {Limit: 5, Spent: 3, Firsts: 7}}}
	c := budget.NewChain(carried)
	p, err := c.RetryBudget("fan", 100)
	require.NoError(t, err)
	assert.Equal(t, 5, p.Limit(), "never made larger")
	assert.Equal(t, 3, p.Spent())
	assert.Equal(t, 7, p.FirstAttempts())

	c = budget.NewChain(carried)
	p, err = c.RetryBudget("fan", 2)
	require.NoError(t, err)
	assert.Equal(t, 2, p.Limit(), "narrowed")
	assert.Equal(t, 3, p.Spent(), "all the chain used is kept, above the narrowed size")
	assert.Equal(t, 0, p.Remaining(), "nothing left")
}

func TestChainReturnsTheSameBudgetWhenAskedAgain(t *testing.T) {
	t.Parallel()
	c := budget.NewChain(budget.Carried{})
	a, err := c.AttemptBudget("turns", 5)
	require.NoError(t, err)
	b, err := c.AttemptBudget("turns", 99)
	require.NoError(t, err)
	assert.Same(t, a, b)
	assert.Equal(t, 5, b.Limit(), "the second ask changes nothing")
	p, err := c.RetryBudget("fan", 1)
	require.NoError(t, err)
	q, err := c.RetryBudget("fan", 9)
	require.NoError(t, err)
	assert.Same(t, p, q)

	// A name asked again is validated first: a bad size is an error, not
	// the budget of that name.
	bad := map[string]func() (any, error){
		"AttemptBudget 0": func() (any, error) { return c.AttemptBudget("turns", 0) },
		"RetryBudget -1":  func() (any, error) { return c.RetryBudget("fan", -1) },
		"TokenBudget 0":   func() (any, error) { return c.TokenBudget("tokens", 0) },
		"CostBudget -1":   func() (any, error) { return c.CostBudget("cost", -1) },
	}
	_, err = c.TokenBudget("tokens", 100)
	require.NoError(t, err)
	_, err = c.CostBudget("cost", 100)
	require.NoError(t, err)
	for name, ask := range bad {
		got, err := ask()
		require.Error(t, err, name)
		assert.Regexp(t, `must (be at least|not be negative)`, err.Error(), name)
		assert.True(t, reflect.ValueOf(got).IsNil(), "%s: no budget with the error", name)
	}
}

func TestChainCloseCarriesNamedAndUnnamedInThisRun(t *testing.T) {
	t.Parallel()
	owner := &budget.Owner{WorkflowID: "wf", RunID: "r", Delegation: "child-2"}
	c := budget.NewChain(budget.Carried{
		Attempts: map[string]budget.AttemptState{"turns": {Limit: 10, Spent: 4}, "other": {Limit: 3, Spent: 1}},
		Retries:  map[string]budget.RetryState{"otherpool": {Limit: 2, Spent: 2, Firsts: 1}},
		Owner:    owner,
	})
	turns, err := c.AttemptBudget("turns", 10)
	require.NoError(t, err)
	require.Nil(t, budget.Charge(turns, nil, 1))
	fan, err := c.RetryBudget("fan", 4)
	require.NoError(t, err)
	require.Nil(t, budget.Charge(nil, fan, 1))
	require.Nil(t, budget.Charge(nil, fan, 2))
	assert.False(t, c.Closed())
	got := c.Close()
	assert.True(t, c.Closed())
	assert.Equal(t, budget.Carried{
		Attempts: map[string]budget.AttemptState{"turns": {Limit: 10, Spent: 5}, "other": {Limit: 3, Spent: 1}},
		Retries:  map[string]budget.RetryState{"fan": {Limit: 4, Spent: 1, Firsts: 1}, "otherpool": {Limit: 2, Spent: 2, Firsts: 1}},
		Owner:    owner,
	}, got, "budgets named in this run as they stand, the others as carried, and the owner")
	assert.NoError(t, got.Validate(), "what Close writes, the next run reads")
}

func TestChainCloseOfNothingCarriesNothing(t *testing.T) {
	t.Parallel()
	assert.Equal(t, budget.Carried{}, budget.NewChain(budget.Carried{}).Close())
}

func TestChainCountsUpdates(t *testing.T) {
	t.Parallel()
	c := budget.NewChain(budget.Carried{})
	for range 7 {
		c.CountUpdate()
	}
	assert.Equal(t, 7, c.Updates())
}

func TestChainRefusesBadInput(t *testing.T) {
	t.Parallel()
	c := budget.NewChain(budget.Carried{})
	_, err := c.AttemptBudget("", 3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no name")
	_, err = c.AttemptBudget("turns", 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at least 1")
	_, err = c.RetryBudget("", 3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no name")
	_, err = c.RetryBudget("fan", -1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must not be negative")
	assert.Equal(t, budget.Carried{}, c.Close(), "a refused budget is not carried")
}

func TestCarriedValidate(t *testing.T) {
	t.Parallel()
	ok := []budget.Carried{
		{},
		{Attempts: map[string]budget.AttemptState{"a": {Limit: 1, Spent: 1}}},
		{Retries: map[string]budget.RetryState{"p": {Limit: 0, Spent: 0, Firsts: 3}}},
		// A later run narrowed the ceiling below what the chain spent.
		{Attempts: map[string]budget.AttemptState{"a": {Limit: 1, Spent: 2}}},
		{Retries: map[string]budget.RetryState{"p": {Limit: 1, Spent: 4}}},
		{Owner: &budget.Owner{WorkflowID: "w", RunID: "r", Delegation: "child-1"}},
		{Owner: &budget.Owner{WorkflowID: "w", RunID: "r", Delegation: "child-1", Tokens: true, MaxTokens: 700, Model: "m"}},
	}
	for _, c := range ok {
		assert.NoError(t, c.Validate(), "%+v", c)
	}
	bad := map[string]budget.Carried{
		`attempt budget "a"`:         {Attempts: map[string]budget.AttemptState{"a": {Limit: 1, Spent: -2}}},
		`attempt budget ""`:          {Attempts: map[string]budget.AttemptState{"": {Limit: 1}}},
		`retry budget "p"`:           {Retries: map[string]budget.RetryState{"p": {Limit: 1, Spent: -1}}},
		`retry budget ""`:            {Retries: map[string]budget.RetryState{"": {Limit: 1}}},
		"owner":                      {Owner: &budget.Owner{WorkflowID: "w"}},
		"a cap must not be negative": {Owner: &budget.Owner{WorkflowID: "w", RunID: "r", Delegation: "child-1", MaxTokens: -1}},
	}
	for want, c := range bad {
		err := c.Validate()
		require.Error(t, err, want)
		assert.Contains(t, err.Error(), want)
	}
}

func TestChainFromAContextWithout(t *testing.T) {
	t.Parallel()
	assert.Nil(t, budget.ChainFrom(nil), "a nil context has no chain, and no panic")
}

// The budgets a chain names report their name and kind, and Named lists
// them attempts, pools, tokens and costs, each kind by name.
func TestChainNamedAndTheirStates(t *testing.T) {
	t.Parallel()
	c := budget.NewChain(budget.Carried{Attempts: map[string]budget.AttemptState{"b": {Limit: 4, Spent: 5}}})
	assert.Empty(t, c.Named())
	cost, err := c.CostBudget("a", 50)
	require.NoError(t, err)
	tokens, err := c.TokenBudget("a", 100)
	require.NoError(t, err)
	pool, err := c.RetryBudget("a", 2)
	require.NoError(t, err)
	runB, err := c.AttemptBudget("b", 10)
	require.NoError(t, err)
	runA, err := c.AttemptBudget("a", 3)
	require.NoError(t, err)
	assert.Equal(t, []budget.Budget{runA, runB, pool, tokens, cost}, c.Named())

	require.Nil(t, budget.Charge(runA, pool, 1))
	require.Nil(t, budget.Charge(runA, pool, 2))
	assert.Equal(t, spend.State{Name: "a", Kind: spend.KindAttempts, Limit: 3, Spent: 2, Remaining: 1}, runA.State())
	assert.Equal(t, spend.State{Name: "b", Kind: spend.KindAttempts, Limit: 4, Spent: 5, Remaining: 0}, runB.State(),
		"restored narrowed below what the chain spent: nothing left, all the spending kept")
	assert.Equal(t, spend.State{Name: "a", Kind: spend.KindRetries, Limit: 2, Spent: 1, Remaining: 1}, pool.State())
	assert.Equal(t, spend.State{Name: "a", Kind: spend.KindTokens, Limit: 100, Remaining: 100}, tokens.State())
	assert.Equal(t, spend.State{Name: "a", Kind: spend.KindCost, Limit: 50, Remaining: 50}, cost.State())
}

// CallSpend reads the cap and the model of the context, else those of the
// owner the run was started under, each apart.
func TestCallSpendFallsBackToTheOwner(t *testing.T) {
	t.Parallel()
	type spent struct {
		MaxTokens int64
		Model     string
	}
	owner := &budget.Owner{WorkflowID: "w", RunID: "r", Delegation: "child-1", Tokens: true, MaxTokens: 700, Model: "parent-model"}
	tests := []struct {
		name      string
		owner     *budget.Owner
		maxTokens int64
		model     string
		want      spent
	}{
		{"no owner, nothing set", nil, 0, "", spent{}},
		{"no owner", nil, 100, "m", spent{100, "m"}},
		{"the owner's", owner, 0, "", spent{700, "parent-model"}},
		{"the context's over the owner's", owner, 100, "m", spent{100, "m"}},
		{"the context's cap, the owner's model", owner, 100, "", spent{100, "parent-model"}},
		{"the owner's cap, the context's model", owner, 0, "m", spent{700, "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s sdktestsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.ExecuteWorkflow(func(ctx workflow.Context) (spent, error) {
				ctx = budget.WithChain(ctx, budget.NewChain(budget.Carried{Owner: tt.owner}))
				if tt.maxTokens != 0 {
					ctx = budget.WithMaxTokens(ctx, tt.maxTokens)
				}
				if tt.model != "" {
					ctx = budget.WithModel(ctx, tt.model)
				}
				var out spent
				out.MaxTokens, out.Model = budget.CallSpend(ctx)
				return out, nil
			})
			require.NoError(t, env.GetWorkflowError())
			var got spent
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, tt.want, got)
		})
	}
	maxTokens, model := budget.CallSpend(nil)
	assert.Zero(t, maxTokens)
	assert.Empty(t, model)
}
