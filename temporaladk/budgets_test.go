package temporaladk_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// budgetPrices is the worker's price table of these tests: "m" at $2 per
// million input tokens, $0.50 cached, $8 output.
var budgetPrices = map[string]spend.Price{"m": {Input: 2 * spend.Dollar, CachedInput: spend.Dollar / 2, Output: 8 * spend.Dollar}}

// chatUsage is what every Chat call reports: 300 tokens, which cost
// 150 × 2 + 50 × 0.5 + 100 × 8 micro-dollars at budgetPrices.
var chatUsage = providers.Usage{InputTokens: 200, CachedInputTokens: 50, OutputTokens: 100}

const chatCost = 150*2 + 50/2 + 100*8

// budgetsEnv is a kit test environment with the activities of these tests:
// Flaky, whose first attempt fails retryably; OK, which succeeds; and Chat,
// a model call that reports chatUsage. chats counts Chat's runs.
type budgetsEnv struct {
	*kittest.KitTestEnvironment
	chats *atomic.Int64
}

func newBudgetsEnv(t *testing.T) budgetsEnv {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{Prices: budgetPrices})
	require.NoError(t, err)
	chats := &atomic.Int64{}
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		if activity.GetInfo(ctx).Attempt == 1 {
			return &temporaladk.ProviderUnavailableError{Provider: "stand-in", Message: "first attempt fails"}
		}
		return nil
	}, activity.RegisterOptions{Name: "Flaky"})
	env.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "OK"})
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		chats.Add(1)
		_, err := providers.ReportUsage(ctx, chatUsage)
		return err
	}, activity.RegisterOptions{Name: "Chat"})
	return budgetsEnv{KitTestEnvironment: env, chats: chats}
}

// run executes wf with args to completion and decodes its result into out.
func (env budgetsEnv) run(t *testing.T, out any, wf any, args ...any) {
	t.Helper()
	env.RegisterWorkflow(wf)
	env.ExecuteWorkflow(wf, args...)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(out))
}

// queryBudgets answers the kit's budgets Query of the workflow env ran.
func (env budgetsEnv) queryBudgets(t *testing.T) []spend.State {
	t.Helper()
	v, err := env.QueryWorkflow(spend.QueryName)
	require.NoError(t, err)
	var states []spend.State
	require.NoError(t, v.Get(&states))
	return states
}

// callCtx is ctx with the options of a call of class.
func callCtx(ctx workflow.Context, class temporaladk.Class) workflow.Context {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return temporaladk.WithClass(ctx, class)
}

// refusal is the budget's refusal in err, or nil.
func refusal(err error) *temporaladk.BudgetExceededError {
	var be *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(err), &be) {
		return be
	}
	return nil
}

// refused is what a budget's refusal of a call said, or its error.
type refused struct {
	Breached string
	Limit    float64
	Consumed float64
	Asked    float64
	Err      string
}

func refusedOf(err error) refused {
	if err == nil {
		return refused{}
	}
	if be := refusal(err); be != nil {
		return refused{Breached: be.Breached, Limit: be.Limit, Consumed: be.Consumed, Asked: be.Asked}
	}
	return refused{Err: err.Error()}
}

// badBudgets is what one refused WithBudgets call came to.
type badBudgets struct {
	Err    string
	NilCtx bool
	Left   int
	// Misconfigured is whether the error is a *temporaladk.MisconfiguredError.
	Misconfigured bool
}

// BadBudgetsWorkflow calls WithBudgets with b and reports its error, whether
// the context it returned is nil, and what budgets the context passed in
// has after.
func BadBudgetsWorkflow(ctx workflow.Context, b temporaladk.Budgets) (badBudgets, error) {
	got, err := temporaladk.WithBudgets(ctx, b)
	if err == nil {
		return badBudgets{}, errors.New("WithBudgets took the budgets")
	}
	var misconfigured *temporaladk.MisconfiguredError
	return badBudgets{Err: err.Error(), NilCtx: got == nil, Left: len(temporaladk.BudgetsOf(ctx)), Misconfigured: errors.As(err, &misconfigured)}, nil
}

