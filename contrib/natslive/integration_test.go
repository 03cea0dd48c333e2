package natslive_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/natslive"
	"github.com/temporaladk/adk-go/contrib/natslive/natstest"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

const chatType = "FleetChat"

// FleetWorkflow asks the model once and returns its reply.
func FleetWorkflow(ctx workflow.Context, prompt string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var reply string
	err := workflow.ExecuteActivity(ctx, chatType, prompt).Get(ctx, &reply)
	return reply, err
}

// process is what one process of the fleet has: its own Temporal client
// and NATS connection, and the hub on it.
type process struct {
	client client.Client
	hub    *natslive.Hub
}

func newProcess(t *testing.T, ctx context.Context, dev *testsuite.DevServer, nats *natstest.Server, identity string) process {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: dev.Address(), Namespace: dev.Namespace(), Identity: identity})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return process{client: c, hub: newHub(t, ctx, nats, natslive.Options{})}
}

// The environment of a worker process (TestMain runs workerProcess when
// workerEnv is set): its identity, the Temporal server, NATS, the queue.
const (
	workerEnv    = "NATSLIVE_TEST_WORKER"
	hostPortEnv  = "NATSLIVE_TEST_HOSTPORT"
	namespaceEnv = "NATSLIVE_TEST_NAMESPACE"
	natsEnv      = "NATSLIVE_TEST_NATS"
	queueEnv     = "NATSLIVE_TEST_QUEUE"
)

// fleetReply is what the model's retry streams and returns.
var fleetReply = []string{"Hello", ", ", "wörld", " ✓."}

// workerProcess is one worker of the fleet, a process of its own: a kit
// worker whose observer publishes to NATS, running FleetWorkflow and the
// model, until its stdin closes. Its model's first attempt streams
// "Good", "bye, " and waits until the worker stops, then loses its stream;
// a later attempt streams fleetReply and returns it.
func workerProcess() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	ctx := context.Background()
	nc, err := nats.Connect(os.Getenv(natsEnv))
	if err != nil {
		return fail(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fail(err)
	}
	hub, err := natslive.New(ctx, js, natslive.Options{})
	if err != nil {
		return fail(err)
	}
	obs, err := live.NewObserver(hub, live.Options{})
	if err != nil {
		return fail(err)
	}
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs,
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model}},
		Random:     func() float64 { return 0 }})
	if err != nil {
		return fail(err)
	}
	c, err := client.Dial(client.Options{HostPort: os.Getenv(hostPortEnv), Namespace: os.Getenv(namespaceEnv),
		Identity: os.Getenv(workerEnv), Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	// The stop waits for the attempt it ends, so that its failure is
	// reported before the process goes.
	// The kit's plugin marks the worker's identity (interceptors.IdentityMark);
	// given here, it keeps the name the test reads.
	//
	// One activity slot: while the first attempt runs, the worker holds no
	// activity poll, and once it stops it polls no more. With a poll in
	// flight as it stops, a server that does not complete polls at shutdown
	// (v1.29, the dev server's) can hand the retry to that abandoned poll;
	// the stopping worker never runs it, the retry waits out its heartbeat
	// window (6 s) and the call ends on attempt 3, not on the retry the test
	// watches (CI saw it).
	w := worker.New(c, os.Getenv(queueEnv), worker.Options{Plugins: []worker.Plugin{plugin}, WorkerStopTimeout: time.Minute,
		Identity: os.Getenv(workerEnv), MaxConcurrentActivityExecutionSize: 1})
	w.RegisterWorkflow(FleetWorkflow)
	w.RegisterActivityWithOptions(func(ctx context.Context, _ string) (string, error) {
		if activity.GetInfo(ctx).Attempt == 1 {
			for _, d := range []string{"Good", "bye, "} {
				if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
					return "", err
				}
			}
			<-activity.GetWorkerStopChannel(ctx)
			return "", providers.DroppedStream("stand-in", 2)
		}
		for _, d := range fleetReply {
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return "", err
			}
		}
		return strings.Join(fleetReply, ""), nil
	}, activity.RegisterOptions{Name: chatType})
	if err := w.Start(); err != nil {
		return fail(err)
	}
	fmt.Println("started")
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	if err := obs.Close(); err != nil {
		return fail(err)
	}
	fmt.Println("stopped")
	return 0
}

// workerProc is a worker process the test started.
type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startWorkerProcess starts a worker process named identity and waits
// until its worker polls.
func startWorkerProcess(t *testing.T, identity, queue string, dev *testsuite.DevServer, nats *natstest.Server) *workerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), workerEnv+"="+identity, hostPortEnv+"="+dev.Address(), namespaceEnv+"="+dev.Namespace(),
		natsEnv+"="+nats.URL, queueEnv+"="+queue)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &workerProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	require.True(t, p.out.Scan(), "worker process %s did not start", identity)
	require.Equal(t, "started", p.out.Text())
	return p
}

