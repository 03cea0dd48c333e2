package payloads_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// After a run closes and its retention passes (the server deletes it, as
// DeleteWorkflowExecution does here), Collect leaves the bucket holding
// exactly what the open runs reference, and the open runs still decode: the
// stored payloads, and the segments of the conversation logs whose heads
// history records inline or inside a stored payload (LogHold).
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
	// A cache too small to hold an object or a conversation: every read
	// after the collection is the bucket's.
	store, err := payloads.NewStore(payloads.Options{Bucket: b, CacheBytes: 1, Now: func() time.Time {
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
	w.RegisterWorkflow(LogHold)
	w.RegisterActivity(ReadLog)
	w.RegisterActivity(ReadNote)
	require.NoError(t, w.Start())
	defer w.Stop()

	closed, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-closed"), Agent, AgentInput{Turns: 5, ToolBytes: 30_000})
	require.NoError(t, err)
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, closed, nil))
	closedLog := LogHoldInput{Name: "closed", Turns: 3, MessageBytes: 5000, Note: strings.Repeat("the closed run's note. ", 400)}
	closedLogRun, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-closed-log"), LogHold, closedLog)
	require.NoError(t, err)
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, closedLogRun, nil))
	held := strings.Repeat("what the open run still needs. ", 3000)
	open, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-open"), Hold, held)
	require.NoError(t, err)
	// The open run's input is in its history once its first task has run.
	_, err = c.DescribeWorkflowExecution(ctx, open.GetID(), open.GetRunID())
	require.NoError(t, err)
	openLog := LogHoldInput{Name: "open", Turns: 3, MessageBytes: 5000, Note: strings.Repeat("the open run's note. ", 400), Hold: true}
	openLogRun, err := c.ExecuteWorkflow(ctx, startOptions(q, q+"-open-log"), LogHold, openLog)
	require.NoError(t, err)
	for { // until ReadNote, the last call before it holds, completed
		h := &historypb.History{}
		it := c.GetWorkflowHistory(ctx, openLogRun.GetID(), openLogRun.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			require.NoError(t, err)
			h.Events = append(h.Events, e)
		}
		if completed(t, h, "ReadNote") == 1 {
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for the open log run to hold")
	}

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

	// Retention passes for the closed runs.
	for _, run := range []client.WorkflowRun{closed, closedLogRun} {
		_, err = c.WorkflowService().DeleteWorkflowExecution(ctx, deleteRequest(ns, run.GetID(), run.GetRunID()))
		require.NoError(t, err)
		for {
			_, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				break
			}
			pollPause(ctx)
			require.NoError(t, ctx.Err(), "waiting for the closed run %s to be deleted: %v", run.GetID(), err)
		}
	}
	var refs payloads.Live
	for { // until visibility no longer lists them: the open runs' three stored payloads are left
		read := store.Stats().ObjectsRead
		refs, err = store.LiveRefs(ctx, c)
		require.NoError(t, err)
		require.Equal(t, read, store.Stats().ObjectsRead, "LiveRefs reads histories only, never the bucket")
		if len(refs.Refs) == 3 {
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for visibility to drop the closed runs: %d refs", len(refs.Refs))
	}
	require.Len(t, refs.Logs, openLog.Turns+1, "a head for each ReadLog and the one inside the stored note")
	now = time.Now().Add(2 * time.Hour)
	rep, err := store.Collect(ctx, refs, payloads.CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	after := bucketSize(t, b)
	t.Logf("collect: bucket %d bytes before, %d after; deleted %d objects (%d bytes), live %d objects (%d bytes)", before, after, rep.Deleted, rep.DeletedBytes, rep.Live, rep.LiveBytes)
	require.Equal(t, rep.LiveBytes, after)
	require.Less(t, after, before)

	// What the open runs reference is exactly what a bucket holding only
	// them would hold.
	alone, aloneBucket := newDirStore(t, t.TempDir(), 0)
	_, err = alone.Put(ctx, []byte(`"`+held+`"`))
	require.NoError(t, err)
	logHoldInputObject(t, alone, openLog)
	logHoldObjects(t, alone, openLog)
	require.Equal(t, bucketSize(t, aloneBucket), after)
	require.Equal(t, objectKeys(t, aloneBucket), objectKeys(t, b))

	// The open log run reads its whole conversation from the bucket.
	require.NoError(t, c.SignalWorkflow(ctx, openLogRun.GetID(), openLogRun.GetRunID(), "release", nil))
	var n int
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, openLogRun, &n))
	require.Equal(t, openLog.Turns+1, n)

	require.NoError(t, c.SignalWorkflow(ctx, open.GetID(), open.GetRunID(), "release", nil))
	var out string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, open, &out))
	require.Equal(t, held, out)
}

// objectKeys is every key the bucket holds, in its listing's order.
func objectKeys(t *testing.T, b payloads.Bucket) []string {
	t.Helper()
	var keys []string
	require.NoError(t, b.List(context.Background(), "", func(o payloads.Object) error {
		keys = append(keys, o.Key)
		return nil
	}))
	return keys
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