// FailingBudgetsWorkflow returns WithBudgets' error, as a workflow that
// does not handle it does.
func FailingBudgetsWorkflow(ctx workflow.Context, b temporaladk.Budgets) error {
	_, err := temporaladk.WithBudgets(ctx, b)
	return err
}

// budgetMistakes is every mistake WithBudgets refuses but a nil context
// (TestWithBudgetsRefusesANilContext), with the words that name it.
var budgetMistakes = []struct {
	name string
	b    temporaladk.Budgets
	want string
}{
	{"negative Attempts", temporaladk.Budgets{Name: "b", Attempts: -1}, "Attempts is -1"},
	{"negative Retries", temporaladk.Budgets{Name: "b", Retries: -2}, "Retries is -2"},
	{"negative Tokens", temporaladk.Budgets{Name: "b", Tokens: -3, MaxTokens: 10}, "Tokens is -3"},
	{"negative Cost", temporaladk.Budgets{Name: "b", Cost: -4, MaxTokens: 10, Model: "m"}, "Cost is -4"},
	{"negative MaxTokens", temporaladk.Budgets{Name: "b", Tokens: 100, MaxTokens: -5}, "MaxTokens is -5"},
	{"negative MaxTokens alone", temporaladk.Budgets{MaxTokens: -6}, "MaxTokens is -6"},
	{"a negative field beside good ones", temporaladk.Budgets{Name: "b", Attempts: 3, Retries: -1}, "Retries is -1"},
	{"budgets without a Name", temporaladk.Budgets{Attempts: 3}, "Name is empty"},
	{"a blank Name", temporaladk.Budgets{Name: "  ", Tokens: 100, MaxTokens: 10}, "Name is empty"},
	{"nothing set", temporaladk.Budgets{}, "nothing is set"},
	{"a Name alone", temporaladk.Budgets{Name: "b"}, "nothing is set"},
	{"Tokens without a cap", temporaladk.Budgets{Name: "b", Tokens: 100, Model: "m"}, "MaxTokens is 0"},
	{"Cost without a cap", temporaladk.Budgets{Name: "b", Cost: 100, Model: "m"}, "MaxTokens is 0"},
	{"Cost without a model", temporaladk.Budgets{Name: "b", Cost: 100, MaxTokens: 10}, "Model is empty"},
}

// Every bad input is an error naming the field, with no context, and
// names no budget: the budgets Query reports none after it.
func TestWithBudgetsRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range budgetMistakes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newBudgetsEnv(t)
			var got badBudgets
			env.run(t, &got, BadBudgetsWorkflow, tt.b)
			assert.Contains(t, got.Err, "temporaladk: WithBudgets")
			assert.Contains(t, got.Err, tt.want)
			assert.True(t, got.Misconfigured, "a *temporaladk.MisconfiguredError: %s", got.Err)
			assert.True(t, got.NilCtx, "no context with the error")
			assert.Zero(t, got.Left, "the context passed in is left as it was")
			assert.Empty(t, env.queryBudgets(t), "a refused call names no budget")
		})
	}
}

// WrappedBudgetsWorkflow returns WithBudgets' error wrapped, as a workflow
// that adds what it was doing does.
func WrappedBudgetsWorkflow(ctx workflow.Context, b temporaladk.Budgets) error {
	if _, err := temporaladk.WithBudgets(ctx, b); err != nil {
		return fmt.Errorf("setting the agent's budgets: %w", err)
	}
	return nil
}

