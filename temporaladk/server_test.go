package temporaladk_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one real Temporal dev server with the tests that need it;
// the others start none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// Every kit error crosses a real Temporal server: encoded by the activity
// worker's data converter, stored in history, decoded on the workflow side,
// where errors.As finds the typed error with its fields and cause.
func TestApplicationErrorRoundTripThroughServer(t *testing.T) {
	t.Parallel()
	c := testsuite.DevServerFor(t).Client()
	const taskQueue = "temporaladk-roundtrip"
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(roundTripWorkflow)
	w.RegisterActivity(failWithKitError)
	require.NoError(t, w.Start())
	defer w.Stop()
	for i, kit := range kitErrors() {
		t.Run(kit.Type(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("roundtrip-%s-%d", kit.Type(), time.Now().UnixNano()), TaskQueue: taskQueue}, roundTripWorkflow, i)
			require.NoError(t, err)
			var seen seenByWorkflow
			require.NoError(t, run.Get(ctx, &seen))
			assertSeen(t, kit, seen)
		})
	}
}
