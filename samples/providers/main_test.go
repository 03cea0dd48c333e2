package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/mcp"
	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

func TestBadFlagsAreClearErrors(t *testing.T) {
	t.Parallel()
	noKeys := func(string) string { return "" }
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"-provider", "gemini"}, `-provider "gemini" is not one of standin, openai, anthropic`},
		{[]string{"-provider", "openai"}, "needs an API key in OPENAI_API_KEY"},
		{[]string{"-provider", "anthropic"}, "needs an API key in ANTHROPIC_API_KEY"},
		{[]string{"-model", "gpt-4o"}, "the stand-in needs neither"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nope"}, "flag provided but not defined"},
	} {
		var stderr bytes.Buffer
		assert.Equal(t, 2, run(tt.args, io.Discard, &stderr, noKeys), tt.args)
		assert.Contains(t, stderr.String(), tt.says, tt.args)
	}
}

func TestFlagDefaults(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil, io.Discard, func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, "standin", o.provider, "the stand-in is the default: no network")
	assert.True(t, o.mcp)
	o, err = parseFlags([]string{"-provider", "anthropic"}, io.Discard, func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "k"}[k] })
	require.NoError(t, err)
	assert.Equal(t, defaultModels["anthropic"], o.model)
	assert.Equal(t, "k", o.apiKey)
}

// standIn is a local server speaking one provider's streaming wire format,
// answering every request with the same short reply.
type standIn struct {
	srv      *httptest.Server
	requests atomic.Int64
}

const reply = "Your bag stays checked through."

func newStandIn(t *testing.T, provider string) *standIn {
	t.Helper()
	s := &standIn{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		words := strings.SplitAfter(reply, " ")
		data := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		switch provider {
		case "openai":
			chunk := func(delta map[string]any, finish any) string {
				return "data: " + data(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1725392480, "model": "gpt-4o-mini",
					"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}) + "\n\n"
			}
			io.WriteString(w, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
			for _, word := range words {
				io.WriteString(w, chunk(map[string]any{"content": word}, nil))
			}
			io.WriteString(w, chunk(map[string]any{}, "stop"))
			io.WriteString(w, "data: [DONE]\n\n")
		case "anthropic":
			event := func(name string, v any) string { return "event: " + name + "\ndata: " + data(v) + "\n\n" }
			io.WriteString(w, event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
				"content": []any{}, "model": "claude-sonnet-4-5", "stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}))
			for _, word := range words {
				io.WriteString(w, event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": word}}))
			}
			io.WriteString(w, event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": len(words)}}))
			io.WriteString(w, event("message_stop", map[string]any{"type": "message_stop"}))
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// The sample, with each provider's SDK against a local stand-in of its wire
// format and the in-process MCP server, on one dev server (the runs share
// the sample's task queue, so they run one after the other).
func TestIntegrationProvidersAndMCP(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			stand := newStandIn(t, provider)
			baseURL := stand.srv.URL
			if provider == "anthropic" {
				baseURL += "/" // the SDK joins "v1/messages"
			}
			o := options{provider: provider, model: defaultModels[provider], baseURL: baseURL, apiKey: "test-key", mcp: true,
				address: srv.Address(), namespace: srv.Namespace(), data: t.TempDir()}
			var out bytes.Buffer
			report, err := runAgent(context.Background(), o, &out, io.Discard)
			require.NoError(t, err, "%s", out.String())

			assert.Equal(t, reply, report.Result.Answer, "the answer came through the %s SDK", provider)
			chats := report.CallsOf("Chat")
			require.Len(t, chats, 4)
			for _, c := range chats {
				assert.Len(t, c.Attempts, 1, "%s: no fault, one attempt", c.Label)
			}
			assert.Equal(t, int64(len(chats)), stand.requests.Load(), "one HTTP request per MODEL call")

			assert.Contains(t, report.Result.ExternalTool, "23 kg", "the MCP tool's text reached the model's context")
			list := report.CallsOf(mcp.ListActivity(TravelServer))
			require.Len(t, list, 1, "the tools were listed once, in an activity")
			baggage := report.CallsOf(mcp.ToolActivity(TravelServer, "baggage_rules"))
			require.Len(t, baggage, 1)
			assert.Equal(t, "READ_ONLY", baggage[0].Idempotency, "declared from its readOnlyHint")
			assert.Contains(t, out.String(), fmt.Sprintf("external tool baggage_rules: %s", agent.DefaultInput().Flights[0]))
			assert.Empty(t, report.Failed())
		})
	}
}