// assertFailsOnce holds a run failed by a WithBudgets mistake to what the
// server records: one ApplicationError of type TemporaladkMisconfigured,
// not retryable, without a cause, whose message says the mistake (want)
// once.
func assertFailsOnce(t *testing.T, err error, want string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, temporaladk.TypeMisconfigured, app.Type())
	assert.True(t, app.NonRetryable(), "every attempt would make the same mistake")
	assert.Nil(t, app.Unwrap(), "no cause repeats the sentence")
	assert.Equal(t, 1, strings.Count(err.Error(), want), "the mistake is said once: %v", err)
	var misconfigured *temporaladk.MisconfiguredError
	require.ErrorAs(t, temporaladk.FromApplicationError(app), &misconfigured)
	assert.Contains(t, misconfigured.Message, "temporaladk: WithBudgets")
	assert.Contains(t, misconfigured.Message, want)
}

// A workflow that returns WithBudgets' error, as it is or wrapped, fails as
// TemporaladkMisconfigured, not retryable, saying the mistake once: every
// mistake.
func TestWithBudgetsMistakeFailsTheRunOnce(t *testing.T) {
	t.Parallel()
	for _, wf := range []any{FailingBudgetsWorkflow, WrappedBudgetsWorkflow} {
		for _, tt := range budgetMistakes {
			t.Run(fmt.Sprintf("%s/%s", funcName(wf), tt.name), func(t *testing.T) {
				t.Parallel()
				env := newBudgetsEnv(t)
				env.RegisterWorkflow(wf)
				env.ExecuteWorkflow(wf, tt.b)
				require.True(t, env.IsWorkflowCompleted())
				assertFailsOnce(t, env.GetWorkflowError(), tt.want)
			})
		}
	}
}

// funcName is the last element of fn's name.
func funcName(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}

// On a real server, the failure recorded for a run a WithBudgets mistake
// ended (budgets without a Name, returned wrapped) is one
// TemporaladkMisconfigured, not retryable, saying the mistake once, and the
// run is not retried.
func TestServerWithBudgetsMistakeRecorded(t *testing.T) {
	t.Parallel()
	c := kittest.DevServerFor(t).Client()
	const queue = "temporaladk-budget-mistake"
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(WrappedBudgetsWorkflow)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("budget-mistake-%d", time.Now().UnixNano()), TaskQueue: queue},
		WrappedBudgetsWorkflow, temporaladk.Budgets{Retries: 3})
	require.NoError(t, err)
	require.Error(t, run.Get(ctx, nil))
	h, err := kittest.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var failure *failurepb.Failure
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowExecutionFailedEventAttributes(); a != nil {
			failure = a.GetFailure()
		}
		assert.Nil(t, e.GetWorkflowTaskFailedEventAttributes(), "no workflow task failed")
	}
	require.NotNil(t, failure, "the run failed")
	info := failure.GetApplicationFailureInfo()
	require.NotNil(t, info, "an ApplicationError: %v", failure)
	assert.Equal(t, temporaladk.TypeMisconfigured, info.GetType())
	assert.True(t, info.GetNonRetryable())
	assert.Nil(t, failure.GetCause(), "no cause repeats the sentence")
	assert.Equal(t, "setting the agent's budgets: temporaladk: WithBudgets: Name is empty: budgets are named, so that a run continued as new finds them and the budgets Query reports them",
		failure.GetMessage(), "one sentence, naming the field")
	assertFailsOnce(t, temporal.GetDefaultFailureConverter().FailureToError(failure), "Name is empty")
}

func TestWithBudgetsRefusesANilContext(t *testing.T) {
	t.Parallel()
	ctx, err := temporaladk.WithBudgets(nil, temporaladk.Budgets{Name: "b", Attempts: 1})
	require.Error(t, err)
	assert.Nil(t, ctx)
	assert.Contains(t, err.Error(), "WithBudgets")
	assert.Contains(t, err.Error(), "ctx is nil")
	var misconfigured *temporaladk.MisconfiguredError
	assert.ErrorAs(t, err, &misconfigured)
	assert.Empty(t, temporaladk.BudgetsOf(nil), "a nil context has no budgets, and no panic")
}

