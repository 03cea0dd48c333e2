package openai_test

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

// provider is a local stand-in for the OpenAI API that speaks its wire
// format: chat.completion.chunk events on text/event-stream ending with
// [DONE], and {"error": {...}} bodies with the provider's headers.
type provider struct {
	srv      *httptest.Server
	requests atomic.Int64
	// respond serves the n-th request (1 for the first).
	respond func(w http.ResponseWriter, r *http.Request, n int64)
}

func newProvider(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int64)) *provider {
	t.Helper()
	p := &provider{respond: respond}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.requests.Add(1)
		if r.URL.Path != "/chat/completions" || r.Method != http.MethodPost {
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

const streamID = "chatcmpl-A3Tguz3LSXTHBTY2NAPBCSyfBltxF"

// chunk is one chat.completion.chunk as OpenAI sends it.
func chunk(content, finish string) string {
	delta := map[string]any{"content": content}
	if content == "" && finish == "" {
		delta = map[string]any{"role": "assistant", "content": "", "refusal": nil}
	}
	var fin any
	if finish != "" {
		fin = finish
		delta = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{
		"id": streamID, "object": "chat.completion.chunk", "created": 1725392480,
		"model": "gpt-4o-2024-05-13", "system_fingerprint": "fp_157b3831f5",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": fin}},
		"usage":   nil,
	})
	return string(b)
}

func usageChunk(prompt, completion int) string {
	b, _ := json.Marshal(map[string]any{
		"id": streamID, "object": "chat.completion.chunk", "created": 1725392480,
		"model": "gpt-4o-2024-05-13", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
	return string(b)
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("x-request-id", "req_test")
	w.WriteHeader(http.StatusOK)
}

// streamOf writes a whole completion of n content chunks: the role chunk,
// the content, the finish, the usage and [DONE]. pace is called after each
// content chunk.
func streamOf(w http.ResponseWriter, n int, word, finish string, pace func(i int)) {
	sseHeaders(w)
	fl := w.(http.Flusher)
	fmt.Fprintf(w, "data: %s\n\n", chunk("", ""))
	for i := range n {
		fmt.Fprintf(w, "data: %s\n\n", chunk(word, ""))
		if pace != nil {
			pace(i)
		}
		if i%500 == 0 {
			fl.Flush()
		}
	}
	fmt.Fprintf(w, "data: %s\n\n", chunk("", finish))
	fmt.Fprintf(w, "data: %s\n\n", usageChunk(9, n))
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// apiError writes an error response as OpenAI does.
func apiError(w http.ResponseWriter, status int, errType, code, message string, headers map[string]string) {
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var c any
	if code != "" {
		c = code
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": errType, "param": nil, "code": c}})
}

// hijack takes the connection away from the server, for failures HTTP
// cannot express.
func hijack(t *testing.T, w http.ResponseWriter) net.Conn {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	return conn
}

// dropMidStream sends the headers and a few chunks with chunked encoding,
// then closes the connection without the final chunk.
func dropMidStream(t *testing.T, w http.ResponseWriter, chunks int) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	defer conn.Close()
	var body strings.Builder
	body.WriteString("data: " + chunk("", "") + "\n\n")
	for range chunks {
		body.WriteString("data: " + chunk("half", "") + "\n\n")
	}
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", body.Len(), body.String())
}

// reset answers with a TCP reset.
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

// silent sends the headers and then nothing until the client gives up.
func silent(w http.ResponseWriter, r *http.Request) {
	sseHeaders(w)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// refusedAddress is a loopback address nothing listens on.
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
