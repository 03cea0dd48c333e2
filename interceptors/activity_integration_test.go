package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	workflowservice "go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/grpc"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestIntegrationClassOptionsInHistory(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	_, run, events := r.run(ClassesWorkflow)
	scheduled := testsuite.ScheduledActivities(events, "")
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
	assert.Equal(t, wire.CallHeader{Seq: 4 + 1}, h, "with no class and no plan: the call's number alone (the fifth scheduled), which names it to observers")

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
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "one attempt in history")
	assert.Equal(t, int32(9), testsuite.ScheduledActivities(events, "")[0].GetRetryPolicy().GetMaximumAttempts())
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
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "an effectful tool failing transiently: one attempt")
	assert.Equal(t, int32(1), testsuite.ScheduledActivities(events, "")[0].GetRetryPolicy().GetMaximumAttempts())
	assert.Len(t, r.acts.log.get("book:nokey"), 1)
	assertReplays(t, r, run)

	_, run, events = r.run(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "key"}, "booking-42")
	assert.Equal(t, []int32{3}, testsuite.StartedAttempts(events), "with a key: the policy's attempts")
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
		assert.Equal(t, []int32{3}, testsuite.StartedAttempts(events), "attempts per policy")
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
	assert.Equal(t, []int32{3}, testsuite.StartedAttempts(events))
	starts := r.acts.startTimes("retry-after-2s")
	require.Len(t, starts, 3)
	for i := 1; i < 3; i++ {
		assert.GreaterOrEqual(t, starts[i].Sub(starts[i-1]), 2*time.Second, "a 2s Retry-After is honoured")
	}
	assertReplays(t, r, run)

	got, _, events := r.run(FailWorkflow, "retry-after-90s", temporaladk.Retrieval, "retry-after-90s", time.Duration(0))
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "a Retry-After above MaxRetryAfter stops")
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
			assert.Len(t, testsuite.ScheduledActivities(events, ""), 10, "one ActivityTaskScheduled per call, budget or not: the retries are the server's")
			assertReplays(t, r, run)
		})
	}
}

func TestIntegrationRunBudget(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	got, run, events := r.run(FanOutWorkflow, "run", 1, -1, 2)
	assert.Equal(t, []string{"TemporaladkBudgetExceeded attempts=2"}, got.Types)
	assert.Len(t, testsuite.ScheduledActivities(events, ""), 1, "one call, one scheduled event")
	assert.Len(t, r.acts.log.get("run/0"), 2, "no third execution")
	assert.Equal(t, []int32{2}, testsuite.StartedAttempts(events), "the server recorded attempt 2 as the last")
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
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "no heartbeat timeout, no retry")
	assertReplays(t, r, run)
}

func TestIntegrationEffectfulTimeoutIsIndeterminate(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}})
	got, run, events := r.run(ChargeWorkflow, "charge")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types, "an indeterminate outcome, not a retry")
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events))
	assert.Len(t, r.acts.log.get("charge"), 1, "the tool never runs a second time")
	assertReplays(t, r, run)
}

// These tests read what the server recorded, not what the kit believes it
// sent: heartbeat RPCs as they leave the worker's client, the history's
// events, what the server hands the next attempt.

// heartbeatRPCs counts the RecordActivityTaskHeartbeat calls a client makes,
// with the time each reached the server, and can drop one of them.
type heartbeatRPCs struct {
	mu    sync.Mutex
	sent  []time.Time
	calls int
	drop  int    // the call number to drop (1 for the first); 0 drops none
	how   string // "lost": it never reaches the server; "transient": it fails Unavailable
}

const heartbeatMethod = "/" + "temporal.api.workflowservice.v1.WorkflowService/RecordActivityTaskHeartbeat"

func (h *heartbeatRPCs) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if method != heartbeatMethod {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	h.mu.Lock()
	h.calls++
	dropped := h.calls == h.drop
	h.mu.Unlock()
	if dropped {
		if h.how == "transient" {
			// The frontend is away for a moment: the SDK's gRPC layer sends
			// the beat again.
			return serviceerror.NewUnavailable("dropped by the test")
		}
		// Lost on its way: the server never hears of it.
		return nil
	}
	if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
		return err
	}
	if _, ok := req.(*workflowservice.RecordActivityTaskHeartbeatRequest); ok {
		h.mu.Lock()
		h.sent = append(h.sent, time.Now())
		h.mu.Unlock()
	}
	return nil
}

