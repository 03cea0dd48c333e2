package live_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/temporaladk"
)

// sseEvent is one event as an SSE client reads it.
type sseEvent struct {
	id   string
	data string
}

// readSSE reads the events of resp's body until [DONE], the body's end or
// max events (0: no limit).
func readSSE(t *testing.T, resp *http.Response, max int) (events []sseEvent, done bool) {
	t.Helper()
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
				return events, true
			}
			events = append(events, cur)
			cur = sseEvent{}
			if max > 0 && len(events) == max {
				return events, false
			}
		}
	}
	return events, false
}

// get opens the stream with lastID as Last-Event-ID ("" for none).
func get(t *testing.T, ctx context.Context, url, lastID string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// screen assembles parts as the AI SDK's readUIMessageStream does for text
// parts, and returns the text of the parts not superseded.
func screen(t *testing.T, events []sseEvent) string {
	t.Helper()
	type textPart struct {
		text       strings.Builder
		superseded bool
	}
	var order []*textPart
	open := map[string]*textPart{}
	for _, e := range events {
		var p struct {
			Type             string `json:"type"`
			ID               string `json:"id"`
			Delta            string `json:"delta"`
			ProviderMetadata struct {
				Temporaladk struct {
					Superseded bool `json:"superseded"`
				} `json:"temporaladk"`
			} `json:"providerMetadata"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.data), &p), e.data)
		switch p.Type {
		case "text-start":
			tp := &textPart{}
			open[p.ID] = tp
			order = append(order, tp)
		case "text-delta":
			require.Contains(t, open, p.ID, "a delta of a part not started")
			open[p.ID].text.WriteString(p.Delta)
		case "text-end":
			require.Contains(t, open, p.ID, "an end of a part not started")
			open[p.ID].superseded = p.ProviderMetadata.Temporaladk.Superseded
			delete(open, p.ID)
		}
	}
	var text strings.Builder
	for _, tp := range order {
		if !tp.superseded {
			text.WriteString(tp.text.String())
		}
	}
	return text.String()
}

func newServer(t *testing.T, hub live.Hub) *httptest.Server {
	t.Helper()
	h, err := live.NewHandler(hub, live.HandlerOptions{Authorize: func(r *http.Request, stream string) error {
		if r.Header.Get("Authorization") == "" && stream != "s" {
			return errors.New("not yours")
		}
		return nil
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// TestHandlerResetAndFinal: the dead attempt's text part is superseded, the
// text on screen is the recorded result, and the response is a UI message
// stream that ends with finish and [DONE].
func TestHandlerResetAndFinal(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		deltas []string
		result string
	}{
		"prefix":       {[]string{"Hel", "lo"}, "Hello, world"},
		"whole":        {[]string{"Hello", ", world"}, "Hello, world"},
		"lost a delta": {[]string{"Hel", ", world"}, "Hello, world"},
		"nothing":      {nil, "Hello, world"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hub, err := live.NewMemoryHub(live.MemoryOptions{})
			require.NoError(t, err)
			publish(t, hub, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Good"), delta("s", 1, 1, 2, "bye"), reset("s", 1, 2))
			for i, d := range c.deltas {
				publish(t, hub, delta("s", 1, 2, i+1, d))
			}
			publish(t, hub, final("s", 1, c.result))
			srv := newServer(t, hub)
			resp := get(t, t.Context(), srv.URL+"?stream=s", "")
			defer resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "v1", resp.Header.Get("x-vercel-ai-ui-message-stream"))
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			events, done := readSSE(t, resp, 0)
			require.True(t, done, "the stream ends with [DONE]")
			assert.Equal(t, c.result, screen(t, events))
			assert.Contains(t, events[0].data, `"type":"start"`)
			assert.Equal(t, `{"type":"finish"}`, events[len(events)-1].data)
			for _, e := range events {
				assert.NotEmpty(t, e.id, e.data)
			}
		})
	}
}

// TestHandlerResume: a reconnect with Last-Event-ID at every point of the
// stream gets the rest: the parts of both responses are the parts of one
// uninterrupted response, none lost, none repeated.
func TestHandlerResume(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	publish(t, hub, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Good"), reset("s", 1, 2),
		delta("s", 1, 2, 1, "Hel"), delta("s", 1, 2, 2, "lo"), final("s", 1, "Hello"))
	srv := newServer(t, hub)
	whole, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", ""), 0)
	require.True(t, done)
	for cut := 1; cut < len(whole); cut++ {
		ctx, cancel := context.WithCancel(t.Context())
		first, _ := readSSE(t, get(t, ctx, srv.URL+"?stream=s", ""), cut)
		cancel() // the connection drops
		rest, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", first[len(first)-1].id), 0)
		require.True(t, done)
		assert.Equal(t, whole, append(first, rest...), "cut after %d", cut)
	}
}

// TestHandlerResumeByQuery: the resume point in the query parameter
// lastEventId, as the page sends it on a new EventSource, gets what the
// header gets; the header wins over it.
func TestHandlerResumeByQuery(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	publish(t, hub, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Hel"), final("s", 1, "Hello"),
		planned("s", 2), reset("s", 2, 1), delta("s", 2, 1, 1, "Bye"), final("s", 2, "Bye."))
	srv := newServer(t, hub)
	first, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", ""), 0)
	require.True(t, done)
	finish := first[len(first)-1].id
	byHeader, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", finish), 0)
	require.True(t, done)
	byQuery, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s&"+live.LastEventIDParam+"="+finish, ""), 0)
	require.True(t, done)
	assert.Equal(t, byHeader, byQuery)
	assert.Equal(t, "Bye.", screen(t, byQuery), "the next message")
	both, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s&"+live.LastEventIDParam+"="+first[0].id, finish), 0)
	require.True(t, done)
	assert.Equal(t, byHeader, both, "the header wins")
	resp := get(t, t.Context(), srv.URL+"?stream=s&"+live.LastEventIDParam+"=yesterday", "")
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// TestHandlerRefuses: a request the hook refuses gets 403 and nothing of
// the stream; a Last-Event-ID the stream never sent is a 400.
func TestHandlerRefuses(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	publish(t, hub, planned("other", 1))
	srv := newServer(t, hub)
	resp := get(t, t.Context(), srv.URL+"?stream=other", "")
	body, _ := readSSE(t, resp, 0)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Len(t, body, 0)
	resp = get(t, t.Context(), srv.URL+"?stream=s", "yesterday")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp = get(t, t.Context(), srv.URL, "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// TestHandlerResumeBeyondTheWindow: a Last-Event-ID older than what the hub
// holds exactly starts the message over, and says so first.
func TestHandlerResumeBeyondTheWindow(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{MaxEvents: 4})
	require.NoError(t, err)
	publish(t, hub, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "a"))
	srv := newServer(t, hub)
	ctx, cancel := context.WithCancel(t.Context())
	first, _ := readSSE(t, get(t, ctx, srv.URL+"?stream=s", ""), 1)
	cancel()
	for seq, d := range []string{"b", "c", "d", "e"} {
		publish(t, hub, delta("s", 1, 1, seq+2, d))
	}
	publish(t, hub, final("s", 1, "abcde"))
	events, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", first[0].id), 0)
	require.True(t, done)
	assert.Contains(t, events[0].data, `"type":"start"`)
	assert.Contains(t, events[1].data, `"type":"data-temporaladk-resync"`)
	assert.Equal(t, "abcde", screen(t, events))
}

// TestHandlerShowsARepublishOnce: a worker that takes the workflow over
// publishes its events again; the screen gets each part once.
func TestHandlerShowsARepublishOnce(t *testing.T) {
	t.Parallel()
	events := []live.Event{planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Hel"), delta("s", 1, 1, 2, "lo")}
	once, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	twice, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	publish(t, once, append(events, final("s", 1, "Hello"))...)
	publish(t, twice, events...)
	publish(t, twice, append(events, final("s", 1, "Hello"), final("s", 1, "Hello"))...)
	a, _ := readSSE(t, get(t, t.Context(), newServer(t, once).URL+"?stream=s", ""), 0)
	b, _ := readSSE(t, get(t, t.Context(), newServer(t, twice).URL+"?stream=s", ""), 0)
	assert.Equal(t, a, b)
	assert.Equal(t, int64(5), twice.Stats().Duplicates)
}

// TestHandlerApprovalsAndBudgets: an approval is one data part, asked then
// decided under one ID (the AI SDK replaces a data part of the same type
// and ID), and each charge a budget part.
func TestHandlerApprovalsAndBudgets(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	base := live.Event{Stream: "s", WorkflowID: "wf", RunID: run, ActivityType: "Refund", Class: temporaladk.Tool}
	asked, decided, charged := base, base, base
	asked.ID, asked.Kind, asked.Data = run+"/approval-1/asked", live.ApprovalAsked, []byte(`{"approval":"approval-1","status":"waiting"}`)
	decided.ID, decided.Kind, decided.Data = run+"/approval-1/decided", live.ApprovalDecided, []byte(`{"approval":"approval-1","status":"granted","by":"ann"}`)
	charged.ID, charged.Kind, charged.Data = run+"/call-1/charged/1", live.Charged, []byte(`{"call":"call-1","attempt":1,"remaining":2}`)
	publish(t, hub, asked, decided, charged, final("s", 1, "done"))
	events, done := readSSE(t, get(t, t.Context(), newServer(t, hub).URL+"?stream=s", ""), 0)
	require.True(t, done)
	var data []string
	for _, e := range events {
		var p struct {
			Type string          `json:"type"`
			ID   string          `json:"id"`
			Data json.RawMessage `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.data), &p))
		if strings.HasPrefix(p.Type, "data-") {
			data = append(data, p.Type+" "+p.ID+" "+string(p.Data))
		}
	}
	assert.Equal(t, []string{
		`data-temporaladk-approval run-1/approval-1 {"approval":"approval-1","status":"waiting"}`,
		`data-temporaladk-approval run-1/approval-1 {"approval":"approval-1","status":"granted","by":"ann"}`,
		`data-temporaladk-budget run-1/call-1/charged/1 {"call":"call-1","attempt":1,"remaining":2}`,
	}, data)
}

