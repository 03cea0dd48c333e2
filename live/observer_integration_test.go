package live_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The activities of LiveWorkflow: a retrieval, and the model.
const (
	lookupType = "LiveLookup"
	chatType   = "LiveChat"
)

// Hits is what the retrieval returns.
type Hits struct {
	Hits int `json:"hits"`
}

// LiveWorkflow looks the prompt up, asks the model once and returns its
// reply.
func LiveWorkflow(ctx workflow.Context, prompt string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var hits Hits
	if err := workflow.ExecuteActivity(ctx, lookupType, prompt).Get(ctx, &hits); err != nil {
		return "", err
	}
	var reply string
	err := workflow.ExecuteActivity(ctx, chatType, prompt).Get(ctx, &reply)
	return reply, err
}

// Lookup finds two documents.
func Lookup(context.Context, string) (Hits, error) { return Hits{Hits: 2}, nil }

// standIn is a MODEL activity that streams: its first attempt streams
// "Goodbye, " and loses its stream, once the screen has shown that text
// (seen closed; nil: at once); the second streams its reasoning and the
// reply, and returns the reply.
type standIn struct{ seen chan struct{} }

func (s *standIn) Chat(ctx context.Context, prompt string) (string, error) {
	if activity.GetInfo(ctx).Attempt == 1 {
		for _, d := range []string{"Good", "bye, "} {
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return "", err
			}
		}
		if s.seen != nil {
			select {
			case <-s.seen:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "", providers.DroppedStream("stand-in", 2)
	}
	if _, err := providers.ReportText(ctx, providers.Reasoning, "the user said "+prompt); err != nil {
		return "", err
	}
	var reply strings.Builder
	for _, d := range []string{"Hello", ", ", "wörld", " ✓."} {
		if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
			return "", err
		}
		reply.WriteString(d)
	}
	return reply.String(), nil
}

