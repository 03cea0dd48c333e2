package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// UIMessageStreamHeader is the header, and its value, that mark a response
// as the AI SDK's UI message stream.
const (
	UIMessageStreamHeader = "x-vercel-ai-ui-message-stream"
	UIMessageStreamV1     = "v1"
)

// The data parts the handler adds to the UI message stream, and the
// providerMetadata key of a text part a screen drops
// ({"temporaladk":{"superseded":true}}).
const (
	// PartReset follows a dead attempt's superseded text part: data
	// {call, attempt}, the attempt that starts.
	PartReset = "data-temporaladk-reset"
	// PartFinal ends a MODEL call whose result is no text (failed, or not
	// a string): data {call, outcome, errorType}.
	PartFinal = "data-temporaladk-final"
	// PartApproval is an approval, one part per approval ID, asked then
	// decided: data as the observer's ApprovalAsked and ApprovalDecided.
	PartApproval = "data-temporaladk-approval"
	// PartBudget is a charge: data {call, attempt, remaining}.
	PartBudget = "data-temporaladk-budget"
	// PartResync begins a message that starts over: the resume asked was
	// older than what the hub holds exactly. Transient.
	PartResync = "data-temporaladk-resync"
	// MetadataKey is the providerMetadata key of the kit's marks on a part.
	MetadataKey = "temporaladk"
)

// LastEventIDParam is the query parameter a request may give its resume
// point in, as it would in the Last-Event-ID header: a browser's new
// EventSource cannot send the header, so the page (NewPage) opens the
// connection of each next message with it, at once, rather than wait for
// the browser's reconnection time. The header wins when both are sent: an
// EventSource reconnecting on its own sends the newer point there.
const LastEventIDParam = "lastEventId"

// HandlerOptions configure the SSE handler.
type HandlerOptions struct {
	// Authorize decides whether r may watch stream: an error refuses it
	// with 403 (its text is not sent). Required: who may watch which
	// workflow is the embedding application's decision.
	Authorize func(r *http.Request, stream string) error
	// Stream reads the stream's name from a request. If not set, the query
	// parameter "stream".
	Stream func(r *http.Request) string
}

// NewHandler returns an http.Handler that serves a stream of hub over
// Server-Sent Events, in the AI SDK's UI message stream protocol (see the
// package doc). A nil hub, or HandlerOptions.Authorize not set, is an
// error.
func NewHandler(hub Hub, opts HandlerOptions) (http.Handler, error) {
	if hub == nil {
		return nil, errors.New("live: NewHandler: hub is nil")
	}
	if opts.Authorize == nil {
		return nil, errors.New("live: NewHandler: HandlerOptions.Authorize is nil: it is required, it decides which streams a request may watch")
	}
	if opts.Stream == nil {
		opts.Stream = func(r *http.Request) string { return r.URL.Query().Get("stream") }
	}
	return &handler{hub: hub, opts: opts}, nil
}

type handler struct {
	hub  Hub
	opts HandlerOptions
}

// position is where an SSE event is in a stream: the hub event's offset
// and the part's index among that event's parts. Its text is the SSE id.
type position struct {
	offset uint64
	part   int
}

func (p position) String() string {
	return strconv.FormatUint(p.offset, 10) + "-" + strconv.Itoa(p.part)
}

func (p position) after(q position) bool {
	return p.offset > q.offset || (p.offset == q.offset && p.part > q.part)
}