// Without the kit, WithBudgets panics naming itself, budgets or a cap
// alone: the workflow task fails until a worker with the kit runs it.
func TestWithBudgetsWithoutTheKitPanics(t *testing.T) {
	t.Parallel()
	for name, b := range map[string]temporaladk.Budgets{
		"budgets":  {Name: "b", Attempts: 3},
		"cap only": {MaxTokens: 100, Model: "m"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
				_, err := temporaladk.WithBudgets(ctx, b)
				return err
			}, workflow.RegisterOptions{Name: "Agent"})
			env.ExecuteWorkflow("Agent")
			err := env.GetWorkflowError()
			require.Error(t, err)
			var panicked *temporal.PanicError
			require.ErrorAs(t, err, &panicked)
			assert.Contains(t, err.Error(), "temporaladk.WithBudgets")
			assert.Contains(t, err.Error(), "without the kit's interceptor")
		})
	}
}

// sameName is what SameNameWorkflow saw.
type sameName struct {
	First, Second spend.State
	BadSize       string
}

// SameNameWorkflow makes two calls under the budgets "agent" of 5
// attempts, asks for "agent" again with 50 attempts and with -1, and makes
// one more call under what the second ask returned.
func SameNameWorkflow(ctx workflow.Context) (sameName, error) {
	first, err := temporaladk.WithBudgets(callCtx(ctx, temporaladk.Retrieval), temporaladk.Budgets{Name: "agent", Attempts: 5})
	if err != nil {
		return sameName{}, err
	}
	for range 2 {
		if err := workflow.ExecuteActivity(first, "OK").Get(first, nil); err != nil {
			return sameName{}, err
		}
	}
	second, err := temporaladk.WithBudgets(callCtx(ctx, temporaladk.Retrieval), temporaladk.Budgets{Name: "agent", Attempts: 50})
	if err != nil {
		return sameName{}, err
	}
	var out sameName
	if _, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "agent", Attempts: -1}); err != nil {
		out.BadSize = err.Error()
	}
	if err := workflow.ExecuteActivity(second, "OK").Get(second, nil); err != nil {
		return sameName{}, err
	}
	out.First, out.Second = temporaladk.BudgetsOf(first)[0], temporaladk.BudgetsOf(second)[0]
	return out, nil
}

// The same name asked again in one run is the same budget: a different
// size neither resets what it spent nor widens it, and a bad size is still
// an error.
func TestWithBudgetsSameNameIsTheSameBudget(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	var got sameName
	env.run(t, &got, SameNameWorkflow)
	want := spend.State{Name: "agent", Kind: spend.KindAttempts, Limit: 5, Spent: 3, Remaining: 2}
	assert.Equal(t, want, got.First, "the third call, made under the second ask, is charged to the first")
	assert.Equal(t, want, got.Second, "the second ask kept the 5 attempts and the 2 spent")
	assert.Contains(t, got.BadSize, "Attempts is -1", "a bad size is an error also when the name is asked again")
	assert.Equal(t, []spend.State{want}, env.queryBudgets(t), "one budget")
}

// nested is what NestedWorkflow saw.
type nested struct {
	Outer, Inner []spend.State
	Third        refused
}

// NestedWorkflow sets 10 attempts "outer", then a pool of 2 retries
// "inner" on its context, and makes three calls of Flaky (two attempts
// each) under both.
func NestedWorkflow(ctx workflow.Context) (nested, error) {
	outer, err := temporaladk.WithBudgets(callCtx(ctx, temporaladk.Retrieval), temporaladk.Budgets{Name: "outer", Attempts: 10})
	if err != nil {
		return nested{}, err
	}
	inner, err := temporaladk.WithBudgets(outer, temporaladk.Budgets{Name: "inner", Retries: 2})
	if err != nil {
		return nested{}, err
	}
	var out nested
	for i := range 3 {
		err := workflow.ExecuteActivity(inner, "Flaky").Get(inner, nil)
		if i < 2 && err != nil {
			return nested{}, err
		}
		if i == 2 {
			out.Third = refusedOf(err)
		}
	}
	out.Outer, out.Inner = temporaladk.BudgetsOf(outer), temporaladk.BudgetsOf(inner)
	return out, nil
}