func (h *heartbeatRPCs) times() []time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sent)
}

// quiet is a logger for the tests' own clients: warnings and errors only.
func quiet() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// Silent stays silent for d (a slow first token): only the kit's heartbeater
// speaks for it.
func Silent(ctx context.Context, d time.Duration) (int, error) {
	select {
	case <-time.After(d):
		return int(activity.GetInfo(ctx).Attempt), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// SilentWorkflow runs Silent as a MODEL call with the given heartbeat
// window, and one attempt: a heartbeat timeout would fail the workflow.
func SilentWorkflow(ctx workflow.Context, window, silent time.Duration) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: silent + 3*window, HeartbeatTimeout: window,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var attempt int
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), Silent, silent).Get(ctx, &attempt)
	return attempt, err
}

// TestIntegrationHeartbeatsReachTheServer counts the heartbeats that reach
// the server, for a 5s and a 60s window, with the kit's plugin on the worker
// and on the worker's client: three per window at least,
// no gap wider than half a window, and with one heartbeat RPC lost the
// activity is not timed out.
func TestIntegrationHeartbeatsReachTheServer(t *testing.T) {
	t.Parallel()
	tests := []heartbeatCase{
		{"5s window, plugin", 5 * time.Second, true, 0, ""},
		{"5s window, plugin on the client", 5 * time.Second, false, 0, ""},
		{"5s window, one heartbeat RPC lost", 5 * time.Second, false, 2, "lost"},
		{"5s window, one heartbeat RPC failing once", 5 * time.Second, true, 3, "transient"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			startHeartbeatCase(t, tt)(t)
		})
	}
	// A 60s window's call is silent for 80s, and its worker waits: the two
	// runs start at once, in one subtest, so that they hold one of
	// -parallel's slots for those 80s, not two.
	long := []heartbeatCase{
		{"60s window, plugin", 60 * time.Second, true, 0, ""},
		{"60s window, plugin on the client", 60 * time.Second, false, 0, ""},
	}
	t.Run("60s windows", func(t *testing.T) {
		t.Parallel()
		checks := make([]func(*testing.T), len(long))
		for i, tt := range long {
			checks[i] = startHeartbeatCase(t, tt)
		}
		for i, tt := range long {
			t.Run(tt.name, checks[i])
		}
	})
}

// heartbeatCase is a case of TestIntegrationHeartbeatsReachTheServer: the
// window, the kit's plugin on the worker or on its client, and which
// heartbeat RPC, if any, is dropped, and how.
type heartbeatCase struct {
	name     string
	window   time.Duration
	onWorker bool
	dropCall int
	drop     string
}

// startHeartbeatCase starts tt's worker and run, on a task queue named
// after tt, and returns the check that waits for the run and asserts
// on the heartbeats that reached the server.
func startHeartbeatCase(t *testing.T, tt heartbeatCase) (check func(*testing.T)) {
	t.Helper()
	srv := testsuite.DevServerFor(t)
	rpcs := &heartbeatRPCs{drop: tt.dropCall, how: tt.drop}
	c, err := client.Dial(client.Options{
		HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quiet(),
		ConnectionOptions: client.ConnectionOptions{DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(rpcs.intercept)}},
	})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	queue := "hb-reach-" + strings.NewReplacer(" ", "-", ",", "").Replace(tt.name)
	var opts worker.Options
	kit := newKit(t, interceptors.Options{})
	if tt.onWorker {
		opts.Plugins = []worker.Plugin{kit}
	} else {
		c, err = client.NewClientFromExisting(c, client.Options{Plugins: []client.Plugin{kit}})
		require.NoError(t, err)
	}
	w := worker.New(c, queue, opts)
	w.RegisterWorkflow(SilentWorkflow)
	w.RegisterActivity(Silent)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	// Long enough for four beats: the first at once, then one every
	// third of the window.
	silent := tt.window * 4 / 3
	ctx, cancel := context.WithTimeout(context.Background(), silent+2*time.Minute)
	t.Cleanup(cancel)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, SilentWorkflow, tt.window, silent)
	require.NoError(t, err)
	return func(t *testing.T) {
		var attempt int
		require.NoError(t, run.Get(ctx, &attempt), "no heartbeat timeout")
		assert.Equal(t, 1, attempt)
		events, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
		require.NoError(t, err)
		assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events.GetEvents()), "the server recorded one attempt")

		sent := rpcs.times()
		require.NotEmpty(t, sent)
		perWindow := float64(len(sent)) / (float64(silent) / float64(tt.window))
		widest := time.Duration(0)
		for i := 1; i < len(sent); i++ {
			widest = max(widest, sent[i].Sub(sent[i-1]))
		}
		t.Logf("FIGURE %s: %d heartbeat RPCs reached the server over %v (%.2f per %v window), widest gap %v",
			tt.name, len(sent), silent, perWindow, tt.window, widest.Round(time.Millisecond))
		if tt.drop != "lost" {
			assert.GreaterOrEqual(t, perWindow, 2.9, "three beats per window reach the server (one fewer at the edges)")
			assert.LessOrEqual(t, widest, tt.window/2, "no gap wider than half a window")
		} else {
			assert.Less(t, widest, tt.window, "a lost beat leaves the window covered: it is not read as a death")
		}
	}
}

