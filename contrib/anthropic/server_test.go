package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// provider is a local stand-in for the Anthropic Messages API that speaks
// its wire format: named SSE events (message_start, content_block_*, ping,
// message_delta, message_stop, error) and {"type":"error","error":{...}}
// bodies with the provider's headers.
type provider struct {
	srv      *httptest.Server
	requests atomic.Int64
	respond  func(w http.ResponseWriter, r *http.Request, n int64)
}

func newProvider(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int64)) *provider {
	t.Helper()
	p := &provider{respond: respond}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.requests.Add(1)
		if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		p.respond(w, r, n)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) URL() string { return p.srv.URL }

func event(name string, data any) string {
	b, _ := json.Marshal(data)
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

func messageStart() string {
	return event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": []any{},
		"model": "claude-sonnet-4-5", "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 25, "output_tokens": 1},
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

func hijack(t *testing.T, w http.ResponseWriter) net.Conn {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	return conn
}

// dropMidStream sends the headers and the first events with chunked
// encoding, then closes the connection without the final chunk.
func dropMidStream(t *testing.T, w http.ResponseWriter, deltas int) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	defer conn.Close()
	var body strings.Builder
	body.WriteString(messageStart())
	for range deltas {
		body.WriteString(textDelta("half"))
	}
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", body.Len(), body.String())
}

func reset(t *testing.T, w http.ResponseWriter) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// silent sends the headers, message_start and pings, and then nothing until
// the client gives up: no token.
func silent(w http.ResponseWriter, r *http.Request) {
	sseHeaders(w)
	io.WriteString(w, messageStart())
	io.WriteString(w, event("ping", map[string]any{"type": "ping"}))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func refusedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}
