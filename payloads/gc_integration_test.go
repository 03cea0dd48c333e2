package payloads_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// After a run closes and its retention passes (the server deletes it, as
// DeleteWorkflowExecution does here), Collect leaves the bucket holding
// exactly what the open runs reference, and the open runs still decode.
func TestCollectAfterRetentionKeepsWhatOpenRunsReference(t *testing.T) {
	t.Parallel()
	// Its own namespace: LiveRefs reads every run of it.
	ns := "gc-" + queue("ns")
	srv := testsuite.DevServerFor(t)
	ctx := testsuite.Context(t)
	_, err := srv.Client().WorkflowService().RegisterNamespace(ctx, registerNamespace(ns))
	require.NoError(t, err)

	dir := t.TempDir()
	b, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	var now time.Time // the store's clock: real time until the collection
	store, err := payloads.NewStore(payloads.Options{Bucket: b, Now: func() time.Time {
		if now.IsZero() {
			return time.Now()
		}
		return now
	}})
	require.NoError(t, err)
	opts, err := store.ClientOptions(client.Options{HostPort: srv.Address(), Namespace: ns, Logger: quietLogger(), ConnectionOptions: loopback})
	require.NoError(t, err)
	var c client.Client
	for { // a namespace just registered answers within a few tries
		c, err = client.Dial(opts)
		if err == nil {
			break
		}
		var nf *serviceerror.NamespaceNotFound
		require.True(t, errors.As(err, &nf), "%v", err)
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for namespace %s: %v", ns, err)
	}
	defer c.Close()
	q := queue("gc")
	w := worker.New(c, q, kitWorkerOptions(t))
	w.RegisterWorkflow(Agent)
	w.RegisterWorkflow(Hold)
	w.RegisterActivity(Search)
	w.RegisterActivity(Model)
	require.NoError(t, w.Start())
	defer w.Stop()

	closed, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-closed"), Agent, AgentInput{Turns: 5, ToolBytes: 30_000})
	require.NoError(t, err)
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, closed, nil))
	held := strings.Repeat("what the open run still needs. ", 3000)
	open, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-open"), Hold, held)
	require.NoError(t, err)
	// The open run's input is in its history once its first task has run.
	_, err = c.DescribeWorkflowExecution(ctx, open.GetID(), open.GetRunID())
	require.NoError(t, err)

	before := bucketSize(t, b)
	for { // visibility lists both runs
		refs, err := store.LiveRefs(ctx, c)
		require.NoError(t, err)
		rep, err := store.Collect(ctx, refs, payloads.CollectOptions{Grace: time.Hour, DryRun: true})
		require.NoError(t, err)
		if rep.LiveBytes == before {
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for the refs of both runs to reach the bucket's %d bytes; they reach %d", before, rep.LiveBytes)
	}

	// Retention passes for the closed run.
	_, err = c.WorkflowService().DeleteWorkflowExecution(ctx, deleteRequest(ns, closed.GetID(), closed.GetRunID()))
	require.NoError(t, err)
	for {
		_, err := c.DescribeWorkflowExecution(ctx, closed.GetID(), closed.GetRunID())
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for the closed run to be deleted: %v", err)
	}
	var refs []payloads.Ref
	for { // until visibility no longer lists it
		refs, err = store.LiveRefs(ctx, c)
		require.NoError(t, err)
		if len(refs) == 1 {
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for visibility to drop the closed run: %d refs", len(refs))
	}
	now = time.Now().Add(2 * time.Hour)
	rep, err := store.Collect(ctx, refs, payloads.CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	after := bucketSize(t, b)
	t.Logf("collect: bucket %d bytes before, %d after; deleted %d objects (%d bytes), live %d objects (%d bytes)", before, after, rep.Deleted, rep.DeletedBytes, rep.Live, rep.LiveBytes)
	require.Equal(t, rep.LiveBytes, after)
	require.Less(t, after, before)

	// What the open run references is exactly what a bucket holding only it
	// would hold.
	alone, aloneBucket := newDirStore(t, t.TempDir(), 0)
	_, err = alone.Put(ctx, []byte(`"`+held+`"`))
	require.NoError(t, err)
	require.Equal(t, bucketSize(t, aloneBucket), after)

	require.NoError(t, c.SignalWorkflow(ctx, open.GetID(), open.GetRunID(), "release", nil))
	var out string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, open, &out))
	require.Equal(t, held, out)
}

// pollPause spaces the reads of a wait on the server's state (a namespace
// registered, a run deleted, visibility updated), which has no event to wait
// on: each wait still ends when the state is read, and the test no longer
// spins the worker's and the server's CPU while the server gets there.
func pollPause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond):
	}
}
