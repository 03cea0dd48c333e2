package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// New refuses a negative price, naming the model and the field, and an
// empty model name.
func TestUnitNewRefusesBadPrices(t *testing.T) {
	_, err := interceptors.NewPlugin(interceptors.Options{Prices: map[string]spend.Price{"m1": {Input: 1}, "m2": {CachedInput: -1}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"m2"`)
	assert.Contains(t, err.Error(), "CachedInput")
	_, err = interceptors.NewPlugin(interceptors.Options{Prices: map[string]spend.Price{"": {}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty model name")
	_, err = interceptors.NewPlugin(interceptors.Options{Prices: map[string]spend.Price{"m1": {Input: 2 * spend.Dollar}}})
	assert.NoError(t, err)
}

// The ledger counts tokens reserved and settled by class and model: three
// calls capped at 1,000 that use 300 each reserve 3,000 and settle 900.
func TestUnitSpendMetrics(t *testing.T) {
	m := newCapture()
	var s sdktestsuite.WorkflowTestSuite
	s.SetMetricsHandler(m)
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&kittest.Recorder{}}, Plugins: []worker.Plugin{newEnvKit(t, env, interceptors.Options{
		Activities: map[string]temporaladk.Declaration{spendChat: {Class: temporaladk.Model}},
	})}})
	env.RegisterActivityWithOptions(func(ctx context.Context, prompt string) (chatReply, error) {
		_, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: 200, OutputTokens: 100})
		return chatReply{Text: prompt, Tokens: 300}, err
	}, activity.RegisterOptions{Name: spendChat})
	env.RegisterWorkflow(SpendSequenceWorkflow)
	env.ExecuteWorkflow(SpendSequenceWorkflow, int64(10_000), []int64{1000, 1000, 1000})
	require.NoError(t, env.GetWorkflowError())
	var rep spendReport
	require.NoError(t, env.GetWorkflowResult(&rep))
	assert.Equal(t, int64(900), rep.Spent)
	assert.EqualValues(t, 3000, m.sum(observe.MetricTokensReserved, "class=model", "model=m1"))
	assert.EqualValues(t, 900, m.sum(observe.MetricTokensSettled, "class=model", "model=m1"))
	assert.Zero(t, m.sum(observe.MetricCostSettled), "no cost budget, no cost counted")
}

// The gated and the plain MODEL activity of TestUnitNotGrantedIsNotUnmetered.
const (
	gatedChat = "GatedChat"
	plainChat = "PlainChat"
)

// NotGrantedThenMeteredWorkflow makes a metered call the activity side
// refuses for lack of a grant, then a second metered call, and returns the
// first call's error type and the second call's error.
func NotGrantedThenMeteredWorkflow(ctx workflow.Context) ([]string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "gate", Tokens: 10_000, MaxTokens: 1000})
	if err != nil {
		return nil, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var first string
	var app *temporal.ApplicationError
	if err := workflow.ExecuteActivity(ctx, gatedChat, "q1").Get(ctx, nil); errors.As(err, &app) {
		first = app.Type()
	}
	second := "ok"
	if err := workflow.ExecuteActivity(ctx, plainChat, "q2").Get(ctx, nil); err != nil {
		second = err.Error()
	}
	return []string{first, second}, nil
}

// A metered call the activity side refuses for lack of a grant
// (temporaladk.TypeApprovalNotGranted) failed before the user's code ran, and before
// anything was reserved: it is no proof of an activity worker without the
// kit, and the run's next metered call runs. The workflow side runs a
// history recorded before the activity was declared RequiresApproval (its
// gate's version is the default), so it schedules the call ungated, and the
// activity side, which declares it, refuses it.
func TestUnitNotGrantedIsNotUnmetered(t *testing.T) {
	open, err := approvals.OpenApprovers(1)
	require.NoError(t, err)
	env, err := kittest.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{gatedChat: open}},
		Activities: map[string]temporaladk.Declaration{
			gatedChat: {Class: temporaladk.Model, RequiresApproval: true},
			plainChat: {Class: temporaladk.Model},
		},
	})
	require.NoError(t, err)
	env.OnGetVersion("temporaladk/approval/"+gatedChat, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	ran := map[string]int{}
	chat := func(name string) func(context.Context, string) (chatReply, error) {
		return func(ctx context.Context, prompt string) (chatReply, error) {
			ran[name]++
			_, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: 10, OutputTokens: 10})
			return chatReply{Text: prompt, Tokens: 20}, err
		}
	}
	env.RegisterActivityWithOptions(chat(gatedChat), activity.RegisterOptions{Name: gatedChat})
	env.RegisterActivityWithOptions(chat(plainChat), activity.RegisterOptions{Name: plainChat})
	env.RegisterWorkflow(NotGrantedThenMeteredWorkflow)
	env.ExecuteWorkflow(NotGrantedThenMeteredWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var got []string
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, []string{temporaladk.TypeApprovalNotGranted, "ok"}, got, "the refused grant is not read as a worker without the kit")
	assert.Equal(t, map[string]int{plainChat: 1}, ran, "the gated call never ran the user's code; the plain one did")
}

// UntaggedBudgetWorkflow calls Fail untagged, under the caller's retry
// policy of 5 attempts and a budget of 2 attempts.
func UntaggedBudgetWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "untagged", Attempts: 2})
	if err != nil {
		return runResult{}, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5, InitialInterval: 10 * time.Millisecond}})
	var out runResult
	out.addErr(workflow.ExecuteActivity(ctx, (*Activities).Fail, scenario, "provider").Get(ctx, nil))
	return out, nil
}

// A budget charges every call made under it, planned or not: whether a call
// is charged must not depend on the kit's options, which a replay may read
// changed (a DefaultClass set or unset, a declaration dropped).
func TestUnitBudgetChargesCallsTheKitDoesNotPlan(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	env, p := newProbedEnv(t, interceptors.Options{}, acts)
	env.RegisterWorkflow(UntaggedBudgetWorkflow)
	env.ExecuteWorkflow(UntaggedBudgetWorkflow, "untagged")
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("untagged"), 2, "the budget of 2 stops the caller's 5 attempts")
	assert.Equal(t, []string{"TemporaladkBudgetExceeded attempts=2"}, got.Types)
	require.Len(t, p.CallsOf("Fail"), 1)
	assert.Equal(t, int32(2), p.CallsOf("Fail")[0].MaxAttempts(), "the caller's 5 attempts held to the 1 + 1 the budget had left, so that the server stops there on any worker")
}

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
	assert.Equal(t, []string{"TemporaladkBudgetExceeded attempts=2"}, got.Types)
}
