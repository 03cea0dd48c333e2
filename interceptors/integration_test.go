package interceptors_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
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
	srv := testsuite.SharedDevServer(t)
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

func scheduledEvents(events []*historypb.HistoryEvent) []*historypb.ActivityTaskScheduledEventAttributes {
	var out []*historypb.ActivityTaskScheduledEventAttributes
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			out = append(out, a)
		}
	}
	return out
}

func startedAttempts(events []*historypb.HistoryEvent) []int32 {
	var out []int32
	for _, e := range events {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			out = append(out, a.GetAttempt())
		}
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestIntegrationClassOptionsInHistory(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	_, run, events := r.run(ClassesWorkflow)
	scheduled := scheduledEvents(events)
	require.Len(t, scheduled, 6)
	want := []struct {
		stc, hb  time.Duration
		attempts int32
		initial  time.Duration
		max      time.Duration
	}{
		{900 * time.Second, 60 * time.Second, 3, time.Second, 30 * time.Second},
		{60 * time.Second, 0, 1, 500 * time.Millisecond, 30 * time.Second},
		{30 * time.Second, 0, 3, 250 * time.Millisecond, 5 * time.Second},
		{15 * time.Second, 0, 3, 250 * time.Millisecond, 5 * time.Second},
	}
	for i, c := range vocab.Classes() {
		a := scheduled[i]
		assert.Equal(t, want[i].stc, a.GetStartToCloseTimeout().AsDuration(), c)
		assert.Equal(t, want[i].hb, a.GetHeartbeatTimeout().AsDuration(), c)
		rp := a.GetRetryPolicy()
		assert.Equal(t, want[i].attempts, rp.GetMaximumAttempts(), c)
		assert.Equal(t, want[i].initial, rp.GetInitialInterval().AsDuration(), c)
		assert.Equal(t, want[i].max, rp.GetMaximumInterval().AsDuration(), c)
		assert.Equal(t, 2.0, rp.GetBackoffCoefficient(), c)
		assert.Equal(t, never(), sorted(rp.GetNonRetryableErrorTypes()), c)
		h, ok, err := wire.DecodeCallHeader(a.GetHeader().GetFields())
		require.NoError(t, err)
		require.True(t, ok, "the class travels in the header")
		assert.Equal(t, c, h.Class)
		assert.Equal(t, policies.DefaultMaxRetryAfter, h.MaxRetryAfter, "the header carries what the activity cannot read from its info")
	}
	untagged := scheduled[4]
	assert.Equal(t, 7*time.Second, untagged.GetStartToCloseTimeout().AsDuration(), "untouched")
	assert.Zero(t, untagged.GetHeartbeatTimeout().AsDuration())
	assert.Equal(t, never(), sorted(untagged.GetRetryPolicy().GetNonRetryableErrorTypes()), "untouched, but for the never-retryable types")
	assert.Zero(t, untagged.GetRetryPolicy().GetMaximumAttempts(), "the server's default attempts")
	h, ok, err := wire.DecodeCallHeader(untagged.GetHeader().GetFields())
	require.NoError(t, err)
	assert.True(t, ok, "an untouched call is marked as seen by the kit")
	assert.Equal(t, wire.CallHeader{}, h, "with no class and no plan")

	callers := scheduled[5]
	assert.Equal(t, 120*time.Second, callers.GetStartToCloseTimeout().AsDuration(), "the caller's StartToClose stays")
	assert.Equal(t, 12*time.Second, callers.GetHeartbeatTimeout().AsDuration(), "the window is derived from it")
	assert.Equal(t, int32(5), callers.GetRetryPolicy().GetMaximumAttempts(), "the caller's retry policy stays")
	assert.Equal(t, sorted(append([]string{"MyError"}, never()...)), sorted(callers.GetRetryPolicy().GetNonRetryableErrorTypes()))

	assertReplays(t, r, run)
}

func TestIntegrationGuardrailOneAttempt(t *testing.T) {
	t.Parallel()
	model := mustPolicy(t, temporaladk.Model)
	model.Retry.MaxAttempts = 9
	r := startWorker(t, interceptors.Options{Policies: policiesOf(model)})
	got, run, events := r.run(FailWorkflow, "guardrail", temporaladk.Model, "guardrail", time.Duration(0))
	assert.Equal(t, []int32{1}, startedAttempts(events), "one attempt in history")
	assert.Equal(t, int32(9), scheduledEvents(events)[0].GetRetryPolicy().GetMaximumAttempts())
	assert.Len(t, r.acts.log.get("guardrail"), 1)
	assert.Equal(t, []string{temporaladk.TypeGuardrailViolation}, got.Types, "the workflow gets the typed error")
	assertReplays(t, r, run)
}

func TestIntegrationEffectfulTool(t *testing.T) {
	t.Parallel()
	tool := mustPolicy(t, temporaladk.Tool)
	tool.Retry.MaxAttempts = 3
	tool.Retry.InitialInterval = 100 * time.Millisecond
	r := startWorker(t, interceptors.Options{
		Policies: policiesOf(tool),
		Activities: map[string]temporaladk.Declaration{
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		},
	})
	_, run, events := r.run(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "nokey"}, "")
	assert.Equal(t, []int32{1}, startedAttempts(events), "an effectful tool failing transiently: one attempt")
	assert.Equal(t, int32(1), scheduledEvents(events)[0].GetRetryPolicy().GetMaximumAttempts())
	assert.Len(t, r.acts.log.get("book:nokey"), 1)
	assertReplays(t, r, run)

	_, run, events = r.run(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "key"}, "booking-42")
	assert.Equal(t, []int32{3}, startedAttempts(events), "with a key: the policy's attempts")
	seen := r.acts.log.get("book:key")
	require.Len(t, seen, 3)
	for _, s := range seen {
		assert.Equal(t, "booking-42", s.Key, "the same key at every attempt")
	}
	assertReplays(t, r, run)
}

