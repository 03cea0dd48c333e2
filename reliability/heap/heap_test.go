// Package heap holds one test alone in its process: a worker's heap across
// thousands of calls, which other tests running beside it would move.
package heap

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"golang.org/x/sync/errgroup"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) { os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{})) }

// TestWorkerHeapFlatAcrossCallsOfWorkflowsWithARunTimeout serves 4,000 no-op
// MEMORY calls of workflows with a one-hour run timeout on a kit worker, and
// shows the worker's heap after a collection does not grow with the calls
// served: the kit keeps nothing per call (its kept headers are one per plan
// and bounded).
func TestWorkerHeapFlatAcrossCallsOfWorkflowsWithARunTimeout(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	const taskQueue = "heap"
	w := worker.New(c, taskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(benchkit.NoOpsWorkflow)
	w.RegisterActivity(benchkit.NoOp)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const perWorkflow, concurrent = 100, 8
	seq := 0
	serve := func(workflows int) {
		t.Helper()
		var g errgroup.Group
		g.SetLimit(concurrent)
		for range workflows {
			seq++
			id := fmt.Sprintf("heap-%d", seq)
			g.Go(func() error {
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue, WorkflowRunTimeout: time.Hour}, benchkit.NoOpsWorkflow, perWorkflow, false, true)
				if err != nil {
					return err
				}
				return run.Get(ctx, nil)
			})
		}
		require.NoError(t, g.Wait())
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}

	serve(8) // warm-up: connections, caches, pools
	before := heap()
	const measured = 40
	serve(measured)
	after := heap()
	calls := measured * perWorkflow
	perCall := (float64(after) - float64(before)) / float64(calls)
	t.Logf("FIGURE heap after GC: %d bytes before, %d after %d calls: %.1f bytes per call", before, after, calls, perCall)
	require.Less(t, perCall, 100.0, "the worker's heap grows with the calls it served")
}