// stop stops the worker and waits until the process ends.
func (p *workerProc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.stdin.Close())
	require.True(t, p.out.Scan(), "the worker process did not stop")
	require.Equal(t, "stopped", p.out.Text())
	require.NoError(t, p.cmd.Wait())
}

// sseEvent is one event of the SSE response: its id and its JSON part.
type sseEvent struct {
	id   string
	part map[string]any
}

// readSSE sends the SSE events of resp to out until the finish part or
// the end of the body.
func readSSE(resp *http.Response, out chan<- sseEvent) {
	defer close(out)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var id string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: {"):
			var p map[string]any
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &p) != nil {
				return
			}
			out <- sseEvent{id: id, part: p}
			if p["type"] == "finish" {
				return
			}
		}
	}
}

// TestIntegrationFleetOnNATS: two worker processes and a web process (the
// test's) on one NATS and one Temporal server. The first worker runs the
// workflow and the model's first attempt, which streams; a screen that
// joins then, on the web process, gets the text so far. The first worker
// stops mid-turn and the second takes the workflow over (replaying its
// history) and runs the retry: the screen drops the dead attempt's text,
// shows no event twice, and ends on the reply history recorded, byte for
// byte. The history holds no Signal, Update or marker of the stream.
func TestIntegrationFleetOnNATS(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dev := testsuite.DevServerFor(t)
	nats := natstest.Start(t)
	web := newHub(t, ctx, nats, natslive.Options{})
	queue, id := "fleet-"+t.Name(), "fleet-"+t.Name()

	h, err := live.NewHandler(web, live.HandlerOptions{Authorize: func(r *http.Request, stream string) error {
		if stream != id {
			return errors.New("not this screen's workflow")
		}
		return nil
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	first := startWorkerProcess(t, "first", queue, dev, nats)
	run, err := dev.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, FleetWorkflow, "hi")
	require.NoError(t, err)
	// The first attempt's text is on NATS: read there, as published.
	watch, err := web.Subscribe(ctx, id)
	require.NoError(t, err)
	for deltas := 0; deltas < 2; {
		select {
		case e, ok := <-watch.Events:
			require.True(t, ok, "the stream closed before the first attempt's text")
			if e.Kind == live.Delta {
				deltas++
			}
		case <-ctx.Done():
			t.Fatal("the first attempt's text did not reach NATS")
		}
	}

	// The screen joins mid-call. Its first parts are the text so far.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?stream="+id, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events := make(chan sseEvent, 256)
	go readSSE(resp, events)
	var got []sseEvent
	var sofar strings.Builder
	for sofar.String() != "Goodbye, " {
		select {
		case e, ok := <-events:
			require.True(t, ok, "the stream ended before the text so far: %v", got)
			got = append(got, e)
			if e.part["type"] == "text-delta" {
				sofar.WriteString(e.part["delta"].(string))
			}
			require.LessOrEqual(t, sofar.Len(), len("Goodbye, "), "only the first attempt's text so far: %q", sofar.String())
		case <-ctx.Done():
			t.Fatalf("the text so far did not arrive: %q", sofar.String())
		}
	}

	// The takeover: the second worker starts, the first stops mid-turn.
	second := startWorkerProcess(t, "second", queue, dev, nats)
	first.stop(t)
	for e := range events {
		got = append(got, e)
	}
	var reply string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, dev.Client(), run, &reply))
	second.stop(t)

	// What history recorded.
	hist, err := testsuite.WorkflowHistory(ctx, dev.Client(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var recorded string
	var started *historypb.ActivityTaskStartedEventAttributes
	for _, ev := range hist.GetEvents() {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			recorded = decode(t, ev.GetActivityTaskCompletedEventAttributes().GetResult())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			started = ev.GetActivityTaskStartedEventAttributes()
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, enumspb.EVENT_TYPE_MARKER_RECORDED:
			t.Errorf("the history holds a %s: the stream entered it", ev.GetEventType())
		}
	}
	assert.Equal(t, strings.Join(fleetReply, ""), recorded)
	assert.Equal(t, recorded, reply)
	// History records the attempt that ended the call: the second, on the
	// worker that took over.
	assert.EqualValues(t, 2, started.GetAttempt())
	assert.Equal(t, "second"+interceptors.IdentityMark, started.GetIdentity())

	// The screen: each SSE event once, the dead attempt's text superseded,
	// the text not superseded is history's.
	seen := map[string]bool{}
	texts := map[string]*strings.Builder{}
	superseded := map[string]bool{}
	var order []string
	for _, e := range got {
		assert.False(t, seen[e.id], "SSE event %s sent twice", e.id)
		seen[e.id] = true
		pid, _ := e.part["id"].(string)
		switch e.part["type"] {
		case "text-start":
			assert.Nil(t, texts[pid], "text part %s started twice", pid)
			texts[pid] = &strings.Builder{}
			order = append(order, pid)
		case "text-delta":
			texts[pid].WriteString(e.part["delta"].(string))
		case "text-end":
			if md, ok := e.part["providerMetadata"].(map[string]any); ok {
				superseded[pid] = md[live.MetadataKey].(map[string]any)["superseded"] == true
			}
		}
	}
	var shown strings.Builder
	var dropped []string
	for _, pid := range order {
		if superseded[pid] {
			dropped = append(dropped, texts[pid].String())
			continue
		}
		shown.WriteString(texts[pid].String())
	}
	assert.Equal(t, []string{"Goodbye, "}, dropped, "the dead attempt's text, dropped")
	assert.Equal(t, recorded, shown.String(), "the screen ends on what history recorded, byte for byte")
	assert.Equal(t, "finish", got[len(got)-1].part["type"])
}

// decode reads a string result payload.
func decode(t *testing.T, p *commonpb.Payloads) string {
	t.Helper()
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(p, &s))
	return s
}

