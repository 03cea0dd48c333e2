package reliability_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestWorkerKilledMidModelStream kills the worker process of a streaming
// MODEL call with SIGKILL in the middle of the stream. The heartbeat timeout
// must notice within about one window, a second worker process must complete
// the retry, and the retry must read the counts of the last heartbeat.
func TestWorkerKilledMidModelStream(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	queue := taskQueue(t)
	first := startWorkerProcess(t, srv, queue, "")

	const window = 2 * time.Second
	req := StreamRequest{Window: window, Chunks: 80, TokensPerChunk: 5, ChunkEvery: 10 * time.Millisecond, StallAfter: 40}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, StreamWorkflow, req)
	require.NoError(t, err)

	stalled := first.next("stalled", time.Minute)
	require.Equal(t, int64(40), stalled.Chunks)
	// Kill once the server holds a heartbeat with the 40 chunks, so that the
	// counts the retry must read are known.
	last := waitForHeartbeat(t, srv.Client(), run, func(hb temporaladk.Heartbeat) bool { return hb.Chunks == 40 })
	killedAt := time.Now()
	first.kill()

	second := startWorkerProcess(t, srv, queue, "")
	retry := second.next("started", time.Minute)
	recovery := retry.Time.Sub(killedAt)

	var result StreamResult
	require.NoError(t, run.Get(ctx, &result), "the second worker completes the call")
	completed := time.Since(killedAt)
	assert.Equal(t, 2, retry.Attempt, "the second worker runs the retry")
	assert.True(t, retry.HasHeartbeat, "the retry has the last heartbeat's details")
	assert.Equal(t, last.Chunks, retry.Chunks, "the retry reads the chunk count of the last heartbeat")
	assert.Equal(t, last.Tokens, retry.Tokens, "the retry reads the token count of the last heartbeat")
	assert.Equal(t, StreamResult{Attempt: 2, ResumedChunks: 40, ResumedTokens: 200, Chunks: 80}, result)

	// The last heartbeat reached the server before the kill, so the timeout
	// fires at most one window after it; the rest is the retry's backoff
	// (100ms), dispatch and a process start. The bound is generous for a
	// loaded CI machine, and still far below the 60s default window.
	assert.Less(t, recovery, window+5*time.Second, "the heartbeat timeout notices within about one window")
	assert.Greater(t, recovery, time.Duration(0))

	events := history(t, srv.Client(), run)
	require.Len(t, testsuite.ScheduledActivities(events, "StreamModel"), 1, "the server drove the retry: one scheduled event")
	assert.Equal(t, []int32{2}, testsuite.StartedAttempts(events))
	for _, e := range events {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			timeout := a.GetLastFailure().GetTimeoutFailureInfo()
			require.NotNil(t, timeout, "the retry follows a timeout")
			assert.Equal(t, enumspb.TIMEOUT_TYPE_HEARTBEAT, timeout.GetTimeoutType(), "a heartbeat timeout, not StartToClose (2m)")
		}
	}
	assertReplays(t, srv.Client(), run)
	figure(t, "window=%v kill->retry started=%v kill->workflow completed=%v attempts=2 resumed chunks=%d tokens=%d",
		window, recovery.Round(time.Millisecond), completed.Round(time.Millisecond), retry.Chunks, retry.Tokens)
}

// waitForHeartbeat polls the workflow's pending activity until the server
// holds a kit heartbeat that satisfies ok, and returns it.
func waitForHeartbeat(t *testing.T, c client.Client, run client.WorkflowRun, ok func(temporaladk.Heartbeat) bool) temporaladk.Heartbeat {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		desc, err := c.DescribeWorkflowExecution(context.Background(), run.GetID(), run.GetRunID())
		require.NoError(t, err)
		for _, pa := range desc.GetPendingActivities() {
			if pa.GetHeartbeatDetails() == nil {
				continue
			}
			var hb temporaladk.Heartbeat
			if converter.GetDefaultDataConverter().FromPayloads(pa.GetHeartbeatDetails(), &hb) == nil && ok(hb) {
				return hb
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server never held the expected heartbeat")
	return temporaladk.Heartbeat{}
}

// TestWorkerKilledAfterEffect kills the worker process of an effectful tool
// (no idempotency key) after the tool wrote its effect to the ledger and
// synced it, and before it returned. A second worker process stands by: had
// the call been retried, it would have run the tool again. The ledger must
// show one effect and the workflow must end with an
// IndeterminateOutcomeError.
func TestWorkerKilledAfterEffect(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	queue := taskQueue(t)
	ledger := filepath.Join(t.TempDir(), "ledger")
	first := startWorkerProcess(t, srv, queue, ledger)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, ChargeWorkflow, ChargeRequest{Order: "order-1", Amount: 4200})
	require.NoError(t, err)
	first.next("effect", time.Minute)
	killedAt := time.Now()
	first.kill()
	second := startWorkerProcess(t, srv, queue, ledger)

	var outcome Outcome
	require.NoError(t, run.Get(ctx, &outcome))
	settled := time.Since(killedAt)
	assert.Equal(t, temporaladk.TypeIndeterminateOutcome, outcome.Type, "an indeterminate outcome, not a retry: %s", outcome.Message)
	assert.Contains(t, outcome.Message, "StartToClose")

	b, err := os.ReadFile(ledger)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Len(t, lines, 1, "the ledger shows one effect: %q", lines)
	assert.Zero(t, count(second.drain(), "started", "Charge"), "the second worker never ran the tool")

	events := history(t, srv.Client(), run)
	charges := testsuite.ScheduledActivities(events, "Charge")
	require.Len(t, charges, 1)
	assert.Equal(t, int32(1), charges[0].GetRetryPolicy().GetMaximumAttempts(), "one attempt, at the server too")
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events))
	assertReplays(t, srv.Client(), run)
	figure(t, "effects in ledger=%d attempts=1 duplicates=%d kill->workflow settled=%v (StartToClose 3s)",
		len(lines), len(lines)-1, settled.Round(time.Millisecond))
}
