// Package providertest is a test kit for provider activities, as
// net/http/httptest is for handlers: a local stand-in for a provider's API
// that counts requests, the transport failures HTTP cannot express (a
// stream dropped mid-way, a reset, a silent stream, a refused port), the
// check of the kit error a failure maps to, and a Harness that runs a model
// activity on a real Temporal dev server with the kit. The wire formats stay
// in each provider's tests: this package knows none.
//
//	srv := providertest.NewServer(t, "/chat/completions", func(w http.ResponseWriter, r *http.Request, n int64) {
//		providertest.Reset(t, w) // every request gets a TCP reset
//	})
//	_, err := myModel(srv.URL()).Chat(ctx, req)
//	providertest.AssertKitError(t, err, "acme", prompt, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})
package providertest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/temporaladk"
)

// Server is a local stand-in for a provider's API.
type Server struct {
	srv      *httptest.Server
	requests atomic.Int64
	last     atomic.Pointer[[]byte]
}

// NewServer starts a stand-in that serves POST path with respond (n is the
// request's number, 1 for the first; the request body is read before respond
// is called, and kept until the next request: LastBody) and answers
// anything else 404. It stops with the test.
func NewServer(t testing.TB, path string, respond func(w http.ResponseWriter, r *http.Request, n int64)) *Server {
	t.Helper()
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		if r.URL.Path != path || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.last.Store(&body)
		respond(w, r, n)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// LastBody is the body of the last request the stand-in served, or nil.
func (s *Server) LastBody() []byte {
	if b := s.last.Load(); b != nil {
		return *b
	}
	return nil
}

// URL is the stand-in's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Requests is how many HTTP requests the stand-in received.
func (s *Server) Requests() int64 { return s.requests.Load() }

func hijack(t testing.TB, w http.ResponseWriter) net.Conn {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	return conn
}

// DropMidStream answers 200 text/event-stream with body in one chunk of
// chunked encoding, then closes the connection without the final chunk: a
// stream lost mid-way.
func DropMidStream(t testing.TB, w http.ResponseWriter, body string) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(body), body)
}

// Reset answers with a TCP reset.
func Reset(t testing.TB, w http.ResponseWriter) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// Silent answers 200 text/event-stream with preamble (events that carry no
// token) and then nothing until the client gives up.
func Silent(w http.ResponseWriter, r *http.Request, preamble string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, preamble)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// RefusedURL is an http URL of a loopback port nothing listens on.
func RefusedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

// Want is the kit error a failure must map to.
type Want struct {
	// Type is a temporaladk Type constant (temporaladk.TypeRateLimit, ...).
	Type string
	// Status is a *temporaladk.ProviderError's StatusCode; 0 for none.
	Status int
	// RetryAfter is the wait a *temporaladk.ProviderError or
	// *temporaladk.RateLimitError carries; 0 for none.
	RetryAfter time.Duration
	// Quota is a *temporaladk.RateLimitError's Quota.
	Quota bool
	// Retryable is what the error's Retryable reports.
	Retryable bool
	// Says is a part of the error's message; if empty, not checked.
	Says string
}

// AssertKitError checks that err is the kit error w describes, from
// provider, and that it does not carry prompt (the request's text).
func AssertKitError(t testing.TB, err error, provider, prompt string, w Want) {
	t.Helper()
	kit, ok := temporaladk.AsError(err)
	require.True(t, ok, "a kit error, got %T: %v", err, err)
	assert.Equal(t, w.Type, kit.Type(), "%v", err)
	assert.Equal(t, w.Retryable, kit.Retryable(), "retryable: %v", err)
	var pe *temporaladk.ProviderError
	if errors.As(err, &pe) {
		assert.Equal(t, w.Status, pe.StatusCode)
		assert.Equal(t, w.RetryAfter, pe.RetryAfter)
		assert.Equal(t, provider, pe.Provider)
	}
	var rl *temporaladk.RateLimitError
	if errors.As(err, &rl) {
		assert.Equal(t, w.RetryAfter, rl.RetryAfter)
		assert.Equal(t, w.Quota, rl.Quota)
	}
	if w.Says != "" {
		assert.Contains(t, err.Error(), w.Says)
	}
	assert.NotContains(t, err.Error(), prompt, "the prompt is never in the error")
}