// TestIntegrationNATSDownNeverTouchesACall: NATS stops in the middle of a
// model call, after a screen showed its first text: the screen's response
// ends without a finish and a new request gets 503 (the page says the live
// view is unavailable), the call still completes once, its reply is in
// history, and the observer counts what it could not publish.
func TestIntegrationNATSDownNeverTouchesACall(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dev := testsuite.DevServerFor(t)
	nats := natstest.Start(t)
	p := newProcess(t, ctx, dev, nats, "worker")
	web := newHub(t, ctx, nats, natslive.Options{})
	queue, id := "down-"+t.Name(), "down-"+t.Name()
	h, err := live.NewHandler(web, live.HandlerOptions{Authorize: func(*http.Request, string) error { return nil }})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	obs, err := live.NewObserver(p.hub, live.Options{})
	require.NoError(t, err)

	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs,
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model}}})
	require.NoError(t, err)
	w := worker.New(p.client, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(FleetWorkflow)
	reply := []string{"still ", "here"}
	release := make(chan struct{})
	var attempts atomic.Int32
	w.RegisterActivityWithOptions(func(ctx context.Context, _ string) (string, error) {
		attempts.Add(1)
		for i, d := range reply {
			if i == 1 {
				<-release // NATS goes down meanwhile
			}
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return "", err
			}
		}
		return strings.Join(reply, ""), nil
	}, activity.RegisterOptions{Name: chatType})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	run, err := p.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, FleetWorkflow, "hi")
	require.NoError(t, err)

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?stream="+id, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events := make(chan sseEvent, 64)
	go readSSE(resp, events)
	for shown := false; !shown; {
		select {
		case e, ok := <-events:
			require.True(t, ok, "the stream ended before the first text")
			shown = e.part["type"] == "text-delta" && e.part["delta"] == reply[0]
		case <-ctx.Done():
			t.Fatal("the first text did not reach the screen")
		}
	}

	require.NoError(t, nats.Stop())
	for e := range events {
		assert.NotEqual(t, "finish", e.part["type"], "no finish while NATS is down")
	}
	again, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?stream="+id, nil)
	require.NoError(t, err)
	resp2, err := http.DefaultClient.Do(again)
	require.NoError(t, err)
	resp2.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp2.StatusCode, "a screen that reconnects is told the live view is unavailable")

	close(release)
	var got string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, dev.Client(), run, &got))
	require.NoError(t, obs.Close())

	hist, err := testsuite.WorkflowHistory(ctx, dev.Client(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var recorded string
	var started int32
	for _, ev := range hist.GetEvents() {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			recorded = decode(t, ev.GetActivityTaskCompletedEventAttributes().GetResult())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			started = ev.GetActivityTaskStartedEventAttributes().GetAttempt()
		}
	}
	assert.Equal(t, strings.Join(reply, ""), recorded, "the reply is in history")
	assert.Equal(t, recorded, got)
	assert.EqualValues(t, 1, started, "one attempt: the stream being down retried nothing")
	assert.EqualValues(t, 1, attempts.Load())
	// The second delta and the call's final: published after NATS went.
	assert.EqualValues(t, len(reply)-1+1, obs.Dropped(), "every event the stream could not take is counted")
}
