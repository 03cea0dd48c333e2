package testsuite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// ChainInput is a run of ChainParent or ChainChild.
type ChainInput struct {
	// Run is the run's place in its chain, from 1; Runs how many runs the
	// chain makes.
	Run, Runs int
}

// note is the activity the chain's workflows call, with a class, so that
// their histories need the kit to replay.
func note(_ context.Context, s string) (string, error) { return s, nil }

func noteOnce(ctx workflow.Context, s string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Memory), "note", s).Get(ctx, nil)
}

// ChainParent continues as new twice: its first run starts a child that
// continues as new once, its third a child that does not.
func ChainParent(ctx workflow.Context, in ChainInput) (string, error) {
	if err := noteOnce(ctx, "parent"); err != nil {
		return "", err
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	startChild := func(name string, runs int) error {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id + "/" + name})
		return workflow.ExecuteChildWorkflow(cctx, ChainChild, ChainInput{Run: 1, Runs: runs}).Get(ctx, nil)
	}
	switch in.Run {
	case 1:
		if err := startChild("first", 2); err != nil {
			return "", err
		}
	case 3:
		if err := startChild("last", 1); err != nil {
			return "", err
		}
		return "done", nil
	}
	return "", workflow.NewContinueAsNewError(ctx, ChainParent, ChainInput{Run: in.Run + 1, Runs: 3})
}

// ChainChild notes and continues as new until its chain has in.Runs runs.
func ChainChild(ctx workflow.Context, in ChainInput) error {
	if err := noteOnce(ctx, "child"); err != nil {
		return err
	}
	if in.Run < in.Runs {
		return workflow.NewContinueAsNewError(ctx, ChainChild, ChainInput{Run: in.Run + 1, Runs: in.Runs})
	}
	return nil
}

// WaitForever waits for a signal that never comes.
func WaitForever(ctx workflow.Context) error {
	workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
	return nil
}

var chainWorkflows = []testsuite.ReplayWorkflow{{Func: ChainParent}, {Func: ChainChild}}

// TestRecordFamilyOnDevServer runs a parent that continues as new twice
// and starts two children, one of which continues as new, and records the
// whole family in one call right after the workflow completes: six runs,
// named by their place in the family, which replay with the worker's own
// options and fail to replay without the kit they ran with.
func TestRecordFamilyOnDevServer(t *testing.T) {
	c := testsuite.DevServerFor(t).Client()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	wopts := worker.Options{Plugins: []worker.Plugin{kit}}
	queue := "chain-" + t.Name()
	w := worker.New(c, queue, wopts)
	w.RegisterWorkflow(ChainParent)
	w.RegisterWorkflow(ChainChild)
	w.RegisterActivityWithOptions(note, activity.RegisterOptions{Name: "note"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "chain-" + t.Name() + "-" + time.Now().UTC().Format("150405.000000")
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, ChainParent, ChainInput{Run: 1, Runs: 3})
	require.NoError(t, err)
	var got string
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, "done", got)

	dir := filepath.Join(t.TempDir(), "histories")
	files, err := testsuite.RecordFamily(ctx, c, id, dir)
	require.NoError(t, err)
	want := []string{
		"run-1.json",
		"run-1.child-1-ChainChild.run-1.json",
		"run-1.child-1-ChainChild.run-2.json",
		"run-2.json",
		"run-3.json",
		"run-3.child-1-ChainChild.run-1.json",
	}
	var names []string
	for _, f := range files {
		assert.Equal(t, dir, filepath.Dir(f))
		names = append(names, filepath.Base(f))
	}
	require.Equal(t, want, names, "each run, then its children's families, then the next run")
	commands, err := testsuite.HistoryCommands(files[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"ScheduleActivityTask(note)", "StartChildWorkflowExecution(ChainChild)", "ContinueAsNewWorkflowExecution(ChainParent)"}, commands)
	commands, err = testsuite.HistoryCommands(files[len(files)-1])
	require.NoError(t, err)
	assert.Equal(t, []string{"ScheduleActivityTask(note)", "CompleteWorkflowExecution"}, commands)

	require.NoError(t, testsuite.ReplayDir(dir, testsuite.ReplayOptions{Worker: wopts, Workflows: chainWorkflows}),
		"the family replays with the worker's options")
	err = testsuite.ReplayDir(dir, testsuite.ReplayOptions{Workflows: chainWorkflows})
	require.Error(t, err, "a replay without the kit the worker ran fails")
	assert.Contains(t, err.Error(), "run-1.json")
	assert.Contains(t, err.Error(), "runs without the kit's interceptor")

	// Recorded again, the same names, and the family replays, in one call.
	again, err := testsuite.RecordAndReplay(ctx, c, id, filepath.Join(t.TempDir(), "again"), testsuite.ReplayOptions{Worker: wopts, Workflows: chainWorkflows})
	require.NoError(t, err)
	require.Len(t, again, len(want))
	for i, f := range again {
		assert.Equal(t, want[i], filepath.Base(f))
	}
	_, err = testsuite.RecordAndReplay(ctx, c, id, t.TempDir(), testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: ChainParent}}})
	require.Error(t, err, "a child whose workflow is not registered does not replay")
	assert.Contains(t, err.Error(), "ChainChild")
}

