package natslive_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
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

// model is a MODEL activity that streams. Its first attempt streams
// "Good", "bye, ", says so on streamed and waits until its worker stops,
// then loses its stream; the next attempt streams the reply and returns it.
type model struct {
	streamed chan struct{}
	reply    []string
}

func (m *model) Chat(ctx context.Context, _ string) (string, error) {
	if activity.GetInfo(ctx).Attempt == 1 {
		for _, d := range []string{"Good", "bye, "} {
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return "", err
			}
		}
		close(m.streamed)
		<-activity.GetWorkerStopChannel(ctx)
		return "", providers.DroppedStream("stand-in", 2)
	}
	for _, d := range m.reply {
		if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
			return "", err
		}
	}
	return strings.Join(m.reply, ""), nil
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

// startWorker runs a kit worker of p on queue that publishes to p's hub.
func (p process) startWorker(t *testing.T, queue string, m *model) worker.Worker {
	t.Helper()
	obs, err := live.NewObserver(p.hub, live.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = obs.Close() })
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs,
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model}},
		Random:     func() float64 { return 0 }})
	require.NoError(t, err)
	w := worker.New(p.client, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(FleetWorkflow)
	w.RegisterActivityWithOptions(m.Chat, activity.RegisterOptions{Name: chatType})
	require.NoError(t, w.Start())
	return w
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

// TestIntegrationFleetOnNATS: two worker processes and a web process on
// one NATS and one Temporal server. The first worker runs the workflow and
// the model's first attempt, which streams; a screen that joins then, on
// the web process, gets the text so far. The first worker stops mid-turn
// and the second takes the workflow over (replaying its history) and runs
// the retry: the screen drops the dead attempt's text, shows no event
// twice, and ends on the reply history recorded, byte for byte. The
// history holds no Signal, Update or marker of the stream.
func TestIntegrationFleetOnNATS(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dev := testsuite.DevServerFor(t)
	nats := natstest.Start(t)
	first, second := newProcess(t, ctx, dev, nats, "first"), newProcess(t, ctx, dev, nats, "second")
	web := newProcess(t, ctx, dev, nats, "web")
	m := &model{streamed: make(chan struct{}), reply: []string{"Hello", ", ", "wörld", " ✓."}}
	queue, id := "fleet-"+t.Name(), "fleet-"+t.Name()

	h, err := live.NewHandler(web.hub, live.HandlerOptions{Authorize: func(r *http.Request, stream string) error {
		if stream != id {
			return errors.New("not this screen's workflow")
		}
		return nil
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	w1 := first.startWorker(t, queue, m)
	var stopOnce sync.Once
	stop1 := func() { stopOnce.Do(w1.Stop) }
	t.Cleanup(stop1)
	run, err := first.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, FleetWorkflow, "hi")
	require.NoError(t, err)
	select {
	case <-m.streamed:
	case <-ctx.Done():
		t.Fatal("the first attempt did not stream")
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
	w2 := second.startWorker(t, queue, m)
	t.Cleanup(w2.Stop)
	stop1()
	for e := range events {
		got = append(got, e)
	}
	var reply string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, dev.Client(), run, &reply))

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
	assert.Equal(t, strings.Join(m.reply, ""), recorded)
	assert.Equal(t, recorded, reply)
	// History records the attempt that ended the call: the second, on the
	// worker that took over.
	assert.EqualValues(t, 2, started.GetAttempt())
	assert.Equal(t, "second", started.GetIdentity())

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

// TestIntegrationNATSDownNeverTouchesACall: with NATS stopped before the
// workflow starts, the model call completes once, its reply is in
// history, and the observer counts what it could not publish.
func TestIntegrationNATSDownNeverTouchesACall(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	dev := testsuite.DevServerFor(t)
	nats := natstest.Start(t)
	p := newProcess(t, ctx, dev, nats, "worker")
	obs, err := live.NewObserver(p.hub, live.Options{})
	require.NoError(t, err)
	require.NoError(t, nats.Stop())

	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs,
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model}}})
	require.NoError(t, err)
	queue, id := "down-"+t.Name(), "down-"+t.Name()
	w := worker.New(p.client, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(FleetWorkflow)
	reply := []string{"still ", "here"}
	attempts := 0
	w.RegisterActivityWithOptions(func(ctx context.Context, _ string) (string, error) {
		attempts++
		for _, d := range reply {
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
	assert.EqualValues(t, 1, started, "one attempt: the stream being down retried nothing")
	assert.Equal(t, 1, attempts)
	// Planned, the attempt's reset, its deltas and the final: none published.
	assert.EqualValues(t, 3+len(reply), obs.Dropped(), "every event the stream could not take is counted")
}