// Nested calls combine: a Retries-only call keeps the attempts its context
// had, a call under both is charged by each and refused by either, and the
// outer context has only its own.
func TestWithBudgetsNestedCallsCombine(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	var got nested
	env.run(t, &got, NestedWorkflow)
	// Two calls of two attempts and one retry each; the third's first
	// attempt is charged, its retry refused by the empty pool.
	attempts := spend.State{Name: "outer", Kind: spend.KindAttempts, Limit: 10, Spent: 5, Remaining: 5}
	retries := spend.State{Name: "inner", Kind: spend.KindRetries, Limit: 2, Spent: 2, Remaining: 0}
	assert.Equal(t, []spend.State{attempts, retries}, got.Inner)
	assert.Equal(t, []spend.State{attempts}, got.Outer)
	assert.Equal(t, "retries", got.Third.Breached, "%+v", got.Third)
	assert.Equal(t, float64(2), got.Third.Limit)
}

// OrderWorkflow sets a cost, a token, a retry and an attempt budget, in
// that order, one nested call each, and makes a MODEL call and a Flaky
// call under all four.
func OrderWorkflow(ctx workflow.Context) ([]spend.State, error) {
	ctx = callCtx(ctx, temporaladk.Model)
	for _, b := range []temporaladk.Budgets{
		{Name: "o", Cost: spend.Dollar, MaxTokens: 1000, Model: "m"},
		{Name: "o", Tokens: 10_000},
		{Name: "o", Retries: 3},
		{Name: "o", Attempts: 20},
	} {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, b); err != nil {
			return nil, err
		}
	}
	if err := workflow.ExecuteActivity(ctx, "Chat").Get(ctx, nil); err != nil {
		return nil, err
	}
	rctx := temporaladk.WithClass(ctx, temporaladk.Retrieval)
	if err := workflow.ExecuteActivity(rctx, "Flaky").Get(rctx, nil); err != nil {
		return nil, err
	}
	return temporaladk.BudgetsOf(ctx), nil
}

// BudgetsOf reports attempts, retries, tokens and cost, in that order
// whatever the order they were set in, with what the calls spent.
func TestBudgetsOfOrderAndFigures(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	var got []spend.State
	env.run(t, &got, OrderWorkflow)
	assert.Equal(t, []spend.State{
		// The MODEL call's one attempt and Flaky's two.
		{Name: "o", Kind: spend.KindAttempts, Limit: 20, Spent: 3, Remaining: 17},
		{Name: "o", Kind: spend.KindRetries, Limit: 3, Spent: 1, Remaining: 2},
		{Name: "o", Kind: spend.KindTokens, Limit: 10_000, Spent: 300, Remaining: 9_700,
			By: []spend.Tally{{Class: "MODEL", Model: "m", Spent: 300}}},
		{Name: "o", Kind: spend.KindCost, Limit: 1_000_000, Spent: chatCost, Remaining: 1_000_000 - chatCost,
			By: []spend.Tally{{Class: "MODEL", Model: "m", Spent: chatCost}}},
	}, got)
	assert.Equal(t, int64(1), env.chats.Load())
}

// capsOnly is what CapsOnlyWorkflow saw.
type capsOnly struct {
	CapsBudgets int
	States      []spend.State
	Refused     refused
	Narrower    refused
	After       []spend.State
}

