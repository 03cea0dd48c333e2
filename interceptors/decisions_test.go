package interceptors_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// The consequences of one place deciding, each in the SDK's test environment
// and on a real dev server.

// UntaggedWorkflow calls Fail with no class tag, under the caller's retry
// policy of callerAttempts attempts, or Temporal's default policy
// (unlimited attempts) when callerAttempts is 0.
func UntaggedWorkflow(ctx workflow.Context, scenario, kind string, callerAttempts int32) (runResult, error) {
	opts := workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}
	if callerAttempts > 0 {
		opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: callerAttempts, InitialInterval: 10 * time.Millisecond}
	}
	var out runResult
	out.addErr(workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), (*Activities).Fail, scenario, kind).Get(ctx, nil))
	return out, nil
}

// TaggedWorkflow calls Fail under the class tag class.
func TaggedWorkflow(ctx workflow.Context, scenario, kind string, class temporaladk.Class) (runResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 10 * time.Millisecond, MaximumAttempts: 9}})
	var out runResult
	out.addErr(workflow.ExecuteActivity(temporaladk.WithClass(ctx, class), (*Activities).Fail, scenario, kind).Get(ctx, nil))
	return out, nil
}

// decisionCases are the consequences the issue names: a never-retryable kit
// error from a call with no tag, no declaration and no default class runs
// once whatever the retry policy says; a tool declared TOOL without a word
// about idempotency keeps one attempt under a MODEL tag.
var decisionCases = []struct {
	name     string
	opts     interceptors.Options
	workflow any
	args     []any
	runs     int
	errType  string
}{
	{"untagged never-retryable under a caller policy of 9", interceptors.Options{}, UntaggedWorkflow, []any{"guardrail", int32(9)}, 1, temporaladk.TypeGuardrailViolation},
	{"untagged never-retryable under the default policy", interceptors.Options{}, UntaggedWorkflow, []any{"guardrail", int32(0)}, 1, temporaladk.TypeGuardrailViolation},
	{"untagged retryable: the caller's 9 attempts", interceptors.Options{}, UntaggedWorkflow, []any{"transient", int32(9)}, 9, temporaladk.TypeToolFailure},
	{"declared TOOL under a MODEL tag: one attempt", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Fail": {Class: temporaladk.Tool}}},
		TaggedWorkflow, []any{"transient", temporaladk.Model}, 1, temporaladk.TypeToolFailure},
	{"declared read-only TOOL under a MODEL tag: the caller's attempts", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Fail": {Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly}}},
		TaggedWorkflow, []any{"transient", temporaladk.Model}, 9, temporaladk.TypeToolFailure},
}

func TestUnitOnePlaceDecides(t *testing.T) {
	for _, tt := range decisionCases {
		t.Run(tt.name, func(t *testing.T) {
			acts := &Activities{log: newAttemptLog()}
			env := newEnv(t, tt.opts, acts)
			env.RegisterWorkflow(UntaggedWorkflow)
			env.RegisterWorkflow(TaggedWorkflow)
			env.ExecuteWorkflow(tt.workflow, append([]any{"decide"}, tt.args...)...)
			require.NoError(t, env.GetWorkflowError())
			var got runResult
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Len(t, acts.log.get("decide"), tt.runs, "executions of the activity's code")
			assert.Equal(t, []string{tt.errType}, got.Types)
		})
	}
}

func TestIntegrationOnePlaceDecides(t *testing.T) {
	t.Parallel()
	for i, tt := range decisionCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startWorkerNamed(t, fmt.Sprintf("-%d", i), tt.opts)
			got, _, events := r.run(tt.workflow, append([]any{"decide"}, tt.args...)...)
			assert.Len(t, r.acts.log.get("decide"), tt.runs, "executions of the activity's code")
			assert.Equal(t, []int32{int32(tt.runs)}, startedAttempts(events), "the attempts the server recorded")
			assert.Equal(t, []string{tt.errType}, got.Types)
		})
	}
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
	assert.Equal(t, []string{"BudgetExceededError attempts=2"}, got.Types)
	require.Len(t, p.CallsOf("Fail"), 1)
	assert.Equal(t, int32(2), p.CallsOf("Fail")[0].MaxAttempts(), "the caller's 5 attempts held to the 1 + 1 the budget had left, so that the server stops there on any worker")
}
