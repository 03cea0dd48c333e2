package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/temporaladk/adk-go/providers/providertest"
)

// The stand-in speaks OpenAI's wire format: chat.completion.chunk events on
// text/event-stream ending with [DONE], and {"error": {...}} bodies with the
// provider's headers.

func newProvider(t testing.TB, respond func(w http.ResponseWriter, r *http.Request, n int64)) *providertest.Server {
	return providertest.NewServer(t, "/chat/completions", respond)
}

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

// usageChunkCached is the usage chunk of a prompt that was partly read from
// OpenAI's prompt cache.
func usageChunkCached(prompt, completion, cached int) string {
	b, _ := json.Marshal(map[string]any{
		"id": streamID, "object": "chat.completion.chunk", "created": 1725392480,
		"model": "gpt-4o-2024-05-13", "choices": []any{},
		"usage": map[string]any{
			"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_tokens_details":     map[string]any{"cached_tokens": cached, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
		},
	})
	return string(b)
}

// streamWithUsage writes a completion of two content chunks, its finish and
// the given usage chunk.
func streamWithUsage(w http.ResponseWriter, finish, usage string) {
	sseHeaders(w)
	fmt.Fprintf(w, "data: %s\n\n", chunk("", ""))
	fmt.Fprintf(w, "data: %s\n\n", chunk("a", ""))
	fmt.Fprintf(w, "data: %s\n\n", chunk("b", ""))
	fmt.Fprintf(w, "data: %s\n\n", chunk("", finish))
	fmt.Fprintf(w, "data: %s\n\n", usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
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

// droppedWord is the content of each chunk dropMidStream sends.
const droppedWord = "half"

// dropMidStream sends the role chunk and a few content chunks, then loses
// the connection.
func dropMidStream(t *testing.T, w http.ResponseWriter, chunks int) {
	var body strings.Builder
	body.WriteString("data: " + chunk("", "") + "\n\n")
	for range chunks {
		body.WriteString("data: " + chunk(droppedWord, "") + "\n\n")
	}
	providertest.DropMidStream(t, w, body.String())
}

// scriptedDelta is one content delta of a scripted stream: the choice it
// belongs to and its content.
type scriptedDelta struct {
	choice  int
	content string
}

// choiceChunk is a chat.completion.chunk carrying one content delta of
// choice index.
func choiceChunk(index int, content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": streamID, "object": "chat.completion.chunk", "created": 1725392480,
		"model": "gpt-4o-2024-05-13", "system_fingerprint": "fp_157b3831f5",
		"choices": []any{map[string]any{"index": index, "delta": map[string]any{"content": content}, "logprobs": nil, "finish_reason": nil}},
		"usage":   nil,
	})
	return string(b)
}

// streamScript writes a whole completion of script, one chunk per delta,
// flushed one by one as a provider sends them: the role chunk, the deltas,
// a stop finish for choice 0, the usage and [DONE].
func streamScript(w http.ResponseWriter, script []scriptedDelta) {
	sseHeaders(w)
	fl := w.(http.Flusher)
	fmt.Fprintf(w, "data: %s\n\n", chunk("", ""))
	for _, d := range script {
		fmt.Fprintf(w, "data: %s\n\n", choiceChunk(d.choice, d.content))
		fl.Flush()
	}
	fmt.Fprintf(w, "data: %s\n\n", chunk("", "stop"))
	fmt.Fprintf(w, "data: %s\n\n", usageChunk(9, len(script)))
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}