// CapsOnlyWorkflow sets a cap of 100 and the model "m" alone, then a token
// budget of 99 and a cost budget with neither, and makes a MODEL call, then
// one more with a cap of 99.
func CapsOnlyWorkflow(ctx workflow.Context) (capsOnly, error) {
	var out capsOnly
	caps, err := temporaladk.WithBudgets(callCtx(ctx, temporaladk.Model), temporaladk.Budgets{MaxTokens: 100, Model: "m"})
	if err != nil {
		return out, err
	}
	out.CapsBudgets = len(temporaladk.BudgetsOf(caps))
	metered, err := temporaladk.WithBudgets(caps, temporaladk.Budgets{Name: "t", Tokens: 99, Cost: spend.Dollar})
	if err != nil {
		return out, err
	}
	out.States = temporaladk.BudgetsOf(metered)
	out.Refused = refusedOf(workflow.ExecuteActivity(metered, "Chat").Get(metered, nil))
	narrower, err := temporaladk.WithBudgets(metered, temporaladk.Budgets{MaxTokens: 99})
	if err != nil {
		return out, err
	}
	out.Narrower = refusedOf(workflow.ExecuteActivity(narrower, "Chat").Get(narrower, nil))
	out.After = temporaladk.BudgetsOf(narrower)
	return out, nil
}

// A cap and a model set alone, without a Name, set no budget; a token or
// cost budget set later on that context needs neither again, and its calls
// reserve the cap of their context.
func TestWithBudgetsCapsOnly(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	var got capsOnly
	env.run(t, &got, CapsOnlyWorkflow)
	assert.Zero(t, got.CapsBudgets, "a cap alone is no budget")
	assert.Equal(t, []spend.State{
		{Name: "t", Kind: spend.KindTokens, Limit: 99, Remaining: 99},
		{Name: "t", Kind: spend.KindCost, Limit: 1_000_000, Remaining: 1_000_000},
	}, got.States)
	assert.Equal(t, refused{Breached: "tokens", Limit: 99, Consumed: 0, Asked: 100}, got.Refused, "the cap of 100 does not fit 99")
	assert.Equal(t, refused{}, got.Narrower, "a cap of 99, set on the budgets' context, fits")
	assert.Equal(t, int64(1), env.chats.Load(), "the refused call did not run")
	require.Len(t, got.After, 2)
	assert.Equal(t, int64(300), got.After[0].Spent, "settled with what the provider reported")
	assert.Zero(t, got.After[0].Remaining, "a provider that spent past the cap leaves nothing")
	assert.Equal(t, int64(chatCost), got.After[1].Spent, "priced at the model of the context")
}

// QueriedWorkflow makes a call of Flaky under a pool of 3 retries "pool",
// then one under 10 attempts "run", and names "spare" without using it.
func QueriedWorkflow(ctx workflow.Context) error {
	ctx = callCtx(ctx, temporaladk.Retrieval)
	pool, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "pool", Retries: 3})
	if err != nil {
		return err
	}
	if err := workflow.ExecuteActivity(pool, "Flaky").Get(pool, nil); err != nil {
		return err
	}
	run, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "run", Attempts: 10})
	if err != nil {
		return err
	}
	if err := workflow.ExecuteActivity(run, "Flaky").Get(run, nil); err != nil {
		return err
	}
	_, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "spare", Attempts: 4, Retries: 2})
	return err
}

// The budgets Query reports attempts and retries too: the budgets the run
// charged, in the order it first did, then those it named and did not use.
func TestBudgetsQueryReportsAttemptsAndRetries(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	env.RegisterWorkflow(QueriedWorkflow)
	env.ExecuteWorkflow(QueriedWorkflow)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []spend.State{
		{Name: "pool", Kind: spend.KindRetries, Limit: 3, Spent: 1, Remaining: 2},
		{Name: "run", Kind: spend.KindAttempts, Limit: 10, Spent: 2, Remaining: 8},
		{Name: "spare", Kind: spend.KindAttempts, Limit: 4, Remaining: 4},
		{Name: "spare", Kind: spend.KindRetries, Limit: 2, Remaining: 2},
	}, env.queryBudgets(t))
}

