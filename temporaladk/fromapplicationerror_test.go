package temporaladk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// found says whether errors.As finds a call's kit error on the error as the
// future gave it (Direct) and on FromApplicationError's result (Converted),
// and whether FromApplicationError returned the error unchanged.
type found struct {
	Direct, Converted, Unchanged bool
}

func find[E error](err error) found {
	var direct, converted E
	return found{
		Direct:    errors.As(err, &direct),
		Converted: errors.As(temporaladk.FromApplicationError(err), &converted),
		Unchanged: temporaladk.FromApplicationError(err) == err,
	}
}

// ScreenChild is a child workflow that fails with a kit error.
func ScreenChild(workflow.Context) error {
	return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "card number"}
}

// WhereKitErrorsComeFrom makes a call fail in each of the ways a kit error
// reaches workflow code, and reports where errors.As finds it.
func WhereKitErrorsComeFrom(ctx workflow.Context) (map[string]found, error) {
	out := map[string]found{}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})

	// Made in workflow code by the kit: an approval nobody gave in time.
	asked, err := approvals.WithApproval(ctx, approvals.Options{Timeout: time.Minute, Approvers: approvals.Approvers{Open: true, Required: 1}})
	if err != nil {
		return nil, err
	}
	err = workflow.ExecuteActivity(asked, "Lookup", "refund").Get(ctx, nil)
	out["approval timed out"] = find[*temporaladk.ApprovalDeniedError](err)

	// Made in workflow code by the kit: a call its budget refuses before
	// its first attempt.
	budgeted, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Retrieval), temporaladk.Budgets{Name: "one", Attempts: 1})
	if err != nil {
		return nil, err
	}
	if err := workflow.ExecuteActivity(budgeted, "Lookup", "first").Get(ctx, nil); err != nil {
		return nil, err
	}
	err = workflow.ExecuteActivity(budgeted, "Lookup", "second").Get(ctx, nil)
	out["budget refused the first attempt"] = find[*temporaladk.BudgetExceededError](err)

	// Returned by an activity: it crosses as an ApplicationError.
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), "Screen", "hello").Get(ctx, nil)
	out["activity"] = find[*temporaladk.GuardrailViolationError](err)

	// Returned by a child workflow: it crosses as an ApplicationError too.
	err = workflow.ExecuteChildWorkflow(ctx, ScreenChild).Get(ctx, nil)
	out["child workflow"] = find[*temporaladk.GuardrailViolationError](err)
	return out, nil
}

// TestWhenFromApplicationErrorIsNeeded holds what the package doc and
// README say of FromApplicationError: errors.As finds the kit errors the
// kit makes in workflow code as they are, and those that crossed from an
// activity or a child workflow only on FromApplicationError's result; on
// the former FromApplicationError changes nothing.
func TestWhenFromApplicationErrorIsNeeded(t *testing.T) {
	t.Parallel()
	var s testsuite.WorkflowTestSuite
	env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflow(WhereKitErrorsComeFrom)
	env.RegisterWorkflow(ScreenChild)
	env.RegisterActivityWithOptions(func(context.Context, string) error { return nil }, activity.RegisterOptions{Name: "Lookup"})
	env.RegisterActivityWithOptions(func(context.Context, string) error {
		return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "card number"}
	}, activity.RegisterOptions{Name: "Screen"})
	env.ExecuteWorkflow(WhereKitErrorsComeFrom)
	require.NoError(t, env.GetWorkflowError())
	var got map[string]found
	require.NoError(t, env.GetWorkflowResult(&got))

	made := found{Direct: true, Converted: true, Unchanged: true}
	crossed := found{Direct: false, Converted: true, Unchanged: false}
	assert.Equal(t, map[string]found{
		"approval timed out":               made,
		"budget refused the first attempt": made,
		"activity":                         crossed,
		"child workflow":                   crossed,
	}, got)
}
