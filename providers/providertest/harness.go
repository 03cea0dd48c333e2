package providertest

import (
	"context"
	"encoding/json"
	"net/http"
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

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// modelWorkflow calls the model activity once with req. A heartbeat window,
// when given, is set on the call (with a StartToClose the stream fits in);
// else the kit's MODEL policy applies as declared.
func modelWorkflow(ctx workflow.Context, activityName string, req json.RawMessage, window time.Duration) (json.RawMessage, error) {
	if window > 0 {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: window})
	}
	var res json.RawMessage
	err := workflow.ExecuteActivity(ctx, activityName, req).Get(ctx, &res)
	return res, err
}

// Harness is one provider module on a real dev server: its declaration, a
// model built against a stand-in and registered on a worker with the kit.
type Harness struct {
	// ActivityName is the model activity's type.
	ActivityName string
	// Path is the API path the stand-in serves.
	Path string
	// Request is what the workflow sends the activity.
	Request any
	// Declare adds the module's declaration to the kit's options.
	Declare func(*interceptors.Options) error
	// Register builds the module's model against baseURL and registers it.
	Register func(t testing.TB, r worker.ActivityRegistry, baseURL string)
}

// Run is a worker with the kit serving the harness's model against a
// stand-in.
type Run struct {
	c     client.Client
	queue string
	h     Harness
	// Server is the stand-in the model calls.
	Server *Server
	// Probe sees every heartbeat the SDK is given.
	Probe *testsuite.Recorder
}

// Start starts a stand-in serving respond and a worker on the test
// binary's shared dev server (see testsuite.RunWithDevServer), with the
// MODEL policy's backoff shortened to milliseconds.
func (h Harness) Start(t testing.TB, respond func(w http.ResponseWriter, r *http.Request, n int64)) *Run {
	t.Helper()
	srv := NewServer(t, h.Path, respond)
	c := testsuite.DevServerFor(t).Client()
	policy, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	policy.Retry.InitialInterval = 10 * time.Millisecond
	policy.Retry.MaxInterval = 50 * time.Millisecond
	opts := interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: policy}}
	require.NoError(t, h.Declare(&opts))
	kit, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	r := &Run{c: c, queue: strings.ReplaceAll(t.Name(), "/", "-"), h: h, Server: srv, Probe: &testsuite.Recorder{}}
	// The kit joins through its plugin, after the probe, as on a worker.
	w := worker.New(c, r.queue, worker.Options{Interceptors: []interceptor.WorkerInterceptor{r.Probe}, Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(modelWorkflow)
	h.Register(t, w, srv.URL())
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return r
}

// Execute runs a workflow that calls the harness's activity once with its
// Request (and, when window is not zero, that heartbeat window) and returns the activity's result (JSON), the
// run's history and the run's error.
func (r *Run) Execute(t testing.TB, window time.Duration) (json.RawMessage, []*historypb.HistoryEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := json.Marshal(r.h.Request)
	require.NoError(t, err)
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.queue, TaskQueue: r.queue}, modelWorkflow, r.h.ActivityName, json.RawMessage(req), window)
	require.NoError(t, err)
	var res json.RawMessage
	runErr := run.Get(ctx, &res)
	hist, err := testsuite.WorkflowHistory(ctx, r.c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	return res, hist.GetEvents(), runErr
}

// Stream writes a whole stream of n chunks of word in a provider's wire
// format, calling pace after each chunk.
type Stream func(w http.ResponseWriter, n int, word string, pace func(i int))

// StreamChunks is how many chunks CheckHeartbeats streams.
const StreamChunks = 10000

// CheckHeartbeats streams StreamChunks chunks, paced over about three
// one-second heartbeat windows, through the harness's model on a dev server,
// and checks what the SDK was given to heartbeat: only counts (every
// heartbeat's details are exactly a temporaladk.Heartbeat), at most three
// per window after the opening beat, growing; no streamed text in the
// history but the result; one attempt and one request. It returns the
// activity's result.
func (h Harness) CheckHeartbeats(t testing.TB, stream Stream) json.RawMessage {
	t.Helper()
	const (
		// The heartbeat window: the kit beats three times in it. Three
		// seconds, so that a loaded machine's stall of a second or two
		// between beats is no heartbeat timeout; the stream's own length
		// is its pace's (100 chunks every 30 ms), whatever the window.
		window = 3 * time.Second
		word   = "secretword"
	)
	r := h.Start(t, func(w http.ResponseWriter, req *http.Request, _ int64) {
		stream(w, StreamChunks, word, func(i int) {
			if i%100 == 99 {
				w.(http.Flusher).Flush()
				time.Sleep(30 * time.Millisecond) // the stand-in's pace, not a wait for the test
			}
		})
	})
	start := time.Now()
	res, events, err := r.Execute(t, window)
	require.NoError(t, err)
	elapsed := time.Since(start)

	assert.Contains(t, string(res), strings.Repeat(word, StreamChunks), "the result is the whole text")
	assert.Empty(t, r.Probe.OtherHeartbeatDetails(), "every heartbeat's details are exactly a temporaladk.Heartbeat: counts, no text")
	beats := r.Probe.Heartbeats()
	windows := int(elapsed/window) + 1
	t.Logf("%d heartbeats over %v of streaming %d chunks: one at the start, then %.2f per %v window",
		len(beats), elapsed.Round(time.Millisecond), StreamChunks, float64(len(beats)-1)/(float64(elapsed)/float64(window)), window)
	assert.LessOrEqual(t, len(beats), 3*windows+1, "at most three beats per window over %v", elapsed)
	assert.GreaterOrEqual(t, len(beats), 2, "the beats went on through the stream")
	var last temporaladk.Heartbeat
	for _, hb := range beats {
		assert.Equal(t, h.ActivityName, hb.Step)
		assert.GreaterOrEqual(t, hb.Chunks, last.Chunks, "counts only grow")
		last = hb
	}
	assert.Positive(t, last.Tokens, "the beats carry the counts")
	assert.LessOrEqual(t, last.Tokens, int64(StreamChunks))
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "no heartbeat timeout, no retry")
	assert.Equal(t, int64(1), r.Server.Requests())
	for _, e := range events {
		if e.GetActivityTaskCompletedEventAttributes() != nil || e.GetWorkflowExecutionCompletedEventAttributes() != nil {
			continue // the result itself
		}
		assert.False(t, strings.Contains(e.String(), word), "event %d (%v) carries streamed text", e.GetEventId(), e.GetEventType())
	}
	return res
}

// CheckOneRequestPerAttempt runs the model against respond, which must fail
// the first two requests retryably and then complete, and checks that the
// third attempt completed and that the SDK made one HTTP request per attempt,
// as the server recorded the attempts. It returns the activity's result.
func (h Harness) CheckOneRequestPerAttempt(t testing.TB, respond func(w http.ResponseWriter, r *http.Request, n int64)) json.RawMessage {
	t.Helper()
	r := h.Start(t, respond)
	res, events, err := r.Execute(t, 0)
	require.NoError(t, err)
	attempts := testsuite.StartedAttempts(events)
	require.Len(t, attempts, 1)
	assert.Equal(t, int32(3), attempts[0], "the third attempt completed, as the server recorded it")
	assert.Equal(t, int64(attempts[0]), r.Server.Requests(), "the SDK made exactly one HTTP request per attempt")
	return res
}
