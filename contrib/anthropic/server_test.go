package anthropic_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/temporaladk/adk-go/providers/providertest"
)

// The stand-in speaks the Anthropic Messages API's wire format: named SSE
// events (message_start, content_block_*, ping, message_delta, message_stop,
// error) and {"type":"error","error":{...}} bodies with the provider's
// headers.

func newProvider(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int64)) *providertest.Server {
	return providertest.NewServer(t, "/v1/messages", respond)
}

func event(name string, data any) string {
	b, _ := json.Marshal(data)
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

func messageStart() string {
	return messageStartUsage(map[string]any{"input_tokens": 25, "output_tokens": 1})
}

// messageStartUsage is message_start with the given usage object.
func messageStartUsage(usage map[string]any) string {
	return event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": []any{},
		"model": "claude-sonnet-4-5", "stop_reason": nil, "stop_sequence": nil,
		"usage": usage,
	}})
}

func textDelta(text string) string {
	return event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
	w.WriteHeader(http.StatusOK)
}

// streamOf writes a whole message of n text deltas. pace is called after
// each delta.
func streamOf(w http.ResponseWriter, n int, word, stopReason string, pace func(i int)) {
	sseHeaders(w)
	fl := w.(http.Flusher)
	io.WriteString(w, messageStart())
	io.WriteString(w, event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}))
	io.WriteString(w, event("ping", map[string]any{"type": "ping"}))
	for i := range n {
		io.WriteString(w, textDelta(word))
		if pace != nil {
			pace(i)
		}
		if i%500 == 0 {
			fl.Flush()
		}
	}
	io.WriteString(w, event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}))
	io.WriteString(w, event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": n}}))
	io.WriteString(w, event("message_stop", map[string]any{"type": "message_stop"}))
	fl.Flush()
}

// apiError writes an error response as Anthropic does.
func apiError(w http.ResponseWriter, status int, errType, message string, headers map[string]string) {
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": message}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"})
}

// droppedWord is the text of each delta dropMidStream sends.
const droppedWord = "half"

// dropMidStream sends message_start and a few deltas, then loses the
// connection.
func dropMidStream(t *testing.T, w http.ResponseWriter, deltas int) {
	var body strings.Builder
	body.WriteString(messageStart())
	for range deltas {
		body.WriteString(textDelta(droppedWord))
	}
	providertest.DropMidStream(t, w, body.String())
}

// silentPreamble is what a stream that never gets to its first token sends.
func silentPreamble() string {
	return messageStart() + event("ping", map[string]any{"type": "ping"})
}

// scriptedDelta is one content_block_delta of a scripted stream: its type
// (text_delta, thinking_delta or signature_delta) and what it carries.
type scriptedDelta struct {
	kind  string
	value string
}

// blockOf is the type of the content block a delta of kind belongs to.
func blockOf(kind string) string {
	if kind == "text_delta" {
		return "text"
	}
	return "thinking"
}

// streamScript writes a whole message of script, one event per delta,
// flushed one by one as the API sends them: a content block opens where the
// kind of block changes (thinking, then text, as extended thinking streams),
// and the message ends with end_turn.
func streamScript(w http.ResponseWriter, script []scriptedDelta) {
	sseHeaders(w)
	fl := w.(http.Flusher)
	io.WriteString(w, messageStart())
	index, open := -1, ""
	for _, d := range script {
		if block := blockOf(d.kind); block != open {
			if open != "" {
				io.WriteString(w, event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
			}
			index, open = index+1, block
			start := map[string]any{"type": "text", "text": ""}
			if block == "thinking" {
				start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			}
			io.WriteString(w, event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}))
		}
		field := map[string]string{"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}[d.kind]
		io.WriteString(w, event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": d.kind, field: d.value}}))
		fl.Flush()
	}
	if open != "" {
		io.WriteString(w, event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
	}
	io.WriteString(w, event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": len(script)}}))
	io.WriteString(w, event("message_stop", map[string]any{"type": "message_stop"}))
	fl.Flush()
}