// drawLog records the random numbers the kit draws, to know each wait.
type drawLog struct {
	mu    sync.Mutex
	draws []float64
	rand  func() float64
}

func (d *drawLog) next() float64 {
	u := d.rand()
	d.mu.Lock()
	d.draws = append(d.draws, u)
	d.mu.Unlock()
	return u
}

func TestIntegrationJitterDrawnPerAttempt(t *testing.T) {
	t.Parallel()
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = time.Second
	retrieval.Retry.MaxInterval = 2 * time.Second
	var gapsByRun [][]time.Duration
	for runNo := 0; runNo < 2; runNo++ {
		draws := &drawLog{rand: newRand()}
		r := startWorkerNamed(t, fmt.Sprintf("jitter-%d", runNo), interceptors.Options{Policies: policiesOf(retrieval), Random: draws.next})
		_, run, events := r.run(FailWorkflow, "provider", temporaladk.Retrieval, "provider", time.Duration(0))
		assert.Equal(t, []int32{3}, startedAttempts(events), "attempts per policy")
		starts := r.acts.startTimes("provider")
		require.Len(t, starts, 3)
		draws.mu.Lock()
		require.Len(t, draws.draws, 2, "one draw per retry, none on the last attempt")
		var gaps []time.Duration
		for i := 1; i < 3; i++ {
			window := retrieval.Retry.BackoffWindow(i)
			wait := time.Duration(draws.draws[i-1] * float64(window))
			gap := starts[i].Sub(starts[i-1])
			assert.GreaterOrEqual(t, gap, wait, "the server waited the drawn wait")
			assert.Less(t, gap, window+time.Second, "inside the jitter window (plus dispatch)")
			gaps = append(gaps, gap)
		}
		draws.mu.Unlock()
		gapsByRun = append(gapsByRun, gaps)
		assertReplays(t, r, run)
	}
	assert.NotEqual(t, gapsByRun[0], gapsByRun[1], "two runs draw their own waits")
}

func TestIntegrationRetryAfter(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	_, run, events := r.run(FailWorkflow, "retry-after-2s", temporaladk.Retrieval, "retry-after-2s", time.Duration(0))
	assert.Equal(t, []int32{3}, startedAttempts(events))
	starts := r.acts.startTimes("retry-after-2s")
	require.Len(t, starts, 3)
	for i := 1; i < 3; i++ {
		assert.GreaterOrEqual(t, starts[i].Sub(starts[i-1]), 2*time.Second, "a 2s Retry-After is honoured")
	}
	assertReplays(t, r, run)

	got, _, events := r.run(FailWorkflow, "retry-after-90s", temporaladk.Retrieval, "retry-after-90s", time.Duration(0))
	assert.Equal(t, []int32{1}, startedAttempts(events), "a Retry-After above MaxRetryAfter stops")
	require.Len(t, got.Decisions, 1)
	assert.True(t, got.Decisions[0].Final)
	assert.Contains(t, got.Decisions[0].Reason, "beyond MaxRetryAfter")
}