// fixedHub delivers its events as they are, offsets numbered, filtering
// nothing: the handler is held to the stream's order whatever its hub.
type fixedHub []live.Event

func (fixedHub) Publish(context.Context, live.Event) error { return errors.New("read only") }

func (f fixedHub) Subscribe(context.Context, string) (live.Subscription, error) {
	ch := make(chan live.Event, len(f))
	for i, e := range f {
		e.Offset = uint64(i + 1)
		ch <- e
	}
	close(ch)
	return live.Subscription{Events: ch}, nil
}

// TestHandlerIgnoresTextAfterTheFinal: a delta that arrives after its
// call's final (a slow publisher in a fleet) is stale: the next message
// holds nothing of it.
func TestHandlerIgnoresTextAfterTheFinal(t *testing.T) {
	t.Parallel()
	tool := planned("s", 2)
	tool.Class, tool.ActivityType = temporaladk.Tool, "Lookup"
	toolEnd := final("s", 2, "x")
	toolEnd.Class, toolEnd.ActivityType, toolEnd.Output = temporaladk.Tool, "Lookup", []byte(`{"hits":2}`)
	hub := fixedHub{reset("s", 1, 1), delta("s", 1, 1, 1, "Hi"), final("s", 1, "Hi"), delta("s", 1, 1, 2, " there"), tool, toolEnd}
	srv := newServer(t, hub)
	first, done := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", ""), 0)
	require.True(t, done)
	assert.Equal(t, "Hi", screen(t, first))
	next, _ := readSSE(t, get(t, t.Context(), srv.URL+"?stream=s", first[len(first)-1].id), 0)
	var types []string
	for _, e := range next {
		var p struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.data), &p))
		types = append(types, p.Type)
	}
	assert.Equal(t, []string{"start", "tool-input-available", "tool-output-available"}, types)
}

