// Package chat is the samples' streaming client for OpenAI-compatible chat
// endpoints (POST /v1/chat/completions with "stream": true). It runs inside
// an activity: every streamed chunk is counted on the kit's heartbeater, and
// every failure is classified into the kit's errors with
// providers.ClassifyHTTP, so the retries follow what the failure was.
//
//	reply, err := chat.Client{BaseURL: url}.Complete(ctx, chat.Request{Messages: msgs})
package chat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion.
type Request struct {
	// Messages are the conversation so far.
	Messages []Message
	// Call names the logical call (the same for every attempt); the stand-in
	// uses it to fault only the first attempts. If empty, no fault applies.
	Call string
	// Fault is the fault to ask the stand-in for (see package standin); a
	// real provider ignores it. If empty, none.
	Fault string
}

// Reply is a completed stream.
type Reply struct {
	Text   string `json:"text"`
	Tokens int64  `json:"tokens"`
	Chunks int64  `json:"chunks"`
	// Beats is how many heartbeats the kit's heartbeater sent during this
	// attempt, including those sent while no token came.
	Beats int64 `json:"beats"`
	// FirstToken is how long the first token took.
	FirstToken time.Duration `json:"first_token"`
}

// Client calls one endpoint.
type Client struct {
	// BaseURL is the endpoint's base, without /v1/chat/completions.
	// Required.
	BaseURL string
	// APIKey, if not empty, is sent as a bearer token.
	APIKey string
	// Model is the model name sent. If empty, "standin".
	Model string
	// Provider names the provider in the kit's errors. If empty, "standin".
	Provider string
	// HTTP is the HTTP client. If nil, a client without a timeout of its own:
	// the activity's context bounds the call.
	HTTP *http.Client
	// Now is the clock Retry-After dates are read against. If nil, time.Now.
	Now func() time.Time
}

// Complete streams one completion. Failures are the kit's errors:
// a 503 a retryable *temporaladk.ProviderError, a 429 a
// *temporaladk.RateLimitError with the Retry-After, a stream cut short a
// *temporaladk.ProviderUnavailableError.
func (c Client) Complete(ctx context.Context, req Request) (Reply, error) {
	provider, model, now, hc := c.Provider, c.Model, c.Now, c.HTTP
	if provider == "" {
		provider = "standin"
	}
	if model == "" {
		model = "standin"
	}
	if now == nil {
		now = time.Now
	}
	if hc == nil {
		hc = &http.Client{}
	}
	body, err := json.Marshal(map[string]any{"model": model, "messages": req.Messages, "stream": true})
	if err != nil {
		return Reply{}, fmt.Errorf("chat: encoding the request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Reply{}, fmt.Errorf("chat: building the request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	if req.Fault != "" && req.Call != "" {
		hreq.Header.Set(standin.FaultHeader, req.Fault)
		hreq.Header.Set(standin.CallHeader, req.Call)
	}

	hb := temporaladk.HeartbeaterFrom(ctx)
	hb.SetStep("waiting for the first token")
	start := now()
	resp, err := hc.Do(hreq)
	if err != nil {
		return Reply{}, providers.ClassifyHTTP(provider, nil, err, now())
	}
	defer resp.Body.Close()
	if kerr := providers.ClassifyHTTP(provider, resp, nil, now()); kerr != nil {
		return Reply{}, kerr
	}

	var out Reply
	var text strings.Builder
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 64*1024), 1024*1024)
	done := false
	for scanner.Scan() {
		line := scanner.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments, event names, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int64 `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return Reply{}, &temporaladk.ProviderError{Provider: provider, Message: "a stream chunk is not JSON", Cause: err}
		}
		for _, choice := range chunk.Choices {
			if choice.Delta.Content == "" {
				continue
			}
			if out.Chunks == 0 {
				out.FirstToken = now().Sub(start)
				hb.SetStep("streaming")
			}
			text.WriteString(choice.Delta.Content)
			out.Chunks++
			out.Tokens++ // one token per chunk, unless the provider reports usage
			hb.Chunk(1)
		}
		if chunk.Usage != nil && chunk.Usage.CompletionTokens > 0 {
			out.Tokens = chunk.Usage.CompletionTokens
		}
	}
	if err := scanner.Err(); err != nil {
		return Reply{}, providers.ClassifyHTTP(provider, nil, err, now())
	}
	if !done {
		// The body ended cleanly but without [DONE]: the stream was cut.
		return Reply{}, providers.DroppedStream(provider, out.Chunks)
	}
	out.Text = text.String()
	out.Beats = hb.Beats()
	return out, nil
}
