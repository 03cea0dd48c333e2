package interceptors

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// rawKit is the kit's interceptor as no public path hands it out: built, but
// not configured by its plugin.
func rawKit(t *testing.T) *kitInterceptor {
	t.Helper()
	i, err := newInterceptor(Options{}, seam.Seams{})
	require.NoError(t, err)
	return i
}

// A kit interceptor that reaches a worker without its plugin (in
// worker.Options.Interceptors) serves no task: the workflow task fails,
// so that the server retries it, and the activity fails non-retryably,
// each naming interceptors.NewPlugin as the one path. Through the plugin
// the same workflow and activity run.
func TestUnitKitWithoutItsPluginFailsItsTasks(t *testing.T) {
	t.Parallel()
	t.Run("workflow task", func(t *testing.T) {
		t.Parallel()
		var suite sdktestsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{rawKit(t)}})
		env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
		env.ExecuteWorkflow("Agent")
		err := env.GetWorkflowError()
		require.Error(t, err)
		assert.ErrorContains(t, err, "interceptors.NewPlugin")
		var panicked *temporal.PanicError
		assert.True(t, errors.As(err, &panicked), "the task fails (a panic), not the run: %v", err)
	})
	t.Run("activity", func(t *testing.T) {
		t.Parallel()
		var suite sdktestsuite.WorkflowTestSuite
		env := suite.NewTestActivityEnvironment()
		env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{rawKit(t)}})
		ran := false
		env.RegisterActivityWithOptions(func(context.Context) error { ran = true; return nil }, activity.RegisterOptions{Name: "Noop"})
		_, err := env.ExecuteActivity("Noop")
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app)
		assert.Equal(t, temporaladk.TypeMisconfigured, app.Type())
		assert.True(t, app.NonRetryable())
		assert.Contains(t, app.Error(), "interceptors.NewPlugin")
		assert.False(t, ran, "the user's code does not run")
	})
	t.Run("through the plugin", func(t *testing.T) {
		t.Parallel()
		kit := rawKit(t)
		plugin, err := kit.plugin()
		require.NoError(t, err)
		var suite sdktestsuite.WorkflowTestSuite
		env := suite.NewTestActivityEnvironment()
		env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{plugin}})
		env.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "Noop"})
		_, err = env.ExecuteActivity("Noop")
		require.NoError(t, err)
	})
}

// Two different kit interceptors in one chain, which no plugin lets
// happen, fail the workflow task naming ErrRegisteredTwice; the same one
// twice applies once.
func TestUnitKitTwiceInAChain(t *testing.T) {
	t.Parallel()
	configured := func(t *testing.T) *kitInterceptor {
		i := rawKit(t)
		i.configured.Store(true)
		return i
	}
	one, other := configured(t), configured(t)
	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{one, other}})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	assert.ErrorContains(t, env.GetWorkflowError(), "two different kits")

	env = suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{one, one}})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	assert.NoError(t, env.GetWorkflowError())
}

func TestNewKeepsNoReferenceToOptions(t *testing.T) {
	t.Parallel()
	model, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	ps := map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model}
	i, err := newInterceptor(Options{Policies: ps}, seam.Seams{})
	require.NoError(t, err)
	changed := model
	changed.Retry.MaxAttempts = 99
	ps[temporaladk.Model] = changed
	got, ok := i.policy(temporaladk.Model)
	require.True(t, ok)
	assert.Equal(t, 3, got.Retry.MaxAttempts)
}
