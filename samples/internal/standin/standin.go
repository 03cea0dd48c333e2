// Package standin is a stand-in model provider for the samples: an HTTP
// server on 127.0.0.1 that answers OpenAI-compatible streaming chat requests
// (POST /v1/chat/completions with "stream": true, server-sent events) and
// injects faults on demand.
//
// A request asks for a fault with two headers: FaultHeader names it and
// CallHeader names the logical call, so that the fault hits the call's first
// attempts only and a retry gets through:
//
//	X-Standin-Fault: 503            the first request of the call gets 503
//	X-Standin-Fault: 503x2          the first two requests get 503
//	X-Standin-Fault: 429=2s         429 with Retry-After: 2
//	X-Standin-Fault: stall=5s       headers at once, then 5s before the first token
//	X-Standin-Fault: drop           a few tokens, then the connection is cut
//
// A real provider ignores these headers, so the same client works against
// any compatible endpoint.
package standin

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The headers a request asks for a fault with.
const (
	// FaultHeader names the fault, see the package doc.
	FaultHeader = "X-Standin-Fault"
	// CallHeader names the logical call the fault belongs to: every attempt
	// of one call sends the same value.
	CallHeader = "X-Standin-Call"
)

// Fault is a fault the stand-in injects into the first Times requests of a
// call.
type Fault struct {
	// Kind is "503", "429", "stall" or "drop".
	Kind string
	// Times is how many requests of the call get the fault. If 0, one.
	Times int
	// Wait is the Retry-After of a 429 or the length of a stall.
	Wait time.Duration
}

// String returns the header form of f ("429=2s", "503x2").
func (f Fault) String() string {
	if f.Kind == "" {
		return ""
	}
	s := f.Kind
	if f.Times > 1 {
		s += "x" + strconv.Itoa(f.Times)
	}
	if f.Wait > 0 {
		s += "=" + f.Wait.String()
	}
	return s
}

// ParseFault reads the header form of a fault. An empty value is no fault.
func ParseFault(value string) (Fault, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return Fault{}, nil
	}
	var f Fault
	spec, wait, hasWait := strings.Cut(value, "=")
	if hasWait {
		d, err := time.ParseDuration(wait)
		if err != nil || d < 0 {
			return Fault{}, fmt.Errorf("standin: fault %q: %q is not a duration", value, wait)
		}
		f.Wait = d
	}
	kind, times, hasTimes := strings.Cut(spec, "x")
	f.Kind = kind
	if hasTimes {
		n, err := strconv.Atoi(times)
		if err != nil || n < 1 {
			return Fault{}, fmt.Errorf("standin: fault %q: %q is not a count of at least 1", value, times)
		}
		f.Times = n
	}
	switch f.Kind {
	case "503", "drop":
	case "429", "stall":
		if f.Wait == 0 {
			return Fault{}, fmt.Errorf("standin: fault %q needs a duration (%s=2s)", value, f.Kind)
		}
	default:
		return Fault{}, fmt.Errorf("standin: unknown fault %q: want 503, 429=<d>, stall=<d> or drop", value)
	}
	return f, nil
}

// Options configure a Server.
type Options struct {
	// TokenDelay is the pause between two streamed tokens. If 0, 5ms.
	TokenDelay time.Duration
}

// Server is a running stand-in provider. Its methods are safe for concurrent
// use.
type Server struct {
	opts     Options
	srv      *http.Server
	listener net.Listener

	mu    sync.Mutex
	calls map[string]int // requests seen per call
	total int
}

// Start starts a stand-in on a free port of 127.0.0.1. Stop it with Close.
func Start(opts Options) (*Server, error) {
	if opts.TokenDelay == 0 {
		opts.TokenDelay = 5 * time.Millisecond
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("standin: listening on 127.0.0.1: %w", err)
	}
	s := &Server{opts: opts, listener: l, calls: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// URL is the server's base URL ("http://127.0.0.1:PORT"); the chat endpoint is
// URL + "/v1/chat/completions".
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Close stops the server and cuts open streams.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns how many chat requests the server received in all.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// RequestsFor returns how many requests the server received for calls whose
// CallHeader starts with prefix.
func (s *Server) RequestsFor(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for call, c := range s.calls {
		if strings.HasPrefix(call, prefix) {
			n += c
		}
	}
	return n
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type request struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Stream   bool      `json:"stream"`
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "body is not a chat request: "+err.Error())
		return
	}
	fault, err := ParseFault(r.Header.Get(FaultHeader))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	call := r.Header.Get(CallHeader)
	s.mu.Lock()
	s.total++
	s.calls[call]++
	seen := s.calls[call]
	s.mu.Unlock()
	if call == "" || seen > max(fault.Times, 1) {
		fault = Fault{}
	}

	switch fault.Kind {
	case "503":
		writeError(w, http.StatusServiceUnavailable, "server_error", "the stand-in is overloaded (injected 503)")
		return
	case "429":
		w.Header().Set("Retry-After", strconv.Itoa(int((fault.Wait+time.Second-1)/time.Second)))
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "slow down (injected 429)")
		return
	}
	if !req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the stand-in only streams: set \"stream\": true")
		return
	}

	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	if fault.Kind == "stall" {
		select {
		case <-time.After(fault.Wait):
		case <-r.Context().Done():
			return
		}
	}
	words := strings.Fields(reply(req.Messages))
	model := req.Model
	if model == "" {
		model = "standin"
	}
	for i, word := range words {
		if fault.Kind == "drop" && i == len(words)/2 {
			// Cut the connection mid-stream, as a provider's proxy does:
			// the client reads an unexpected EOF.
			panic(http.ErrAbortHandler)
		}
		if i > 0 {
			word = " " + word
		}
		if err := writeChunk(w, model, map[string]any{"content": word}, nil); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-time.After(s.opts.TokenDelay):
		case <-r.Context().Done():
			return
		}
	}
	stop := "stop"
	_ = writeChunk(w, model, map[string]any{}, &stop)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func writeChunk(w http.ResponseWriter, model string, delta map[string]any, finish *string) error {
	chunk := map[string]any{
		"id":      "chatcmpl-standin",
		"object":  "chat.completion.chunk",
		"model":   model,
		"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "data: %s\n\n", b)
	return err
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": kind}})
}

// reply is what the stand-in says: a deterministic answer built from the
// last user message, marked as the stand-in's, so nobody takes it for a
// model's.
func reply(msgs []message) string {
	var last string
	for _, m := range msgs {
		if m.Role == "user" {
			last = m.Content
		}
	}
	words := strings.Fields(last)
	if len(words) > 12 {
		words = append(words[:12], "…")
	}
	return "[stand-in model] You asked: " + strings.Join(words, " ") +
		" Here is a short answer streamed one word at a time, so the caller can count tokens and heartbeat while it reads."
}