func TestIntegrationTruncatedWait(t *testing.T) {
	t.Parallel()
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = 30 * time.Second
	retrieval.Retry.MaxInterval = 60 * time.Second
	r := startWorker(t, interceptors.Options{Policies: policiesOf(retrieval), Random: func() float64 { return 0.9 }})
	got, run, events := r.run(FailWorkflow, "cut", temporaladk.Retrieval, "provider", 3*time.Second)
	var firstScheduled, last time.Time
	for _, e := range events {
		if e.GetActivityTaskScheduledEventAttributes() != nil && firstScheduled.IsZero() {
			firstScheduled = e.GetEventTime().AsTime()
		}
		if e.GetActivityTaskStartedEventAttributes() != nil {
			last = e.GetEventTime().AsTime()
		}
	}
	assert.False(t, last.After(firstScheduled.Add(3*time.Second)), "no attempt starts past the deadline")
	starts := r.acts.startTimes("cut")
	require.NotEmpty(t, starts)
	assert.LessOrEqual(t, len(starts), 2)
	require.Len(t, got.Decisions, 1, "the decision travels with the failure")
	d := got.Decisions[0]
	assert.True(t, d.Truncated, "a cut wait is reported")
	assert.Equal(t, 27*time.Second, d.Requested, "0.9 of the 30s window was drawn")
	assert.LessOrEqual(t, d.Wait, 3*time.Second)
	assert.Contains(t, d.Reason, "of the deadline")
	assert.True(t, d.Final, "a cut wait leaves no time for another attempt")
	assertReplays(t, r, run)
}

func TestIntegrationFanOutUnderAPool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		pool, run  int
		executions int
	}{
		{"without the pool", -1, -1, 30},
		{"pool of 5", 5, -1, 15},
		{"pool of 1", 1, -1, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			retrieval := mustPolicy(t, temporaladk.Retrieval)
			retrieval.Retry.InitialInterval = 10 * time.Millisecond
			r := startWorker(t, interceptors.Options{Policies: policiesOf(retrieval)})
			got, run, events := r.run(FanOutWorkflow, "fan", 10, tt.pool, tt.run)
			assert.Equal(t, tt.executions, r.acts.log.total("fan/"), "executions at the provider")
			assert.Len(t, got.Types, 10, "every branch settled")
			assert.Len(t, scheduledEvents(events), 10, "one ActivityTaskScheduled per call, budget or not: the retries are the server's")
			assertReplays(t, r, run)
		})
	}
}

func TestIntegrationRunBudget(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	got, run, events := r.run(FanOutWorkflow, "run", 1, -1, 2)
	assert.Equal(t, []string{"BudgetExceededError attempts=2"}, got.Types)
	assert.Len(t, scheduledEvents(events), 1, "one call, one scheduled event")
	assert.Len(t, r.acts.log.get("run/0"), 2, "no third execution")
	assert.Equal(t, []int32{2}, startedAttempts(events), "the server recorded attempt 2 as the last")
	assertReplays(t, r, run)
}

func TestIntegrationErrorRoundTrip(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	for _, kind := range []string{"guardrail", "transient", "provider"} {
		got, _, _ := r.run(FailWorkflow, "trip-"+kind, temporaladk.Tool, kind, time.Duration(0))
		assert.Equal(t, []string{failure(kind).(temporaladk.Error).Type()}, got.Types, kind)
		assert.Contains(t, got.Errors[0], failure(kind).Error(), "the message crosses the server")
	}
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

func TestIntegrationHeartbeatsCarryCountsNotText(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	const window = time.Second
	start := time.Now()
	// Two silent windows before the first chunk, then 10,000 chunks over
	// three windows.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.taskQueue, TaskQueue: r.taskQueue},
		StreamWorkflow, window, 2*window, 10000, 3*window)
	require.NoError(t, err)
	var report StreamReport
	require.NoError(t, run.Get(ctx, &report), "two silent windows do not time it out")
	elapsed := time.Since(start)
	assert.Equal(t, 10000, report.Chunks)

	assert.Empty(t, r.probe.OtherHeartbeatDetails(), "a heartbeat's details are exactly a temporaladk.Heartbeat")
	beats := r.probe.Heartbeats()
	windows := int(elapsed/window) + 1
	assert.LessOrEqual(t, len(beats), 3*windows+1, "at most three beats per window over %v", elapsed)
	assert.GreaterOrEqual(t, len(beats), 2*5, "the beats went on through the silence and the stream")
	var last temporaladk.Heartbeat
	for i, hb := range beats {
		if i == 0 {
			// Sent as the activity starts, it may precede the activity's
			// SetStep: it then names the activity.
			assert.Contains(t, []string{"Stream", "stream"}, hb.Step)
			continue
		}
		assert.Equal(t, "stream", hb.Step)
		assert.GreaterOrEqual(t, hb.Tokens, last.Tokens, "counts only grow")
		last = hb
	}
	assert.Positive(t, last.Tokens, "the beats carry the counts")
	assert.LessOrEqual(t, last.Chunks, int64(10000))
	events := r.history(ctx, run)
	assert.Equal(t, []int32{1}, startedAttempts(events), "no heartbeat timeout, no retry")
	assertReplays(t, r, run)
}

func TestIntegrationEffectfulTimeoutIsIndeterminate(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}})
	got, run, events := r.run(ChargeWorkflow, "charge")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types, "an indeterminate outcome, not a retry")
	assert.Equal(t, []int32{1}, startedAttempts(events))
	assert.Len(t, r.acts.log.get("charge"), 1, "the tool never runs a second time")
	assertReplays(t, r, run)
}
