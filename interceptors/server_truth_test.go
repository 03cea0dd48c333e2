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
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/grpc"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

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
	tests := []struct {
		name     string
		window   time.Duration
		onWorker bool
		dropCall int
		drop     string
	}{
		{"5s window, plugin", 5 * time.Second, true, 0, ""},
		{"5s window, plugin on the client", 5 * time.Second, false, 0, ""},
		{"60s window, plugin", 60 * time.Second, true, 0, ""},
		{"60s window, plugin on the client", 60 * time.Second, false, 0, ""},
		{"5s window, one heartbeat RPC lost", 5 * time.Second, false, 2, "lost"},
		{"5s window, one heartbeat RPC failing once", 5 * time.Second, true, 3, "transient"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := testsuite.SharedDevServer(t)
			rpcs := &heartbeatRPCs{drop: tt.dropCall, how: tt.drop}
			c, err := client.Dial(client.Options{
				HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quiet(),
				ConnectionOptions: client.ConnectionOptions{DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(rpcs.intercept)}},
			})
			require.NoError(t, err)
			t.Cleanup(c.Close)
			queue := "hb-" + strings.NewReplacer(" ", "-", ",", "").Replace(t.Name())
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
			defer cancel()
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, SilentWorkflow, tt.window, silent)
			require.NoError(t, err)
			var attempt int
			require.NoError(t, run.Get(ctx, &attempt), "no heartbeat timeout")
			assert.Equal(t, 1, attempt)
			events, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
			require.NoError(t, err)
			assert.Equal(t, []int32{1}, startedAttempts(events.GetEvents()), "the server recorded one attempt")

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
		})
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
	srv := testsuite.SharedDevServer(t)
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

	assert.Len(t, scheduledEvents(events), 1, "one ActivityTaskScheduled for the call")
	assert.Equal(t, []int32{3}, startedAttempts(events), "the server ran it to attempt 3")
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
		len(scheduledEvents(events)), seen, got.ResumedChunks, charges, len(outer.Calls()))
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
