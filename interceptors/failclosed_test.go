package interceptors_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// kitCall is one workflow-side call of the kit, made on ctx.
type kitCall struct {
	name string
	call func(ctx workflow.Context) error
}

// kitCalls are every exported workflow-side call of the kit's packages that
// asks something of the kit's interceptor.
func kitCalls() []kitCall {
	return []kitCall{
		{"temporaladk.WithClass", func(ctx workflow.Context) error { temporaladk.WithClass(ctx, temporaladk.Tool); return nil }},
		{"temporaladk.WithTenant", func(ctx workflow.Context) error { temporaladk.WithTenant(ctx, "acme"); return nil }},
		{"temporaladk.WithIdempotencyKey", func(ctx workflow.Context) error { temporaladk.WithIdempotencyKey(ctx, "k"); return nil }},
		// Every kind of budget at once, then the cap and the model alone.
		{"temporaladk.WithBudgets", func(ctx workflow.Context) error {
			_, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "b", Attempts: 3, Retries: 1, Tokens: 100, Cost: 100, MaxTokens: 10, Model: "m"})
			return err
		}},
		{"temporaladk.WithBudgets", func(ctx workflow.Context) error {
			_, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{MaxTokens: 10, Model: "m"})
			return err
		}},
		{"approvals.WithApproval", func(ctx workflow.Context) error {
			_, err := approvals.WithApproval(ctx, approvals.Options{})
			return err
		}},
		{"conversation.WithUpdateLimit", func(ctx workflow.Context) error { _, err := conversation.WithUpdateLimit(ctx, 10); return err }},
		{"conversation.WithHistoryByteLimit", func(ctx workflow.Context) error {
			_, err := conversation.WithHistoryByteLimit(ctx, 1<<20)
			return err
		}},
		{"conversation.Updates", func(ctx workflow.Context) error { conversation.Updates(ctx); return nil }},
		{"conversation.ShouldContinueAsNew", func(ctx workflow.Context) error { conversation.ShouldContinueAsNew(ctx); return nil }},
		{"conversation.ContinueAsNew", func(ctx workflow.Context) error {
			return conversation.ContinueAsNew(ctx, func(workflow.Context) error { return nil })
		}},
	}
}

// Every workflow-side kit call in a workflow that runs without the kit's
// interceptor fails the workflow task (a panic, the SDK's default
// BlockWorkflow policy), naming the call and the fix, so that a mixed fleet
// retries the task until a worker with the kit takes it: never a budget,
// class or gate silently ignored. The same calls under the kit run.
func TestUnitKitCallsWithoutTheKitFailTheWorkflowTask(t *testing.T) {
	t.Parallel()
	for _, c := range kitCalls() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wf := func(ctx workflow.Context) error {
				err := c.call(ctx)
				var can *workflow.ContinueAsNewError
				if errors.As(err, &can) {
					return nil
				}
				return err
			}
			var suite sdktestsuite.WorkflowTestSuite
			plain := suite.NewTestWorkflowEnvironment()
			plain.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "Agent"})
			plain.ExecuteWorkflow("Agent")
			err := plain.GetWorkflowError()
			require.Error(t, err)
			var panicked *temporal.PanicError
			require.True(t, errors.As(err, &panicked), "a panic, which fails the workflow task on a real worker: %v", err)
			assert.Contains(t, err.Error(), c.name, "names the call")
			assert.Contains(t, err.Error(), "without the kit's interceptor")
			assert.Contains(t, err.Error(), "interceptors.NewPlugin", "names the fix")

			kit, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
			require.NoError(t, err)
			kit.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "Agent"})
			kit.ExecuteWorkflow("Agent")
			require.NoError(t, kit.GetWorkflowError(), "under the kit the call runs")
		})
	}
}

