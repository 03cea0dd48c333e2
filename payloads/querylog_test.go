package payloads_test

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// QueriedLog is what QueryLog's "conversation" Query returns: the Log, and
// how many messages it holds.
type QueriedLog struct {
	Conv *conversation.Log[Message]
	Len  int
}

// QueryLogInput is a QueryLog run: the size of its messages and the task
// queue of its activities.
type QueryLogInput struct {
	MessageBytes  int
	ActivityQueue string
}

// QueryLog appends a message and has ReadLog read it (the head recorded in
// history), appends a second that its "conversation" Query returns (handed
// over, recorded nowhere), waits for "go", then appends a third and reads
// the whole conversation.
func QueryLog(ctx workflow.Context, in QueryLogInput) (int, error) {
	messageBytes := in.MessageBytes
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           in.ActivityQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	conv := conversation.NewLog[Message]()
	if err := workflow.SetQueryHandler(ctx, "conversation", func() (QueriedLog, error) {
		return QueriedLog{Conv: conv, Len: conv.Len()}, nil
	}); err != nil {
		return 0, err
	}
	if err := conv.Append(ctx, logHoldMessage("query", 0, messageBytes)); err != nil {
		return 0, err
	}
	if err := workflow.ExecuteActivity(ctx, ReadLog, conv).Get(ctx, nil); err != nil {
		return 0, err
	}
	if err := conv.Append(ctx, logHoldMessage("query", 1, messageBytes)); err != nil {
		return 0, err
	}
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
	if err := conv.Append(ctx, logHoldMessage("query", 2, messageBytes)); err != nil {
		return 0, err
	}
	var n int
	err := workflow.ExecuteActivity(ctx, ReadLog, conv).Get(ctx, &n)
	return n, err
}

// A Log handed over only in a Query's result is recorded in no history, so
// Collect removes what the Query wrote once its grace has passed. The
// worker that answered the Query still holds the Log, with nothing left to
// write. Its next hand-over finds the segment gone (the store's clock past
// the presence window, as it is past any grace): the workflow task fails,
// naming the segment, and its retry replays the run, which appends the
// message again and writes it. The activity, on a worker of its own (its
// own store, on the same bucket), reads the whole conversation, and the
// history replays.
func TestALogHandedOverOnlyToAQueryIsWrittenAgainOnceCollected(t *testing.T) {
	t.Parallel()
	const messageBytes = 5000
	ctx := testsuite.Context(t)
	// The store's clock is the machine's, moved on by skew: the bucket's
	// objects carry the machine's times.
	var skew atomic.Int64
	dir := t.TempDir()
	bucket, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket, Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
	require.NoError(t, err)
	c := dial(t, store)
	q := queue("query-log")
	w := worker.New(c, q, kitWorkerOptions(t))
	w.RegisterWorkflow(QueryLog)
	require.NoError(t, w.Start())
	defer w.Stop()
	activityStore, _ := newDirStore(t, dir, 0)
	wa := worker.New(dial(t, activityStore), q+"-activities", kitWorkerOptions(t))
	wa.RegisterActivity(ReadLog)
	require.NoError(t, wa.Start())
	defer wa.Stop()

	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), QueryLog, QueryLogInput{MessageBytes: messageBytes, ActivityQueue: q + "-activities"})
	require.NoError(t, err)
	var queried QueriedLog
	for queried.Len < 2 { // until the second message is appended
		v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), "conversation")
		require.NoError(t, err)
		require.NoError(t, v.Get(&queried))
		if queried.Len < 2 {
			pollPause(ctx)
		}
	}
	head := queried.Conv.Head()
	var key string
	for _, k := range objectKeys(t, bucket) {
		if strings.HasSuffix(k, "/"+head) {
			key = k
		}
	}
	require.NotEmpty(t, key, "the Query handed the second segment over")

	// What Collect does once the grace has passed: the segment, recorded in
	// no history, is deleted; the store's clock is past the window in which
	// it trusts what it wrote.
	require.NoError(t, bucket.Delete(ctx, key))
	skew.Store(int64(2 * payloads.PresenceWindow))
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "go", nil))
	var n int
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &n))
	require.Equal(t, 3, n, "the activity read the whole conversation")
	require.Contains(t, objectKeys(t, bucket), key, "the retry wrote the segment again")

	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var failures []string
	for _, e := range h.GetEvents() {
		if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED {
			failures = append(failures, e.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
		}
	}
	t.Logf("the workflow task failures the server recorded: %q", failures)
	require.Len(t, failures, 1, "one task failed, and its retry went on")
	require.Contains(t, failures[0], "segment "+head)
	require.Contains(t, failures[0], "is no longer in the store")

	// The history, its failed task included, replays with the store.
	path := filepath.Join(t.TempDir(), "querylog.json")
	require.NoError(t, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
	replayer, _ := newDirStore(t, dir, 0)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: QueryLog}}}
	opts.ExternalStorage, opts.DataConverter, err = replayer.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayFile(path, opts))
}
