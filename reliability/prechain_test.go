package reliability_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The histories in testdata/prechain were recorded on a dev server by the
// kit of commit 25863f0, the commit before budgets crossed continue-as-new
// and child workflows (the temporaladk-chain start header, the charges of a
// child at its parent), with interceptors.Options{} on the worker and the
// workflows below. Those were written with that commit's budget API
// (temporaladk.NewRunBudget and WithRunBudget: an unnamed budget, new in
// every run); below they set the same budgets with temporaladk.WithBudgets,
// which issues no command, so that they issue the commands recorded. The
// chain's budget is named after its run number, so that every run still
// has a budget of its own, as it had when recorded:
//
//   - chain-run0.json, chain-run1.json, chain-run2.json: the three runs of
//     PrechainChainWorkflow, which continues as new twice with a plain
//     workflow.NewContinueAsNewError; each run's call retries once, charged
//     through the kit's charge Update.
//   - parent.json, child.json: PrechainParentWorkflow, whose budgeted call
//     retries once, and the PrechainChildWorkflow it starts on its budgeted
//     context, whose call retries once too.
//
// record_test.go there is the program that recorded them.
//
// TestPrechainHistoriesReplay replays them with the current kit's plugin:
// a workflow running when a fleet upgrades must go on with the new code.
// The histories are the record of that commit's behaviour; record them again
// only with that commit's kit.

// prechainCallName is the activity every prechain workflow calls.
const prechainCallName = "PrechainCall"

// prechainChildID is the workflow ID of PrechainParentWorkflow's child.
const prechainChildID = "prechain-parent-child"

// prechainRuns is how many runs PrechainChainWorkflow makes: it continues
// as new twice.
const prechainRuns = 3

// prechainCall fails its first attempt with a retryable provider error and
// returns key on the second, so that every call retries once.
func prechainCall(ctx context.Context, key string) (string, error) {
	if activity.GetInfo(ctx).Attempt == 1 {
		return "", &temporaladk.ProviderUnavailableError{Provider: "stand-in", Message: "first attempt fails"}
	}
	return key, nil
}

// prechainCtx is ctx with the activity options and the MODEL class every
// prechain call is made with.
func prechainCtx(ctx workflow.Context) workflow.Context {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return temporaladk.WithClass(ctx, temporaladk.Model)
}

// PrechainChainWorkflow makes one budgeted call that retries, then
// continues as new with workflow.NewContinueAsNewError until its run
// number reaches prechainRuns-1, where it returns what its run's budget
// spent. Each run's budget is its own: it is named after the run number,
// so that no run finds the one the run before handed over.
func PrechainChainWorkflow(ctx workflow.Context, run int) (int, error) {
	ctx, err := temporaladk.WithBudgets(prechainCtx(ctx), temporaladk.Budgets{Name: fmt.Sprintf("prechain-run-%d", run), Attempts: 10})
	if err != nil {
		return 0, err
	}
	var out string
	if err := workflow.ExecuteActivity(ctx, prechainCallName, fmt.Sprintf("chain-%d", run)).Get(ctx, &out); err != nil {
		return 0, err
	}
	if run < prechainRuns-1 {
		return 0, workflow.NewContinueAsNewError(ctx, PrechainChainWorkflow, run+1)
	}
	return int(budgetOf(ctx, spend.KindAttempts).Spent), nil
}

// PrechainParentWorkflow makes one budgeted call that retries, then starts
// PrechainChildWorkflow on the budgeted context and returns the child's
// result.
func PrechainParentWorkflow(ctx workflow.Context) (string, error) {
	ctx, err := temporaladk.WithBudgets(prechainCtx(ctx), temporaladk.Budgets{Name: "prechain-parent", Attempts: 10})
	if err != nil {
		return "", err
	}
	var out string
	if err := workflow.ExecuteActivity(ctx, prechainCallName, "parent").Get(ctx, &out); err != nil {
		return "", err
	}
	// A fixed child ID: the replayer runs the parent under another workflow
	// ID, and an ID derived from it would not match the recorded command.
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: prechainChildID})
	var child string
	if err := workflow.ExecuteChildWorkflow(ctx, PrechainChildWorkflow).Get(ctx, &child); err != nil {
		return "", err
	}
	return out + "+" + child, nil
}

// PrechainChildWorkflow makes one call, without a budget of its own, that
// retries.
func PrechainChildWorkflow(ctx workflow.Context) (string, error) {
	ctx = prechainCtx(ctx)
	var out string
	err := workflow.ExecuteActivity(ctx, prechainCallName, "child").Get(ctx, &out)
	return out, err
}

// prechainDir holds the histories the kit of commit 25863f0 recorded.
var prechainDir = filepath.Join("testdata", "prechain")

func TestPrechainHistoriesReplay(t *testing.T) {
	t.Parallel()
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(prechainDir, "*.json"))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"chain-run0.json", "chain-run1.json", "chain-run2.json", "parent.json", "child.json"}, baseNames(files),
		"every recorded run is here: a missing file would pass unreplayed")
	require.NoError(t, testsuite.ReplayDir(prechainDir, testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{{Func: PrechainChainWorkflow}, {Func: PrechainParentWorkflow}, {Func: PrechainChildWorkflow}},
		Plugins:   []worker.Plugin{plugin},
	}), "histories recorded before budgets crossed runs replay with the current kit")
}

// TestPrechainHistoriesHoldWhatTheyClaim checks that the recorded histories
// are the runs the comment above describes: a replay of histories that
// never retried, continued as new or started a child would prove nothing.
func TestPrechainHistoriesHoldWhatTheyClaim(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"chain-run0.json": {"ScheduleActivityTask(PrechainCall)", "ContinueAsNewWorkflowExecution(PrechainChainWorkflow)"},
		"chain-run1.json": {"ScheduleActivityTask(PrechainCall)", "ContinueAsNewWorkflowExecution(PrechainChainWorkflow)"},
		"chain-run2.json": {"ScheduleActivityTask(PrechainCall)", "CompleteWorkflowExecution"},
		"parent.json":     {"ScheduleActivityTask(PrechainCall)", "StartChildWorkflowExecution(PrechainChildWorkflow)", "CompleteWorkflowExecution"},
		"child.json":      {"ScheduleActivityTask(PrechainCall)", "CompleteWorkflowExecution"},
	}
	for name, cmds := range want {
		path := filepath.Join(prechainDir, name)
		got, err := testsuite.HistoryCommands(path)
		require.NoError(t, err)
		for _, c := range cmds {
			assert.Contains(t, got, c, name)
		}
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		// Every call's second attempt ran: the retry happened.
		assert.Contains(t, string(raw), `"attempt": 2`, "%s: the call retried", name)
		if name != "child.json" {
			// The retry of a budgeted call was charged through the kit's
			// charge Update, which the replay must accept again.
			assert.Contains(t, string(raw), "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED", "%s: the retry was charged", name)
			assert.Contains(t, string(raw), wire.ChargeUpdateName, name)
		}
	}
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