// Resume is a budgeted MODEL call that fails its first two attempts and
// succeeds on the third, heartbeating a chunk count that the next attempt
// reads back from the server.
func (a *Activities) Resume(ctx context.Context, scenario string) (ResumeReport, error) {
	info := activity.GetInfo(ctx)
	a.log.add(scenario, seenBy(ctx))
	var report ResumeReport
	if activity.HasHeartbeatDetails(ctx) {
		var last temporaladk.Heartbeat
		if err := activity.GetHeartbeatDetails(ctx, &last); err != nil {
			return report, err
		}
		report.ResumedChunks = last.Chunks
	}
	hb := temporaladk.HeartbeaterFrom(ctx)
	for range 10 * int(info.Attempt) {
		hb.Chunk(1)
	}
	hb.Beat() // the attempt's last word, before it fails
	if info.Attempt < 3 {
		return report, &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503}
	}
	report.Attempt = int(info.Attempt)
	return report, nil
}

// ResumeReport is what the completing attempt of Resume saw.
type ResumeReport struct {
	Attempt       int
	ResumedChunks int64
}

// ResumeWorkflow calls Resume under a budget of attempts, with a heartbeat
// window.
func ResumeWorkflow(ctx workflow.Context, scenario string) (ResumeReport, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "resume", Attempts: 5})
	if err != nil {
		return ResumeReport{}, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, HeartbeatTimeout: 10 * time.Second})
	var r ResumeReport
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), (*Activities).Resume, scenario).Get(ctx, &r)
	return r, err
}

// TestIntegrationBudgetedCallKeepsTemporalRetries: a budgeted call that
// fails twice and then succeeds is one ActivityTaskScheduled in history,
// the activity sees attempts 1, 2, 3, the third reads the second's last
// heartbeat from the server, an interceptor outside the kit sees one call,
// and every retry was charged through an Update the history records.
func TestIntegrationBudgetedCallKeepsTemporalRetries(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t)
	// A recorder registered after the kit: its outbound wraps the kit's, so
	// it sees the calls as workflow code makes them, as a tracing or metrics
	// interceptor outside the kit would.
	outer := &testsuite.Recorder{}
	acts := &Activities{log: newAttemptLog()}
	queue := "tq-" + t.Name()
	kit := newKit(t, interceptors.Options{Policies: policiesOf(fastModel(t))})
	// A plugin after the kit's puts its interceptor outside the kit's.
	outside, err := temporal.NewSimplePlugin(temporal.SimplePluginOptions{Name: "outside", WorkerInterceptors: []interceptor.WorkerInterceptor{outer}})
	require.NoError(t, err)
	opts := worker.Options{Plugins: []worker.Plugin{kit}}
	opts.Plugins = append(opts.Plugins, outside)
	w := worker.New(srv.Client(), queue, opts)
	w.RegisterWorkflow(ResumeWorkflow)
	w.RegisterActivity(acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, ResumeWorkflow, "resume")
	require.NoError(t, err)
	var got ResumeReport
	require.NoError(t, run.Get(ctx, &got))
	h, err := testsuite.WorkflowHistory(ctx, srv.Client(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	events := h.GetEvents()

	assert.Len(t, testsuite.ScheduledActivities(events, ""), 1, "one ActivityTaskScheduled for the call")
	assert.Equal(t, []int32{3}, testsuite.StartedAttempts(events), "the server ran it to attempt 3")
	var seen []int
	for _, s := range acts.log.get("resume") {
		seen = append(seen, s.Attempt)
	}
	assert.Equal(t, []int{1, 2, 3}, seen, "native attempt numbers")
	assert.Equal(t, 3, got.Attempt)
	assert.EqualValues(t, 20, got.ResumedChunks, "attempt 3 read attempt 2's last heartbeat (20 chunks) from the server")
	assert.Len(t, outer.CallsOf("Resume"), 1, "an interceptor outside the kit sees one call")
	assert.Nil(t, outer.CallsOf("Resume")[0].Options.RetryPolicy, "outside the kit: the call as the workflow made it")
	charges := 0
	for _, e := range events {
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			assert.Equal(t, wire.ChargeUpdateName, a.GetAcceptedRequest().GetInput().GetName())
			charges++
		}
	}
	assert.Equal(t, 2, charges, "each retry charged through one Update recorded in history")
	assertReplaysWith(t, srv.Client(), run, func(r registry) { r.RegisterWorkflow(ResumeWorkflow) })
	t.Logf("FIGURE budgeted call: %d scheduled event(s), attempts seen %v, resumed %d chunks, %d charge update(s), calls seen outside the kit %d",
		len(testsuite.ScheduledActivities(events, "")), seen, got.ResumedChunks, charges, len(outer.Calls()))
}

