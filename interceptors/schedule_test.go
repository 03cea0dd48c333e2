package interceptors_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// A local activity under a token budget, and other calls the kit cannot
// schedule as set up, fail typed, non-retryable, in one sentence that says
// what to change: never the SDK's retryable wrapper of a plain error.
func TestUnitMisconfiguredCallsFailTypedAndNonRetryable(t *testing.T) {
	t.Parallel()
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterActivityWithOptions(func(ctx context.Context) error { return nil }, activity.RegisterOptions{Name: "Think"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model), temporaladk.Budgets{Name: "tokens", Tokens: 1000, MaxTokens: 100})
		if err != nil {
			return err
		}
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Second})
		return workflow.ExecuteLocalActivity(ctx, "Think").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	err = env.GetWorkflowError()
	require.Error(t, err)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, temporaladk.TypeMisconfigured, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Equal(t, "temporaladk: local activity Think was not scheduled: a local activity cannot be metered by a token or cost budget (its reservation is an Update the run cannot take while its workflow task waits for it): make it an activity", app.Message())
	assert.NotContains(t, err.Error(), "wrapError")
}