// A nil context is refused by every workflow-side kit call: an error where
// the call returns one, else a panic naming the call (a programming error
// in workflow code, which fails the task).
func TestUnitKitCallsRefuseANilContext(t *testing.T) {
	t.Parallel()
	for _, c := range kitCalls() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = errors.New(strings.TrimSpace(anyString(r)))
					}
				}()
				err = c.call(nil)
			}()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "ctx is nil")
			assert.Contains(t, err.Error(), c.name[strings.Index(c.name, ".")+1:], "names the call")
		})
	}
}

func anyString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "panic"
}

// Registration is idempotent: the kit's plugin given twice applies once:
// each attempt of a call under a budget is charged once. Two different
// kits are refused as the worker is built, naming the mistake. (The
// interceptor itself is not handed out; registration_internal_test.go
// holds what a kit interceptor placed twice in a chain does.)
func TestUnitRegisteredTwiceAppliesOnce(t *testing.T) {
	t.Parallel()
	type result struct{ Spent, Attempts int }
	paths := map[string]func(kit *temporal.SimplePlugin) worker.Options{
		"plugin twice": func(kit *temporal.SimplePlugin) worker.Options {
			return worker.Options{Plugins: []worker.Plugin{kit, kit}}
		},
		"once": func(kit *temporal.SimplePlugin) worker.Options {
			return worker.Options{Plugins: []worker.Plugin{kit}}
		},
	}
	for name, register := range paths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var suite sdktestsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			kit := newEnvKit(t, env, interceptors.Options{})
			env.SetWorkerOptions(register(kit))
			attempts := 0
			env.RegisterActivityWithOptions(func(ctx context.Context) error {
				attempts++
				if attempts < 2 {
					return &temporaladk.ProviderError{Provider: "p", StatusCode: 503}
				}
				return nil
			}, activity.RegisterOptions{Name: "Think"})
			env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (result, error) {
				ctx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model), temporaladk.Budgets{Name: "agent", Attempts: 5})
				if err != nil {
					return result{}, err
				}
				err = workflow.ExecuteActivity(ctx, "Think").Get(ctx, nil)
				return result{Spent: attemptsSpent(ctx)}, err
			}, workflow.RegisterOptions{Name: "Agent"})
			env.ExecuteWorkflow("Agent")
			require.NoError(t, env.GetWorkflowError())
			var got result
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, 2, attempts)
			assert.Equal(t, 2, got.Spent, "each of the two attempts charged once")
		})
	}

	t.Run("two different kits", func(t *testing.T) {
		t.Parallel()
		one, other := newKit(t, interceptors.Options{}), newKit(t, interceptors.Options{})
		// Through the plugin, the worker is refused as it is built.
		var psuite sdktestsuite.WorkflowTestSuite
		penv := psuite.NewTestWorkflowEnvironment()
		assert.PanicsWithError(t, "interceptors: "+interceptors.ErrRegisteredTwice.Error(), func() {
			penv.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{one, other}})
		})
	})
}

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
	assert.Equal(t, interceptors.TypeMisconfigured, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Equal(t, "temporaladk: local activity Think was not scheduled: a local activity cannot be metered by a token or cost budget (its reservation is an Update the run cannot take while its workflow task waits for it): make it an activity", app.Message())
	assert.NotContains(t, err.Error(), "wrapError")
}

// The kit's Update and Query handlers carry a description, as
// `temporal workflow metadata` shows them (the SDK's metadata Query).
func TestUnitKitHandlersAreDescribed(t *testing.T) {
	t.Parallel()
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	require.NoError(t, env.GetWorkflowError())
	v, err := env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	described := map[string]string{}
	for _, d := range md.GetDefinition().GetUpdateDefinitions() {
		described[d.GetName()] = d.GetDescription()
	}
	for _, d := range md.GetDefinition().GetQueryDefinitions() {
		described[d.GetName()] = d.GetDescription()
	}
	for _, name := range []string{wire.ChargeUpdateName, spend.QueryName, approvals.UpdateName, approvals.QueryName} {
		assert.Contains(t, described[name], "temporaladk: ", "%s is described", name)
	}
}
