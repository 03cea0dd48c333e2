package temporaladk_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// BudgetExceededError is a user's own error that happens to share its name
// with a never-retryable kit error.
type BudgetExceededError struct{}

func (BudgetExceededError) Error() string { return "the user's own budget error" }

// QuotaError is a user's own error of a name the kit does not use.
type QuotaError struct{}

func (QuotaError) Error() string { return "the user's own quota error" }

// ownErrorWorkflow calls activity under a retry policy of three attempts,
// on no class of the kit's.
func ownErrorWorkflow(ctx workflow.Context, activityName string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3, InitialInterval: time.Millisecond},
	})
	return workflow.ExecuteActivity(ctx, activityName).Get(ctx, nil)
}

// TestOwnErrorNamedLikeAKitErrorIsNotRetried holds what the package doc
// says of errors outside the hierarchy: they are retried as their policy
// says, but for one named like a never-retryable kit error. Temporal
// matches NonRetryableErrorTypes by type string, an error that is not an
// ApplicationError crosses with its Go type's name, and the kit lists its
// never-retryable names in every call's retry policy.
func TestOwnErrorNamedLikeAKitErrorIsNotRetried(t *testing.T) {
	attempts := func(t *testing.T, name string, fail error) int64 {
		t.Helper()
		var s testsuite.WorkflowTestSuite
		env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{})
		require.NoError(t, err)
		var n atomic.Int64
		env.RegisterActivityWithOptions(func(context.Context) error { n.Add(1); return fail }, activity.RegisterOptions{Name: name})
		env.RegisterWorkflow(ownErrorWorkflow)
		env.ExecuteWorkflow(ownErrorWorkflow, name)
		require.Error(t, env.GetWorkflowError())
		return n.Load()
	}
	assert.Equal(t, int64(3), attempts(t, "Quota", QuotaError{}), "an error of a name of its own is retried as its policy says")
	assert.Equal(t, int64(1), attempts(t, "Budget", BudgetExceededError{}), "one named like a never-retryable kit error is not retried")
	assert.Equal(t, int64(3), attempts(t, "Renamed", temporal.NewApplicationError("the user's own budget error", "ShopBudgetExceeded")), "the remedy: a type string of its own")
}
