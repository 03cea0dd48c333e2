package payloads_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// firstTaskFailure follows the run's history (a long poll, no sleeps) until a
// workflow task fails, and returns the failure's message.
func firstTaskFailure(ctx context.Context, t testing.TB, c client.Client, id string) string {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err, "waiting for a failed workflow task of %s", id)
		if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
			return a.GetFailure().GetMessage()
		}
	}
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	t.Fatalf("workflow %s closed (%v) without a failed workflow task", id, desc.GetWorkflowExecutionInfo().GetStatus())
	return ""
}

func startEchoWorker(t testing.TB, c client.Client, q string) worker.Worker {
	t.Helper()
	w := worker.New(c, q, worker.Options{})
	w.RegisterWorkflow(Echo)
	require.NoError(t, w.Start())
	return w
}

// otherDriver is a storage driver of another name, as a fleet that runs
// another store has.
type otherDriver struct{}

func (otherDriver) Name() string { return "other" }
func (otherDriver) Type() string { return "other" }
func (otherDriver) Store(converter.StorageDriverStoreContext, []*commonpb.Payload) ([]converter.StorageDriverClaim, error) {
	panic("not used")
}
func (otherDriver) Retrieve(converter.StorageDriverRetrieveContext, []converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	panic("not used")
}

// A worker without the store fails its workflow task, naming what is
// missing, and decodes nothing; the server retries the task, and a worker
// with the store then runs it to the right result.
func TestWorkerWithoutTheStoreFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	store, _ := newDirStore(t, t.TempDir(), 0)
	withStore := dial(t, store)
	srv := testsuite.DevServerFor(t)
	input := strings.Repeat("a long tool output. ", 2000)
	for name, tc := range map[string]struct {
		opts client.Options
		want string
	}{
		"no driver":      {client.Options{}, "[TMPRL1105]"},
		"another driver": {client.Options{ExternalStorage: converter.ExternalStorage{Drivers: []converter.StorageDriver{otherDriver{}}}}, `no storage driver registered with name "temporaladk-payloads"`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := queue("failclosed")
			opts := tc.opts
			opts.HostPort, opts.Namespace, opts.Logger, opts.ConnectionOptions = srv.Address(), srv.Namespace(), quietLogger(), loopback
			without, err := client.Dial(opts)
			require.NoError(t, err)
			defer without.Close()
			run, err := withStore.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q}, Echo, input)
			require.NoError(t, err)
			bad := startEchoWorker(t, without, q)
			msg := firstTaskFailure(ctx, t, withStore, run.GetID())
			bad.Stop()
			t.Logf("%s: %s", name, msg)
			require.Contains(t, msg, tc.want)

			good := startEchoWorker(t, withStore, q)
			defer good.Stop()
			var out string
			require.NoError(t, testsuite.WorkflowResult(ctx, t, withStore, run, &out))
			require.Equal(t, input, out)

			// A client without the store cannot read the stored result either.
			err = testsuite.WorkflowResult(ctx, t, withStore, without.GetWorkflow(ctx, run.GetID(), run.GetRunID()), &out)
			t.Logf("%s, client: %v", name, err)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A store that lost a chunk fails the workflow task with an error naming the
// store and the object, and decodes nothing; once the chunk is back, the run
// completes with what was stored.
func TestLostChunkFailsTheTaskUntilItIsBack(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dir := t.TempDir()
	writer, bucket := newDirStore(t, dir, 0)
	c := dial(t, writer)
	q := queue("lost")
	input := strings.Repeat("the chunk that goes missing. ", 2000)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q}, Echo, input)
	require.NoError(t, err)

	var key string
	require.NoError(t, bucket.List(ctx, "chunks/", func(o payloads.Object) error {
		key = o.Key
		return nil
	}))
	require.NotEmpty(t, key)
	saved, err := bucket.Get(ctx, key)
	require.NoError(t, err)
	require.NoError(t, bucket.Delete(ctx, key))

	// A worker whose cache is cold, as a worker of the fleet that did not
	// write the payload.
	reader, _ := newDirStore(t, dir, 0)
	w := startEchoWorker(t, dial(t, reader), q)
	defer w.Stop()
	msg := firstTaskFailure(ctx, t, c, run.GetID())
	t.Logf("lost chunk: %s", msg)
	require.Contains(t, msg, `store "temporaladk-payloads" has no object `+key)

	require.NoError(t, bucket.Put(ctx, key, saved))
	var out string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &out))
	require.Equal(t, input, out)
}