// fastModel is the MODEL policy with short waits, so that retries come
// quickly.
func fastModel(t *testing.T) policies.ActivityPolicy {
	p := mustPolicy(t, temporaladk.Model)
	p.Retry.InitialInterval = 10 * time.Millisecond
	p.Retry.MaxInterval = 50 * time.Millisecond
	return p
}

// TestIntegrationRefusedRetryKeepsItsCause: a budget of 2 attempts refuses the third
// attempt; the BudgetExceededError says attempts "2", the activity's code
// ran twice, and errors.As on the refusal also finds the provider error
// that asked for the retry.
func TestIntegrationRefusedRetryKeepsItsCause(t *testing.T) {
	t.Parallel()
	r := startWorker(t, interceptors.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.taskQueue, TaskQueue: r.taskQueue}, CauseWorkflow, "cause")
	require.NoError(t, err)
	var got causeResult
	require.NoError(t, run.Get(ctx, &got))
	assert.Equal(t, "2", got.Attempts)
	assert.True(t, got.CauseFound, "errors.As finds the ProviderError behind the refusal: %s", got.Message)
	assert.Equal(t, 503, got.CauseStatus)
	assert.Len(t, r.acts.log.get("cause"), 2, "no third execution")
}

type causeResult struct {
	Attempts    string
	CauseFound  bool
	CauseStatus int
	Message     string
}

// CauseWorkflow calls Fail (a 503 every time) under a budget of 2 attempts
// and reports what the refusal carries.
func CauseWorkflow(ctx workflow.Context, scenario string) (causeResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "cause", Attempts: 2})
	if err != nil {
		return causeResult{}, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), (*Activities).Fail, scenario, "provider").Get(ctx, nil)
	err = temporaladk.FromApplicationError(err)
	var out causeResult
	var refused *temporaladk.BudgetExceededError
	if !errors.As(err, &refused) {
		return out, fmt.Errorf("want a BudgetExceededError, got %w", err)
	}
	out.Attempts, out.Message = refused.Details()["attempts"], err.Error()
	var provider *temporaladk.ProviderError
	if errors.As(err, &provider) {
		out.CauseFound, out.CauseStatus = true, provider.StatusCode
	}
	return out, nil
}

// assertReplaysWith replays a run's history with the kit's plugin and the
// workflows register adds.
func assertReplaysWith(t *testing.T, c client.Client, run client.WorkflowRun, register func(registry)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}})
	require.NoError(t, err)
	register(replayer)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h))
}

func TestIntegrationOnePlaceDecides(t *testing.T) {
	t.Parallel()
	for i, tt := range decisionCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startWorkerNamed(t, fmt.Sprintf("-%d", i), tt.opts)
			got, _, events := r.run(tt.workflow, append([]any{"decide"}, tt.args...)...)
			assert.Len(t, r.acts.log.get("decide"), tt.runs, "executions of the activity's code")
			assert.Equal(t, []int32{int32(tt.runs)}, testsuite.StartedAttempts(events), "the attempts the server recorded")
			assert.Equal(t, []string{tt.errType}, got.Types)
		})
	}
}

