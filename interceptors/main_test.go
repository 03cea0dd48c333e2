package interceptors_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one real Temporal dev server among this package's
// integration tests; unit tests (go test -run Unit) start none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// serverRun is a worker on the shared dev server with the kit and a
// testsuite.Recorder registered, on a task queue of its own.
type serverRun struct {
	t         *testing.T
	c         client.Client
	taskQueue string
	acts      *Activities
	probe     *testsuite.Recorder
	kit       *temporal.SimplePlugin
}

func startWorker(t *testing.T, opts interceptors.Options) *serverRun {
	t.Helper()
	return startWorkerNamed(t, "", opts)
}

// startWorkerNamed starts a worker on a task queue named after the test and
// suffix.
func startWorkerNamed(t *testing.T, suffix string, opts interceptors.Options) *serverRun {
	t.Helper()
	srv := testsuite.DevServerFor(t)
	kit := newKit(t, opts)
	r := &serverRun{
		t: t, c: srv.Client(), taskQueue: "tq-" + strings.ReplaceAll(t.Name(), "/", "-") + suffix,
		acts: &Activities{log: newAttemptLog()}, probe: &testsuite.Recorder{}, kit: kit,
	}
	w := worker.New(r.c, r.taskQueue, worker.Options{Interceptors: []interceptor.WorkerInterceptor{r.probe}, Plugins: []worker.Plugin{kit}})
	registerAll(w, r.acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return r
}

// registry is what both a worker and a replayer register.
type registry interface {
	RegisterWorkflow(any)
	RegisterWorkflowWithOptions(any, workflow.RegisterOptions)
}

func registerWorkflows(r registry) {
	r.RegisterWorkflow(ClassesWorkflow)
	r.RegisterWorkflow(FailWorkflow)
	r.RegisterWorkflow(BookWorkflow)
	r.RegisterWorkflow(FanOutWorkflow)
	r.RegisterWorkflow(StreamWorkflow)
	r.RegisterWorkflow(ChargeWorkflow)
	r.RegisterWorkflow(CauseWorkflow)
	r.RegisterWorkflow(UntaggedWorkflow)
	r.RegisterWorkflow(TaggedWorkflow)
	r.RegisterWorkflow(DeadlineWorkflow)
}

func registerAll(w worker.Worker, acts *Activities) {
	registerWorkflows(w)
	w.RegisterActivity(Report)
	w.RegisterActivity(acts)
	w.RegisterActivity(Stream)
}

// run executes a workflow to its end and returns its result and history.
func (r *serverRun) run(wf any, args ...any) (runResult, client.WorkflowRun, []*historypb.HistoryEvent) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := fmt.Sprintf("%s-%d", r.taskQueue, time.Now().UnixNano())
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: r.taskQueue}, wf, args...)
	require.NoError(r.t, err)
	var out runResult
	require.NoError(r.t, run.Get(ctx, &out))
	return out, run, r.history(ctx, run)
}

func (r *serverRun) history(ctx context.Context, run client.WorkflowRun) []*historypb.HistoryEvent {
	r.t.Helper()
	h, err := testsuite.WorkflowHistory(ctx, r.c, run.GetID(), run.GetRunID())
	require.NoError(r.t, err)
	return h.GetEvents()
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// assertReplays replays the run's history with the kit's plugin registered,
// as the workflow replayer would after a code change.
func assertReplays(t *testing.T, r *serverRun, run client.WorkflowRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := r.history(ctx, run)
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}})
	require.NoError(t, err)
	registerWorkflows(replayer)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, &historypb.History{Events: events}), "the history replays with the interceptors")
}