// inherited is what InheritingParent saw.
type inherited struct {
	Parent []spend.State
	Child  inheritedChild
}

// inheritedChild is what InheritingChild saw.
type inheritedChild struct {
	Own      []spend.State
	Outcomes []refused
}

// InheritingParent starts InheritingChild under a token budget of 1,000,
// its MODEL calls capped at 400 and named "m".
func InheritingParent(ctx workflow.Context) (inherited, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "parent", Tokens: 1000, MaxTokens: 400, Model: "m"})
	if err != nil {
		return inherited{}, err
	}
	var out inherited
	if err := workflow.ExecuteChildWorkflow(ctx, InheritingChild).Get(ctx, &out.Child); err != nil {
		return inherited{}, err
	}
	out.Parent = temporaladk.BudgetsOf(ctx)
	return out, nil
}

// InheritingChild sets no cap and no model: it names a token budget of its
// own without one, then makes four MODEL calls on its plain context.
func InheritingChild(ctx workflow.Context) (inheritedChild, error) {
	ctx = callCtx(ctx, temporaladk.Model)
	own, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "own", Tokens: 5000})
	if err != nil {
		return inheritedChild{}, err
	}
	out := inheritedChild{Own: temporaladk.BudgetsOf(own)}
	for range 4 {
		out.Outcomes = append(out.Outcomes, refusedOf(workflow.ExecuteActivity(ctx, "Chat").Get(ctx, nil)))
	}
	return out, nil
}

// A child workflow gets the cap and the model of the context it was
// started on: its MODEL calls are metered at the parent's budget, each
// reserving the parent's cap, and its own token budget needs no cap.
func TestWithBudgetsAChildInheritsTheCapAndModel(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	env.RegisterWorkflow(InheritingChild)
	var got inherited
	env.run(t, &got, InheritingParent)
	assert.Equal(t, []spend.State{{Name: "own", Kind: spend.KindTokens, Limit: 5000, Remaining: 5000}}, got.Child.Own,
		"the child's own token budget takes the inherited cap")
	// Each call reserves 400 and settles 300: three fit 1,000, the fourth
	// asks 400 of the 100 left.
	assert.Equal(t, []refused{{}, {}, {}, {Breached: "tokens", Limit: 1000, Consumed: 900, Asked: 400}}, got.Child.Outcomes)
	assert.Equal(t, []spend.State{{Name: "parent", Kind: spend.KindTokens, Limit: 1000, Spent: 900, Remaining: 100,
		By: []spend.Tally{{Class: "MODEL", Model: "m", Spent: 900}}}}, got.Parent)
	assert.Equal(t, int64(3), env.chats.Load())
}

// CappingChild sets a cap of 950 of its own, for its context, and starts
// InheritingGrandchild on it.
func CappingChild(ctx workflow.Context) ([]refused, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{MaxTokens: 950})
	if err != nil {
		return nil, err
	}
	var out []refused
	err = workflow.ExecuteChildWorkflow(ctx, InheritingGrandchild).Get(ctx, &out)
	return out, err
}

// InheritingGrandchild makes two MODEL calls on its plain context.
func InheritingGrandchild(ctx workflow.Context) ([]refused, error) {
	ctx = callCtx(ctx, temporaladk.Model)
	var out []refused
	for range 2 {
		out = append(out, refusedOf(workflow.ExecuteActivity(ctx, "Chat").Get(ctx, nil)))
	}
	return out, nil
}

// CappingRoot starts CappingChild under a token budget of 1,000 capped at
// 400.
func CappingRoot(ctx workflow.Context) ([]refused, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "root", Tokens: 1000, MaxTokens: 400, Model: "m"})
	if err != nil {
		return nil, err
	}
	var out []refused
	err = workflow.ExecuteChildWorkflow(ctx, CappingChild).Get(ctx, &out)
	return out, err
}