// TestHandlerReplyOfAnObjectResult: a MODEL call whose result is an object
// with a string "text" (contrib/openai's and contrib/anthropic's Result)
// ends on that text, completing what streamed; an object without one is
// no text, and what streamed is superseded.
func TestHandlerReplyOfAnObjectResult(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		output string
		screen string
		final  bool
	}{
		"text field":     {`{"id":"r1","model":"m","text":"Hello, wörld","usage":{"input_tokens":3}}`, "Hello, wörld", false},
		"empty text":     {`{"text":""}`, "", false},
		"no text field":  {`{"choices":2}`, "", true},
		"text not a str": {`{"text":7}`, "", true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hub, err := live.NewMemoryHub(live.MemoryOptions{})
			require.NoError(t, err)
			end := final("s", 1, "")
			end.Output = []byte(c.output)
			publish(t, hub, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Hel"), end)
			srv := newServer(t, hub)
			resp := get(t, t.Context(), srv.URL+"?stream=s", "")
			defer resp.Body.Close()
			events, done := readSSE(t, resp, 0)
			require.True(t, done, "the message finishes")
			assert.Equal(t, c.screen, screen(t, events))
			var finals int
			for _, e := range events {
				if strings.Contains(e.data, live.PartFinal) {
					finals++
				}
			}
			assert.Equal(t, c.final, finals == 1, "a result with no text says so in a %s part", live.PartFinal)
		})
	}
}
