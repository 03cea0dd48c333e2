package testsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func callModel(ctx context.Context, prompt string) (string, error) {
	temporaladk.HeartbeaterFrom(ctx).Chunk(len(prompt))
	return "ok:" + string(vocabtest.CallOf(ctx).Class), nil
}

func lookup(ctx context.Context, _ string) (string, error) {
	return "doc:" + string(vocabtest.CallOf(ctx).Class), nil
}

func agent(ctx workflow.Context, prompt string) (string, error) {
	var reply, doc string
	if err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), callModel, prompt).Get(ctx, &reply); err != nil {
		return "", err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 3 * time.Second})
	if err := workflow.ExecuteLocalActivity(temporaladk.WithClass(lctx, temporaladk.Memory), lookup, prompt).Get(ctx, &doc); err != nil {
		return "", err
	}
	return reply + "+" + doc, nil
}

func TestKitTestEnvironmentRecordsWhatWasApplied(t *testing.T) {
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflow(agent)
	env.RegisterActivity(callModel)
	env.RegisterActivity(lookup)
	env.ExecuteWorkflow(agent, "hello")
	require.NoError(t, env.GetWorkflowError())
	var got string
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, "ok:MODEL+doc:MEMORY", got, "activities, local ones too, see their class")

	calls := env.Recorder.Calls()
	require.Len(t, calls, 2)
	model := env.Recorder.CallsOf("callModel")
	require.Len(t, model, 1)
	assert.Equal(t, 900*time.Second, model[0].Options.StartToCloseTimeout)
	assert.Equal(t, 60*time.Second, model[0].Options.HeartbeatTimeout)
	assert.Equal(t, int32(3), model[0].MaxAttempts())
	assert.Equal(t, "model: callModel", model[0].Options.Summary)
	local := env.Recorder.CallsOf("lookup")
	require.Len(t, local, 1)
	assert.True(t, local[0].Local)
	assert.Equal(t, 3*time.Second, local[0].LocalOptions.StartToCloseTimeout, "the caller's StartToClose stays")
	assert.Equal(t, int32(3), local[0].MaxAttempts())
	assert.ElementsMatch(t, vocab.NeverRetryableTypes(), local[0].LocalOptions.RetryPolicy.NonRetryableErrorTypes)
	assert.WithinDuration(t, testsuite.DefaultStartTime(), env.Now(), time.Hour, "the workflow clock starts at DefaultStartTime")
}

func TestNewKitTestEnvironmentRefusesBadInput(t *testing.T) {
	env, err := testsuite.NewKitTestEnvironment(nil, interceptors.Options{})
	assert.ErrorContains(t, err, "suite is nil")
	assert.Nil(t, env)
	var suite sdktestsuite.WorkflowTestSuite
	env, err = testsuite.NewKitTestEnvironment(&suite, interceptors.Options{DefaultClass: "THINKING"})
	assert.ErrorContains(t, err, `Options.DefaultClass is "THINKING"`)
	assert.Nil(t, env)
}

// NewKitPlugin is the kit's plugin for an SDK test environment set up by
// hand: a budgeted call's retry is charged through the environment (whose
// activities' client cannot send Updates), and the retry policy the kit
// scheduled reaches the activity side through the Recorder. A nil
// environment is an error naming the call.
func TestNewKitPlugin(t *testing.T) {
	t.Parallel()
	_, err := testsuite.NewKitPlugin(nil, interceptors.Options{})
	require.ErrorContains(t, err, "NewKitPlugin: env is nil")

	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	kit, err := testsuite.NewKitPlugin(env, interceptors.Options{})
	require.NoError(t, err)
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&testsuite.Recorder{}}, Plugins: []worker.Plugin{kit}})
	attempts := 0
	env.RegisterActivityWithOptions(func(context.Context) error {
		attempts++
		if attempts < 2 {
			return &temporaladk.ProviderError{Provider: "p", StatusCode: 503}
		}
		return nil
	}, activity.RegisterOptions{Name: "Think"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model), temporaladk.Budgets{Name: "agent", Attempts: 5})
		if err != nil {
			return err
		}
		return workflow.ExecuteActivity(ctx, "Think").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, 2, attempts, "the retry was charged through the environment and ran")
}
