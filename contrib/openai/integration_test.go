package openai_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// ChatWorkflow calls the model once. A heartbeat window, when given, is set
// on the call (with a StartToClose the stream fits in); else the kit's MODEL
// policy applies as declared.
func ChatWorkflow(ctx workflow.Context, req openai.Request, window time.Duration) (openai.Result, error) {
	if window > 0 {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: window})
	}
	var res openai.Result
	err := workflow.ExecuteActivity(ctx, openai.ActivityName, req).Get(ctx, &res)
	return res, err
}

// serverRun is a worker with the kit (and a testsuite.Recorder that sees
// every heartbeat the SDK is given) serving a Model against a stand-in.
type serverRun struct {
	c     client.Client
	queue string
	probe *testsuite.Recorder
}

func startWorker(t *testing.T, baseURL string) *serverRun {
	t.Helper()
	c := testsuite.SharedDevServer(t).Client()
	model := newModel(t, baseURL, 0)
	policy, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	policy.Retry.InitialInterval = 10 * time.Millisecond
	policy.Retry.MaxInterval = 50 * time.Millisecond
	opts := interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: policy}}
	require.NoError(t, openai.Declare(&opts))
	kit, err := interceptors.New(opts)
	require.NoError(t, err)
	r := &serverRun{c: c, queue: strings.ReplaceAll(t.Name(), "/", "-"), probe: &testsuite.Recorder{}}
	w := worker.New(c, r.queue, worker.Options{Interceptors: []interceptor.WorkerInterceptor{r.probe, kit}})
	w.RegisterWorkflow(ChatWorkflow)
	model.Register(w)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return r
}

func (r *serverRun) run(t *testing.T, window time.Duration) (openai.Result, []*historypb.HistoryEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.queue, TaskQueue: r.queue}, ChatWorkflow, hello, window)
	require.NoError(t, err)
	var res openai.Result
	runErr := run.Get(ctx, &res)
	hist, err := testsuite.WorkflowHistory(ctx, r.c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	return res, hist.GetEvents(), runErr
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

func TestIntegrationTenThousandChunksBeatCountsOnly(t *testing.T) {
	t.Parallel()
	const (
		chunks = 10000
		window = time.Second
		word   = "secretword"
	)
	// The stand-in paces the stream over about three windows.
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		streamOf(w, chunks, word, "stop", func(i int) {
			if i%100 == 99 {
				w.(http.Flusher).Flush()
				time.Sleep(30 * time.Millisecond)
			}
		})
	})
	r := startWorker(t, p.URL())
	start := time.Now()
	res, events, err := r.run(t, window)
	require.NoError(t, err)
	elapsed := time.Since(start)

	assert.Equal(t, strings.Repeat(word, chunks), res.Text, "the result is the whole text")
	assert.Equal(t, int64(chunks+3), res.Chunks, "role, contents, finish, usage")
	assert.Empty(t, r.probe.OtherHeartbeatDetails(), "every heartbeat's details are exactly a temporaladk.Heartbeat: counts, no text")
	beats := r.probe.Heartbeats()
	windows := int(elapsed/window) + 1
	t.Logf("%d heartbeats over %v of streaming %d chunks: one at the start, then %.2f per %v window",
		len(beats), elapsed.Round(time.Millisecond), chunks, float64(len(beats)-1)/(float64(elapsed)/float64(window)), window)
	assert.LessOrEqual(t, len(beats), 3*windows+1, "at most three beats per window over %v", elapsed)
	assert.GreaterOrEqual(t, len(beats), 2, "the beats went on through the stream")
	var last temporaladk.Heartbeat
	for _, hb := range beats {
		assert.Equal(t, openai.ActivityName, hb.Step)
		assert.GreaterOrEqual(t, hb.Chunks, last.Chunks, "counts only grow")
		last = hb
	}
	assert.Positive(t, last.Tokens, "the beats carry the counts")
	assert.LessOrEqual(t, last.Tokens, int64(chunks))
	assert.Equal(t, []int32{1}, startedAttempts(events), "no heartbeat timeout, no retry")
	assert.Equal(t, int64(1), p.requests.Load())
	for _, e := range events {
		if e.GetActivityTaskCompletedEventAttributes() != nil || e.GetWorkflowExecutionCompletedEventAttributes() != nil {
			continue // the result itself
		}
		assert.False(t, strings.Contains(e.String(), word), "event %d (%v) carries streamed text", e.GetEventId(), e.GetEventType())
	}
}

func TestIntegrationOneRequestPerAttempt(t *testing.T) {
	t.Parallel()
	// 503, then a 429 asking for 100ms, then the completion.
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch n {
		case 1:
			apiError(w, 503, "server_error", "", "The server is overloaded", nil)
		case 2:
			apiError(w, 429, "requests", "rate_limit_exceeded", "Rate limit reached", map[string]string{"retry-after-ms": "100"})
		default:
			streamOf(w, 3, "ok", "stop", nil)
		}
	})
	r := startWorker(t, p.URL())
	res, events, err := r.run(t, 0)
	require.NoError(t, err)
	assert.Equal(t, "okokok", res.Text)
	attempts := startedAttempts(events)
	require.Len(t, attempts, 1)
	assert.Equal(t, int32(3), attempts[0], "the third attempt completed, as the server recorded it")
	assert.Equal(t, int64(attempts[0]), p.requests.Load(), "the SDK made exactly one HTTP request per attempt")
}