// A grandchild gets the cap of the context its parent started it on, not
// the root's: the child's cap of 950 makes the grandchild's second call ask
// 950 of the 700 left at the root, and be refused, where the root's 400
// would fit.
func TestWithBudgetsAGrandchildGetsItsParentsCap(t *testing.T) {
	t.Parallel()
	env := newBudgetsEnv(t)
	env.RegisterWorkflow(CappingChild)
	env.RegisterWorkflow(InheritingGrandchild)
	var got []refused
	env.run(t, &got, CappingRoot)
	assert.Equal(t, []refused{{}, {Breached: "tokens", Limit: 1000, Consumed: 300, Asked: 950}}, got)
	assert.Equal(t, int64(1), env.chats.Load())
}

// fanOutPools is how the fan-outs of PoolsWorkflow ended: the branches
// whose retry its pool refused, in the first fan-out, the second, and the
// child's.
type fanOutPools struct {
	Refused [3]int
}

// fanOut makes three Flaky calls at once under ctx (each fails its first
// attempt and needs one retry) and counts the branches whose retry was
// refused with Breached "retries".
func fanOut(ctx workflow.Context) (int, error) {
	var futures []workflow.Future
	for range 3 {
		futures = append(futures, workflow.ExecuteActivity(ctx, "Flaky"))
	}
	refused := 0
	for _, f := range futures {
		err := f.Get(ctx, nil)
		switch be := refusal(err); {
		case err == nil:
		case be != nil && be.Breached == "retries":
			refused++
		default:
			return 0, err
		}
	}
	return refused, nil
}

// PoolsWorkflow fans out three calls under Budgets{Name: names[0],
// Retries: 3}, then three under Budgets{Name: names[1], Retries: 3}, then
// starts PoolsChild on the second context, which fans out three more.
func PoolsWorkflow(ctx workflow.Context, names [2]string) (fanOutPools, error) {
	var out fanOutPools
	var err error
	for i, name := range names {
		bctx, werr := temporaladk.WithBudgets(callCtx(ctx, temporaladk.Retrieval), temporaladk.Budgets{Name: name, Retries: 3})
		if werr != nil {
			return out, werr
		}
		if out.Refused[i], err = fanOut(bctx); err != nil {
			return out, err
		}
		if i == 1 {
			if err := workflow.ExecuteChildWorkflow(bctx, PoolsChild).Get(bctx, &out.Refused[2]); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// PoolsChild fans out three calls on the context it was started on.
func PoolsChild(ctx workflow.Context) (int, error) {
	return fanOut(callCtx(ctx, temporaladk.Retrieval))
}

// A Name is one pool for the whole chain, not one per fan-out: two
// fan-outs under one Name draw from one pool, so the second's retries are
// refused once the first spent it; under two Names each fan-out has a pool
// of its own. A child started on a context draws from that context's pool
// (here the second, spent), as the runs a chain continues as new do from
// the pool of their Name (package conversation's
// TestRunBudgetCarriesAcrossContinueAsNew).
func TestWithBudgetsOnePoolPerName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		names [2]string
		want  [3]int
		pools []spend.State
	}{
		{"one Name", [2]string{"search", "search"}, [3]int{0, 3, 3},
			[]spend.State{{Name: "search", Kind: spend.KindRetries, Limit: 3, Spent: 3}}},
		{"a Name per fan-out", [2]string{"search-1", "search-2"}, [3]int{0, 0, 3},
			[]spend.State{{Name: "search-1", Kind: spend.KindRetries, Limit: 3, Spent: 3}, {Name: "search-2", Kind: spend.KindRetries, Limit: 3, Spent: 3}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newBudgetsEnv(t)
			env.RegisterWorkflow(PoolsChild)
			var got fanOutPools
			env.run(t, &got, PoolsWorkflow, tt.names)
			assert.Equal(t, tt.want, got.Refused, "branches refused a retry: first fan-out, second, the child's")
			assert.Equal(t, tt.pools, env.queryBudgets(t), "the pools the run named")
		})
	}
}
