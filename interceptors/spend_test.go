package interceptors_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
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
	assert.EqualValues(t, 3000, m.sum(interceptors.MetricTokensReserved, "class=model", "model=m1"))
	assert.EqualValues(t, 900, m.sum(interceptors.MetricTokensSettled, "class=model", "model=m1"))
	assert.Zero(t, m.sum(interceptors.MetricCostSettled), "no cost budget, no cost counted")
}