// runLive runs LiveWorkflow on a worker of its own with observer (nil for
// none) and returns the run and its history.
func runLive(t *testing.T, ctx context.Context, id string, observer observe.Observer, model *standIn) (client.WorkflowRun, *historypb.History) {
	t.Helper()
	srv := testsuite.DevServerFor(t)
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: observer,
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model},
			lookupType: {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly}},
		Random: func() float64 { return 0 }})
	require.NoError(t, err)
	queue := "tq-" + id
	w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(LiveWorkflow)
	w.RegisterActivityWithOptions(model.Chat, activity.RegisterOptions{Name: chatType})
	w.RegisterActivityWithOptions(Lookup, activity.RegisterOptions{Name: lookupType})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, LiveWorkflow, "hi")
	require.NoError(t, err)
	var reply string
	require.NoError(t, run.Get(ctx, &reply))
	h, err := testsuite.WorkflowHistory(ctx, srv.Client(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	return run, h
}

// TestIntegrationStreamEndsOnHistory: on the dev server, a stand-in MODEL
// activity streams through providers.ReportText under the kit with
// live.NewObserver; its first attempt dies mid-stream after the screen
// showed its text, and the retry's reply is what the SSE client's message
// ends on, byte for byte the result history recorded. The history holds
// no Signal, Update or marker for the stream: the same run without an
// observer records the same events.
func TestIntegrationStreamEndsOnHistory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	obs, err := live.NewObserver(hub, live.Options{})
	require.NoError(t, err)
	defer obs.Close()
	id := "live-" + t.Name()
	srv := newServer(t, hub)

	// The screen watches before the workflow starts.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?stream="+id, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "test")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	model := &standIn{seen: make(chan struct{})}
	type read struct {
		events []sseEvent
		done   bool
	}
	screenRead := make(chan read, 1)
	go func() {
		var r read
		sc := bufio.NewScanner(resp.Body)
		var cur sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				cur.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				cur.data = strings.TrimPrefix(line, "data: ")
			case line == "":
				if cur.data == "[DONE]" {
					r.done = true
					screenRead <- r
					return
				}
				r.events = append(r.events, cur)
				if strings.Contains(cur.data, `"delta":"bye, "`) {
					close(model.seen) // the screen shows the first attempt's text
				}
				cur = sseEvent{}
			}
		}
		screenRead <- r
	}()

	started := time.Now()
	run, h := runLive(t, ctx, id, obs, model)
	var r read
	select {
	case r = <-screenRead:
	case <-ctx.Done():
		t.Fatal("the screen got no [DONE]")
	}
	require.True(t, r.done, "the message ends with [DONE]")
	elapsed := time.Since(started)

	recorded := completedResult(t, h)
	var reply string
	require.NoError(t, json.Unmarshal(recorded, &reply))
	assert.Equal(t, "Hello, wörld ✓.", reply)
	assert.Equal(t, reply, screen(t, r.events), "the screen ends on history's result, byte for byte")
	var parts []string
	for _, e := range r.events {
		var p struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.data), &p))
		parts = append(parts, p.Type)
	}
	assert.Contains(t, parts, "data-temporaladk-reset", "the dead attempt's reset")
	assert.Contains(t, parts, "reasoning-delta")
	assert.Contains(t, parts, "tool-input-available", "the retrieval, as a tool call")
	assert.Contains(t, parts, "tool-output-available")
	assert.Contains(t, r.events[0].data, `"type":"start"`)
	assert.Zero(t, obs.Dropped())

	// The same run without an observer: the same history, event for event.
	_, plain := runLive(t, ctx, id+"-plain", nil, &standIn{})
	assert.Equal(t, eventTypes(plain), eventTypes(h))
	for _, e := range h.GetEvents() {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_MARKER_RECORDED,
			enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ADMITTED:
			t.Errorf("the stream put a %s in history", e.GetEventType())
		}
	}
	assert.Equal(t, recorded, completedResult(t, plain), "the same result")
	require.Positive(t, payloadBytes(h))
	assert.Equal(t, payloadBytes(plain), payloadBytes(h), "the same payload and header bytes: 0 per token")
	assert.Equal(t, scheduledHeader(t, plain), scheduledHeader(t, h), "the same call header, byte for byte")
	st := hub.Stats()
	t.Logf("run %s: %d history events (%d without the observer), %d SSE parts, hub %+v, %v from start to [DONE]",
		run.GetRunID(), len(h.GetEvents()), len(plain.GetEvents()), len(r.events), st, elapsed)
}

// completedResult is the payload data of the history's last completed
// activity: the model's.
func completedResult(t *testing.T, h *historypb.History) []byte {
	t.Helper()
	var last []byte
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil {
			last = a.GetResult().GetPayloads()[0].GetData()
		}
	}
	require.NotNil(t, last, "no completed activity in the history")
	return last
}

// scheduledHeader is the kit's header of the history's model call.
func scheduledHeader(t *testing.T, h *historypb.History) []byte {
	t.Helper()
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == chatType {
			return a.GetHeader().GetFields()["temporaladk-call"].GetData()
		}
	}
	t.Fatal("no scheduled model call in the history")
	return nil
}

func eventTypes(h *historypb.History) []string {
	var out []string
	for _, e := range h.GetEvents() {
		out = append(out, e.GetEventType().String())
	}
	return out
}

// payloadBytes is the size of every payload a history holds (inputs,
// results, failures' details, headers, memos, search attributes), found by
// walking each event's message: what the run's data costs in history,
// apart from the IDs, times and names that differ from run to run.
func payloadBytes(h *historypb.History) int {
	payload := (&commonpb.Payload{}).ProtoReflect().Descriptor().FullName()
	n := 0
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if m.Descriptor().FullName() == payload {
			n += proto.Size(m.Interface())
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap() && fd.MapValue().Message() != nil:
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					walk(mv.Message())
					return true
				})
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	for _, e := range h.GetEvents() {
		walk(e.ProtoReflect())
	}
	return n
}
