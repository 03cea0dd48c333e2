package testsuite_test

import (
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// countingInterceptor counts the workflows it intercepts.
type countingInterceptor struct {
	interceptor.WorkerInterceptorBase
	workflows atomic.Int32
}

func (c *countingInterceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	c.workflows.Add(1)
	return c.WorkerInterceptorBase.InterceptWorkflow(ctx, next)
}

var committedOrder = filepath.Join("testdata", "histories", "order_workflow.json")

// TestReplayOptionsWorkerTakesTheWorkersInterceptorsAndPlugins: the
// interceptors and plugins of ReplayOptions.Worker run in the replay, as
// they ran on the worker, beside those of ReplayOptions' own fields.
func TestReplayOptionsWorkerTakesTheWorkersInterceptorsAndPlugins(t *testing.T) {
	t.Parallel()
	onWorker, inPlugin, own := &countingInterceptor{}, &countingInterceptor{}, &countingInterceptor{}
	wopts := worker.Options{
		Interceptors: []interceptor.WorkerInterceptor{onWorker},
		Plugins:      []worker.Plugin{testPlugin(t, inPlugin)},
	}
	opts := replayAs(orderWorkflow)
	opts.Worker = wopts
	opts.Interceptors = []interceptor.WorkerInterceptor{own}
	require.NoError(t, testsuite.ReplayFile(committedOrder, opts))
	assert.EqualValues(t, 1, onWorker.workflows.Load(), "Worker.Interceptors")
	assert.EqualValues(t, 1, inPlugin.workflows.Load(), "Worker.Plugins")
	assert.EqualValues(t, 1, own.workflows.Load(), "Interceptors")
	assert.Len(t, wopts.Interceptors, 1, "the caller's worker.Options are not changed")
	assert.Len(t, wopts.Plugins, 1)
}

// testPlugin is a plugin that registers wi, as the kit's does its
// interceptor.
func testPlugin(t *testing.T, wi interceptor.WorkerInterceptor) worker.Plugin {
	t.Helper()
	p, err := temporal.NewSimplePlugin(temporal.SimplePluginOptions{Name: "testsuite-test", WorkerInterceptors: []interceptor.WorkerInterceptor{wi}})
	require.NoError(t, err)
	return p
}

// TestReplayOptionsWorkerWithTheKitTwice: the kit registered on the
// worker (worker.Options.Plugins) and again in ReplayOptions.Plugins applies
// once and the replay is clean; two different kits are refused, naming
// the mistake.
func TestReplayOptionsWorkerWithTheKitTwice(t *testing.T) {
	t.Parallel()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	wopts := worker.Options{Plugins: []worker.Plugin{kit}}

	opts := replayAs(orderWorkflow)
	opts.Worker = wopts
	require.NoError(t, testsuite.ReplayFile(committedOrder, opts), "the kit once, from the worker's options")

	opts.Plugins = wopts.Plugins
	require.NoError(t, testsuite.ReplayFile(committedOrder, opts), "the same kit by two paths applies once")

	other, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	opts = replayAs(orderWorkflow)
	opts.Worker = wopts
	opts.Plugins = []worker.Plugin{other}
	err = testsuite.ReplayFile(committedOrder, opts)
	require.ErrorIs(t, err, interceptors.ErrRegisteredTwice)
	assert.Contains(t, err.Error(), "two different kits are registered")
}