// PlainToolWorkflow calls the tool named by activityType as a workflow
// worker without the kit schedules it: with its own options and a retry
// policy of six attempts, and no kit call in its code.
func PlainToolWorkflow(ctx workflow.Context, activityType string, b Booking) (runResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 50 * time.Millisecond, BackoffCoefficient: 1, MaximumAttempts: 6}})
	var out runResult
	err := workflow.ExecuteActivity(ctx, activityType, b).Get(ctx, nil)
	out.addErr(temporaladk.FromApplicationError(err))
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		out.Types = append(out.Types, app.Type())
	}
	return out, nil
}

// ledgerBusy is a tool's own error type, outside the kit's hierarchy.
type ledgerBusy struct{ ledger string }

func (e *ledgerBusy) Error() string { return "ledger " + e.ledger + " busy" }

// refunds runs Refund, a tool that fails with an error of its own type.
type refunds struct{ log *attemptLog }

func (r *refunds) Refund(ctx context.Context, b Booking) error {
	r.log.add("refund:"+b.Note, seenBy(ctx))
	return &ledgerBusy{ledger: "eu-1"}
}

// TestIntegrationEffectfulToolScheduledWithoutTheKit holds an effectful
// tool declared on the kit's activity worker, and scheduled by a workflow
// worker without the kit (a retry policy of six attempts), to one attempt
// as the server records it: the first attempt's retryable failure is made
// final where it runs, so the server schedules no retry (which the kit
// would refuse before the tool ran, but history would show). The failure
// keeps its type, for a kit error and for the tool's own.
func TestIntegrationEffectfulToolScheduledWithoutTheKit(t *testing.T) {
	t.Parallel()
	c := testsuite.DevServerFor(t).Client()
	queue := "tq-" + t.Name()
	plain := worker.New(c, queue, worker.Options{LocalActivityWorkerOnly: true})
	plain.RegisterWorkflow(PlainToolWorkflow)
	acts, refund := &Activities{log: newAttemptLog()}, &refunds{log: newAttemptLog()}
	kit := worker.New(c, queue, worker.Options{DisableWorkflowWorker: true, Plugins: []worker.Plugin{newKit(t, interceptors.Options{
		Activities: map[string]temporaladk.Declaration{
			"Book":   {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
			"Refund": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		},
	})}})
	kit.RegisterActivity(acts)
	kit.RegisterActivity(refund)
	for _, w := range []worker.Worker{plain, kit} {
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
	}
	for _, tc := range []struct {
		activity, wantType string
		ran                func() int
	}{
		{"Book", temporaladk.TypeToolFailure, func() int { return len(acts.log.get("book:plain")) }},
		{"Refund", "ledgerBusy", func() int { return len(refund.log.get("refund:plain")) }},
	} {
		ctx := testsuite.Context(t)
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue + "-" + tc.activity, TaskQueue: queue}, PlainToolWorkflow, tc.activity, Booking{Note: "plain"})
		require.NoError(t, err)
		var out runResult
		require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &out))
		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
		require.NoError(t, err)
		events := h.GetEvents()
		scheduled := testsuite.ScheduledActivities(events, tc.activity)
		require.Len(t, scheduled, 1)
		assert.Equal(t, int32(6), scheduled[0].GetRetryPolicy().GetMaximumAttempts(), "%s: scheduled without the kit, with the caller's six attempts", tc.activity)
		assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "%s: the server recorded one attempt, no retry", tc.activity)
		assert.Equal(t, 1, tc.ran(), "%s: the tool ran once", tc.activity)
		var failed int
		for _, e := range events {
			if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
				failed++
				assert.True(t, a.GetFailure().GetApplicationFailureInfo().GetNonRetryable(), "%s: the failure is recorded final", tc.activity)
				assert.Equal(t, tc.wantType, a.GetFailure().GetApplicationFailureInfo().GetType(), "%s: with the tool's own type", tc.activity)
			}
		}
		assert.Equal(t, 1, failed, "%s: one failed attempt in history", tc.activity)
		require.NotEmpty(t, out.Types)
		assert.Equal(t, tc.wantType, out.Types[len(out.Types)-1], "%s: the workflow reads the tool's type", tc.activity)
	}
}
