package payloads_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/internal/logref"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// FleetLogInput is a run of FleetLog.
type FleetLogInput struct {
	// Name makes the run's messages its own.
	Name string
	// Turns is the messages appended, each followed by a CheckLog call.
	Turns, MessageBytes int
	// ActivityQueue is CheckLog's task queue ("": the workflow's).
	ActivityQueue string
}

// FleetLog appends a message a turn and has CheckLog read the whole log,
// retried every 100 ms until some worker reads it.
func FleetLog(ctx workflow.Context, in FleetLogInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           in.ActivityQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 1},
	})
	conv := conversation.NewLog[Message]()
	for i := range in.Turns {
		if err := conv.Append(ctx, logHoldMessage(in.Name, i, in.MessageBytes)); err != nil {
			return 0, err
		}
		var n int
		if err := workflow.ExecuteActivity(ctx, CheckLog, conv, in.Name).Get(ctx, &n); err != nil {
			return 0, err
		}
		if n != conv.Len() {
			return 0, fmt.Errorf("CheckLog read %d messages of %d", n, conv.Len())
		}
	}
	return conv.Len(), nil
}

// CheckLog reads the whole conversation and checks every message is the one
// the run appended.
func CheckLog(ctx context.Context, conv *conversation.Log[Message], name string) (int, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return 0, err
	}
	for i, m := range msgs {
		if m != logHoldMessage(name, i, len(m.Content)) {
			return 0, fmt.Errorf("message %d is not the one appended", i)
		}
	}
	return len(msgs), nil
}

func startFleetWorker(t *testing.T, c client.Client, q string, workflows, activities bool) worker.Worker {
	t.Helper()
	w := worker.New(c, q, kitWorkerOptions(t))
	if workflows {
		w.RegisterWorkflow(FleetLog)
	}
	if activities {
		w.RegisterActivity(CheckLog)
	}
	require.NoError(t, w.Start())
	return w
}

// An activity worker without the store that gets a Log held by the store
// fails the attempt with an error naming the store. The error is an
// ordinary one, retried by the call's retry policy, as a workflow task
// without the store is: each attempt's failure names the store where the
// run's pending activity shows it, and once a worker with the store takes
// an attempt, the run goes on with nothing lost.
func TestActivityWorkerWithoutTheStoreNamesIt(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	store, _ := newDirStore(t, t.TempDir(), 0)
	withStore, without := dial(t, store), dial(t, nil)
	q := queue("log-no-store-activity")
	qa := q + "-activities"
	wf := startFleetWorker(t, withStore, q, true, false)
	defer wf.Stop()
	bad := startFleetWorker(t, without, qa, false, true)
	run, err := withStore.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q}, FleetLog, FleetLogInput{Name: "a", Turns: 2, MessageBytes: 5000, ActivityQueue: qa})
	require.NoError(t, err)
	var msg string
	for { // until an attempt failed
		desc, err := withStore.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
		require.NoError(t, err)
		if pa := desc.GetPendingActivities(); len(pa) == 1 && pa[0].GetLastFailure() != nil {
			msg = pa[0].GetLastFailure().GetMessage()
			require.False(t, pa[0].GetLastFailure().GetApplicationFailureInfo().GetNonRetryable(), "retried, for a worker with the store")
			break
		}
		pollPause(ctx)
		require.NoError(t, ctx.Err(), "waiting for CheckLog's first failure")
	}
	bad.Stop()
	t.Logf("activity without the store: %s", msg)
	require.Contains(t, msg, `payload store "temporaladk-payloads"`)
	require.Contains(t, msg, "payloads.Store.ClientOptions")

	good := startFleetWorker(t, withStore, qa, false, true)
	defer good.Stop()
	var n int
	require.NoError(t, testsuite.WorkflowResult(ctx, t, withStore, run, &n))
	require.Equal(t, 2, n)
}

// A workflow worker without the store encodes its Log inline, every
// message in the activity's input as history records it and no segment in
// the bucket; an activity worker with the store reads it whole.
func TestWorkflowWorkerWithoutTheStoreSendsTheLogInline(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	store, bucket := newDirStore(t, t.TempDir(), 0)
	withStore, without := dial(t, store), dial(t, nil)
	q := queue("log-no-store-workflow")
	qa := q + "-activities"
	wf := startFleetWorker(t, without, q, true, false)
	defer wf.Stop()
	acts := startFleetWorker(t, withStore, qa, false, true)
	defer acts.Stop()
	in := FleetLogInput{Name: "b", Turns: 3, MessageBytes: 5000, ActivityQueue: qa}
	run, err := withStore.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q}, FleetLog, in)
	require.NoError(t, err)
	var n int
	require.NoError(t, testsuite.WorkflowResult(ctx, t, withStore, run, &n))
	require.Equal(t, in.Turns, n)

	h, err := testsuite.WorkflowHistory(ctx, withStore, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	calls := testsuite.ScheduledActivities(h.GetEvents(), "CheckLog")
	require.Len(t, calls, in.Turns)
	last := calls[len(calls)-1].GetInput().GetPayloads()[0]
	require.Contains(t, string(last.GetData()), `"pending":[`)
	require.Greater(t, len(last.GetData()), in.Turns*in.MessageBytes, "every message inline")
	require.NotContains(t, last.GetMetadata(), "temporaladk-logs", "no head recorded: nothing in the store")
	var segments int
	require.NoError(t, bucket.List(ctx, logref.SegmentPrefix, func(payloads.Object) error { segments++; return nil }))
	require.Zero(t, segments)
}

// failingBucket fails every write of a segment, and every check for one,
// while down.
type failingBucket struct {
	payloads.Bucket
	down atomic.Bool
}

var errBucketDown = errors.New("the bucket is down")

func (b *failingBucket) Put(ctx context.Context, key string, data []byte) error {
	if b.down.Load() && strings.HasPrefix(key, logref.SegmentPrefix) {
		return errBucketDown
	}
	return b.Bucket.Put(ctx, key, data)
}

func (b *failingBucket) Stat(ctx context.Context, key string) (payloads.Object, error) {
	if b.down.Load() && strings.HasPrefix(key, logref.SegmentPrefix) {
		return payloads.Object{}, errBucketDown
	}
	return b.Bucket.Stat(ctx, key)
}

// A workflow task whose Log cannot be handed over (the bucket fails) fails,
// as the SDK fails a task whose command cannot be encoded, naming the
// store; the server retries it, and once the bucket is back the run goes on
// with every message.
func TestHandOverThatCannotWriteFailsTheTaskUntilTheBucketIsBack(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dir, err := payloads.NewDirBucket(t.TempDir())
	require.NoError(t, err)
	bucket := &failingBucket{Bucket: dir}
	bucket.down.Store(true)
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	require.NoError(t, err)
	c := dial(t, store)
	q := queue("log-bucket-down")
	w := startFleetWorker(t, c, q, true, true)
	defer w.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q}, FleetLog, FleetLogInput{Name: "d", Turns: 2, MessageBytes: 5000})
	require.NoError(t, err)
	msg := firstTaskFailure(ctx, t, c, run.GetID())
	t.Logf("hand-over while the bucket is down: %s", msg)
	require.Contains(t, msg, `handing the Log over to store "temporaladk-payloads"`)
	require.Contains(t, msg, errBucketDown.Error())

	bucket.down.Store(false)
	var n int
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &n))
	require.Equal(t, 2, n)
}
