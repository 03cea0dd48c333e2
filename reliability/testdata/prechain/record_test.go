// This is the recorder of the histories in this directory. It ran, as
// prechainrec/record_test.go, in a copy of the kit at commit 25863f0
// (git archive 25863f0), with PRECHAIN_OUT naming the directory to write
// to: go test ./prechainrec/ -run TestRecordPrechain. The go tool ignores
// testdata, so it is kept here as the record of how the files were made.

package prechainrec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

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
// spent.
func PrechainChainWorkflow(ctx workflow.Context, run int) (int, error) {
	b, err := temporaladk.NewRunBudget(10)
	if err != nil {
		return 0, err
	}
	ctx = temporaladk.WithRunBudget(prechainCtx(ctx), b)
	var out string
	if err := workflow.ExecuteActivity(ctx, prechainCallName, fmt.Sprintf("chain-%d", run)).Get(ctx, &out); err != nil {
		return 0, err
	}
	if run < prechainRuns-1 {
		return 0, workflow.NewContinueAsNewError(ctx, PrechainChainWorkflow, run+1)
	}
	return b.Spent(), nil
}

// PrechainParentWorkflow makes one budgeted call that retries, then starts
// PrechainChildWorkflow on the budgeted context and returns the child's
// result.
func PrechainParentWorkflow(ctx workflow.Context) (string, error) {
	b, err := temporaladk.NewRunBudget(10)
	if err != nil {
		return "", err
	}
	ctx = temporaladk.WithRunBudget(prechainCtx(ctx), b)
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

func TestRecordPrechain(t *testing.T) {
	out := os.Getenv("PRECHAIN_OUT")
	if out == "" {
		t.Fatal("PRECHAIN_OUT is not set")
	}
	srv := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{})
	c := srv.Client()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const queue = "prechain"
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(PrechainChainWorkflow)
	w.RegisterWorkflow(PrechainParentWorkflow)
	w.RegisterWorkflow(PrechainChildWorkflow)
	w.RegisterActivityWithOptions(prechainCall, activity.RegisterOptions{Name: prechainCallName})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	chain, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "prechain-chain", TaskQueue: queue}, PrechainChainWorkflow, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Get follows the chain and moves GetRunID to its last run: the first
	// run's ID is read before.
	runID := chain.GetRunID()
	var spent int
	if err := chain.Get(ctx, &spent); err != nil {
		t.Fatal(err)
	}
	t.Logf("chain: last run spent %d", spent)
	// Every run of the chain, first to last, from the first run's
	// continued-as-new link.
	for i := 0; runID != ""; i++ {
		h, err := testsuite.WorkflowHistory(ctx, c, "prechain-chain", runID)
		if err != nil {
			t.Fatal(err)
		}
		if err := testsuite.RecordHistory(ctx, c, "prechain-chain", runID, filepath.Join(out, fmt.Sprintf("chain-run%d.json", i))); err != nil {
			t.Fatal(err)
		}
		events := h.GetEvents()
		runID = events[len(events)-1].GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	}

	parent, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "prechain-parent", TaskQueue: queue}, PrechainParentWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := parent.Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("parent: %s", got)
	if err := testsuite.RecordHistory(ctx, c, "prechain-parent", parent.GetRunID(), filepath.Join(out, "parent.json")); err != nil {
		t.Fatal(err)
	}
	if err := testsuite.RecordHistory(ctx, c, "prechain-parent-child", "", filepath.Join(out, "child.json")); err != nil {
		t.Fatal(err)
	}
}
