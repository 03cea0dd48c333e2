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

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

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
// (approvals.TypeNotGranted) failed before the user's code ran, and before
// anything was reserved: it is no proof of an activity worker without the
// kit, and the run's next metered call runs. The workflow side runs a
// history recorded before the activity was declared RequiresApproval (its
// gate's version is the default), so it schedules the call ungated, and the
// activity side, which declares it, refuses it.
func TestUnitNotGrantedIsNotUnmetered(t *testing.T) {
	open, err := approvals.OpenApprovers(1)
	require.NoError(t, err)
	env, err := kittest.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{
		Approvals: interceptors.ApprovalOptions{Tools: map[string]approvals.Approvers{gatedChat: open}},
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
	assert.Equal(t, []string{approvals.TypeNotGranted, "ok"}, got, "the refused grant is not read as a worker without the kit")
	assert.Equal(t, map[string]int{plainChat: 1}, ran, "the gated call never ran the user's code; the plain one did")
}