// parsePosition reads a Last-Event-ID.
func parsePosition(s string) (position, error) {
	o, p, ok := strings.Cut(s, "-")
	offset, err1 := strconv.ParseUint(o, 10, 64)
	part, err2 := strconv.Atoi(p)
	if !ok || err1 != nil || err2 != nil || part < 0 {
		return position{}, fmt.Errorf("Last-Event-ID %q is not an id this stream sent (offset-part)", s)
	}
	return position{offset, part}, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "live: a stream is read with GET", http.StatusMethodNotAllowed)
		return
	}
	stream := h.opts.Stream(r)
	if stream == "" {
		http.Error(w, "live: the request names no stream", http.StatusBadRequest)
		return
	}
	if err := h.opts.Authorize(r, stream); err != nil {
		http.Error(w, "live: not allowed to watch this stream", http.StatusForbidden)
		return
	}
	var resume position
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = r.URL.Query().Get(LastEventIDParam)
	}
	if id != "" {
		var err error
		if resume, err = parsePosition(id); err != nil {
			http.Error(w, "live: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "live: the response cannot be streamed", http.StatusInternalServerError)
		return
	}
	sub, err := h.hub.Subscribe(r.Context(), stream)
	if err != nil {
		http.Error(w, "live: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set(UIMessageStreamHeader, UIMessageStreamV1)
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	t := newTranslator(stream)
	if resume.offset > 0 && resume.offset <= sub.Exact {
		// The hub no longer holds the events after the resume point as
		// sent: the message starts over, and says so first.
		t.resync = true
		resume = position{}
	}
	for e := range sub.Events {
		parts := t.parts(e)
		for i, part := range parts {
			pos := position{e.Offset, i}
			if resume.offset > 0 && !pos.after(resume) {
				continue
			}
			b, err := json.Marshal(part)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "id: %s\ndata: %s\n\n", pos, b); err != nil {
				return
			}
			if part["type"] == "finish" {
				fmt.Fprint(w, "data: [DONE]\n\n")
				flusher.Flush()
				return
			}
		}
		flusher.Flush()
	}
}

// part is one JSON part of the UI message stream.
type part map[string]any

// translator turns a stream's events into UI message stream parts, the
// same parts for the same events: a resume replays the stream through a
// fresh translator and sends the parts after its Last-Event-ID.
type translator struct {
	stream  string
	started bool
	resync  bool
	calls   map[string]*textCall
	tools   map[string]bool
	// ended are the calls whose final was sent: text after it is stale,
	// whatever hub delivered it.
	ended map[string]bool
}

// textCall is a MODEL call's attempt as sent: its text part (and reasoning
// part) open or not, and the text sent in it.
type textCall struct {
	attempt           int
	textOpen, reaOpen bool
	text              strings.Builder
}

func newTranslator(stream string) *translator {
	return &translator{stream: stream, calls: map[string]*textCall{}, tools: map[string]bool{}, ended: map[string]bool{}}
}

// partID names the text part of a call's attempt.
func partID(e Event, attempt int) string {
	return e.key() + "/a" + strconv.Itoa(attempt)
}

// superseded is the provider metadata of a text part a screen drops: its
// attempt died, or the call's result differs from it.
var superseded = map[string]any{MetadataKey: map[string]any{"superseded": true}}

// parts are the parts of e: a message's first part starts it.
func (t *translator) parts(e Event) []part {
	body := t.body(e)
	if len(body) == 0 || t.started {
		if n := len(body); n > 0 && body[n-1]["type"] == "finish" {
			// The next event starts the next message.
			t.started = false
		}
		return body
	}
	t.started = true
	out := []part{{"type": "start", "messageId": t.stream + "/" + e.ID}}
	if t.resync {
		t.resync = false
		out = append(out, part{"type": PartResync, "data": map[string]any{"stream": t.stream}, "transient": true})
	}
	if n := len(body); body[n-1]["type"] == "finish" {
		t.started = false
	}
	return append(out, body...)
}

// body are the parts that say e.
func (t *translator) body(e Event) []part {
	var out []part
	model := e.Class == temporaladk.Model
	if (e.Kind == Reset || e.Kind == Delta) && t.ended[e.key()] {
		return out
	}
	switch e.Kind {
	case Planned:
		if !model {
			t.tools[e.key()] = true
			out = append(out, part{"type": "tool-input-available", "toolCallId": e.key(), "toolName": e.ActivityType, "input": nil})
		}
	case Reset:
		c := t.calls[e.key()]
		if c != nil && c.attempt < e.Attempt {
			out = append(out, t.close(e, c, true)...)
			out = append(out, part{"type": PartReset, "id": e.key(), "data": map[string]any{"call": e.key(), "attempt": e.Attempt}})
		}
		if c == nil || c.attempt < e.Attempt {
			t.calls[e.key()] = &textCall{attempt: e.Attempt}
		}
	case Delta:
		c := t.calls[e.key()]
		if c == nil {
			c = &textCall{attempt: e.Attempt}
			t.calls[e.key()] = c
		}
		if c.attempt != e.Attempt {
			return out
		}
		id := partID(e, c.attempt)
		if e.TextKind == providers.Reasoning {
			if !c.reaOpen {
				c.reaOpen = true
				out = append(out, part{"type": "reasoning-start", "id": id + "/reasoning"})
			}
			return append(out, part{"type": "reasoning-delta", "id": id + "/reasoning", "delta": e.Text})
		}
		if !c.textOpen {
			c.textOpen = true
			out = append(out, part{"type": "text-start", "id": id})
		}
		c.text.WriteString(e.Text)
		out = append(out, part{"type": "text-delta", "id": id, "delta": e.Text})
	case Final:
		if t.ended[e.key()] {
			return out
		}
		t.ended[e.key()] = true
		out = append(out, t.final(e, model)...)
	case ApprovalAsked, ApprovalDecided:
		var d struct {
			Approval string `json:"approval"`
		}
		_ = json.Unmarshal(e.Data, &d)
		out = append(out, part{"type": PartApproval, "id": e.RunID + "/" + d.Approval, "data": e.Data})
	case Charged:
		out = append(out, part{"type": PartBudget, "id": e.ID, "data": e.Data})
	}
	return out
}

// close ends the parts open for c; dropped marks its text superseded.
func (t *translator) close(e Event, c *textCall, dropped bool) []part {
	var out []part
	id := partID(e, c.attempt)
	if c.reaOpen {
		c.reaOpen = false
		out = append(out, part{"type": "reasoning-end", "id": id + "/reasoning"})
	}
	if c.textOpen {
		c.textOpen = false
		end := part{"type": "text-end", "id": id}
		if dropped {
			end["providerMetadata"] = superseded
		}
		out = append(out, end)
	}
	return out
}

// final ends a call on what history recorded: a MODEL call's text part is
// completed to its result (or, where it differs, superseded by a part that
// holds it), and the message finishes; a tool's output is given.
func (t *translator) final(e Event, model bool) []part {
	var out []part
	if !model {
		if !t.tools[e.key()] {
			return nil
		}
		delete(t.tools, e.key())
		if e.Outcome != observe.CallCompleted {
			return []part{{"type": "tool-output-error", "toolCallId": e.key(), "errorText": "the call " + string(e.Outcome) + ": " + e.ErrorType}}
		}
		var output any
		if len(e.Output) > 0 {
			output = e.Output
		}
		return []part{{"type": "tool-output-available", "toolCallId": e.key(), "output": output}}
	}
	c := t.calls[e.key()]
	if c == nil {
		c = &textCall{attempt: 1}
	}
	delete(t.calls, e.key())
	result, isText := replyText(e.Output)
	if e.Outcome != observe.CallCompleted || !isText {
		// No text recorded: what streamed was not the reply.
		out = append(out, t.close(e, c, true)...)
		out = append(out, part{"type": PartFinal, "id": e.key(), "data": map[string]any{"call": e.key(), "outcome": e.Outcome, "errorType": e.ErrorType}})
		if e.Outcome != observe.CallCompleted {
			return out
		}
		return append(out, part{"type": "finish"})
	}
	id := partID(e, c.attempt)
	sent := c.text.String()
	if c.textOpen && !strings.HasPrefix(result, sent) {
		out = append(out, t.close(e, c, true)...)
		id += "/final"
	}
	if !c.textOpen {
		out = append(out, part{"type": "text-start", "id": id})
		sent = ""
	}
	if rest := result[len(sent):]; rest != "" {
		out = append(out, part{"type": "text-delta", "id": id, "delta": rest})
	}
	c.textOpen = true
	closing := t.close(e, c, false)
	if len(closing) > 0 {
		closing[len(closing)-1]["id"] = id
	}
	out = append(out, closing...)
	return append(out, part{"type": "finish"})
}

// replyText is the reply a MODEL call's recorded result holds: the result
// itself when it is a JSON string, or its "text" field when it is an
// object with a string there (contrib/openai's and contrib/anthropic's
// Result, a provider activity's own result shaped like them); false for
// anything else.
func replyText(output json.RawMessage) (string, bool) {
	var text string
	if json.Unmarshal(output, &text) == nil {
		return text, true
	}
	var result struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(output, &result) != nil || result.Text == nil {
		return "", false
	}
	return *result.Text, true
}