// TestRecordFamilyRefusesBadInput: each bad argument is an error naming
// it, before anything is asked of the server or written.
func TestRecordFamilyRefusesBadInput(t *testing.T) {
	t.Parallel()
	lazy, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	require.NoError(t, err)
	defer lazy.Close()
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	ctx := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		c    client.Client
		id   string
		dir  string
		want string
	}{
		{"nil ctx", nil, lazy, "w", t.TempDir(), "testsuite: RecordFamily: ctx is nil"},
		{"nil client", ctx, nil, "w", t.TempDir(), "testsuite: RecordFamily: the client is nil"},
		{"empty workflowID", ctx, lazy, " ", t.TempDir(), "testsuite: RecordFamily: workflowID is empty"},
		{"empty dir", ctx, lazy, "w", "", "testsuite: RecordFamily: dir is empty"},
		{"dir under a file", ctx, lazy, "w", filepath.Join(file, "histories"), `testsuite: RecordFamily: dir "` + filepath.Join(file, "histories") + `" cannot hold the histories`},
	}
	for _, tt := range tests {
		files, err := testsuite.RecordFamily(tt.ctx, tt.c, tt.id, tt.dir)
		require.Error(t, err, tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
		assert.Empty(t, files, tt.name)
	}
	files, err := testsuite.RecordAndReplay(ctx, lazy, "w", t.TempDir(), testsuite.ReplayOptions{})
	assert.ErrorContains(t, err, "testsuite: RecordAndReplay: opts.Workflows is empty")
	assert.Empty(t, files)
	_, err = testsuite.RecordAndReplay(ctx, nil, "w", t.TempDir(), testsuite.ReplayOptions{Workflows: chainWorkflows})
	assert.ErrorContains(t, err, "testsuite: RecordAndReplay: the client is nil")
}

// TestRecordFamilyOfNoWorkflowOrAnOpenOne: a workflow the server does not
// have, and one still running when ctx ends, are errors that say so.
func TestRecordFamilyOfNoWorkflowOrAnOpenOne(t *testing.T) {
	c := testsuite.DevServerFor(t).Client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	_, err := testsuite.RecordFamily(ctx, c, "no-such-workflow-"+t.Name(), dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `testsuite: RecordFamily: the server has no workflow "no-such-workflow-`+t.Name()+`" in the client's namespace`)

	queue := "open-" + t.Name()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(WaitForever)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	id := "open-" + t.Name() + "-" + time.Now().UTC().Format("150405.000000")
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, WaitForever)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.TerminateWorkflow(context.Background(), id, "", "the test is over") })
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	files, err := testsuite.RecordFamily(short, c, id, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "had not closed when ctx ended: a family is recorded once its runs have closed")
	assert.Empty(t, files)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".json"), "nothing recorded: %s", e.Name())
	}
}
