package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
)

// Message is a chat message as model APIs take them.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Input is the conversation's plan, and where the run before left it.
type Input struct {
	Turns            int
	ToolBytes        int
	HistoryByteLimit int
	Done             int
	// Conversation is the conversation so far, by reference: the store holds
	// its messages, the input their hash.
	Conversation *conversation.Log[Message]
}

// Result is what the conversation did.
type Result struct {
	Turns, Messages int
	Bytes           int64
}

// Agent is a research agent on a stateless model: every turn the model gets
// the whole conversation, asks for a web search, and the search's results
// (ToolBytes of them) and the model's answer are appended. The conversation
// is a conversation.Log: each model call's input is the hash of what the
// store holds, so a turn costs what it adds, at turn 1 and at turn 1,000.
func Agent(ctx workflow.Context, in Input) (Result, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	ctx, err := conversation.WithHistoryByteLimit(ctx, in.HistoryByteLimit)
	if err != nil {
		return Result{}, err
	}
	conv := in.Conversation
	if conv == nil {
		conv = conversation.NewLog[Message]()
		if err := conv.Append(ctx,
			Message{Role: "system", Content: "You are a research assistant. Search the web, then answer with sources."},
			Message{Role: "user", Content: "Keep a running survey of durable execution for AI agents; one finding per turn."},
		); err != nil {
			return Result{}, err
		}
	}
	for turn := in.Done; turn < in.Turns; turn++ {
		var call Message
		if err := workflow.ExecuteActivity(ctx, Plan, conv).Get(ctx, &call); err != nil {
			return Result{}, err
		}
		var results string
		if err := workflow.ExecuteActivity(ctx, WebSearch, call.ToolCalls[0], in.ToolBytes).Get(ctx, &results); err != nil {
			return Result{}, err
		}
		if err := conv.Append(ctx, call, Message{Role: "tool", ToolCallID: call.ToolCalls[0].ID, Content: results}); err != nil {
			return Result{}, err
		}
		var answer Message
		if err := workflow.ExecuteActivity(ctx, Answer, conv).Get(ctx, &answer); err != nil {
			return Result{}, err
		}
		if err := conv.Append(ctx, answer); err != nil {
			return Result{}, err
		}
		if turn+1 < in.Turns && conversation.ShouldContinueAsNew(ctx) {
			next := in
			next.Done, next.Conversation = turn+1, conv
			return Result{}, workflow.NewContinueAsNewError(ctx, Agent, next)
		}
	}
	return Result{Turns: in.Turns, Messages: conv.Len(), Bytes: conv.Bytes()}, nil
}

// Plan is the model's first step of a turn: it reads the conversation and
// calls the search tool.
func Plan(ctx context.Context, conv *conversation.Log[Message]) (Message, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return Message{}, err
	}
	turn := 0
	for _, m := range msgs {
		if m.Role == "tool" {
			turn++
		}
	}
	args, _ := json.Marshal(map[string]string{"query": fmt.Sprintf("durable execution agents finding %d", turn+1)})
	return Message{Role: "assistant", ToolCalls: []ToolCall{{ID: fmt.Sprintf("call_%d", turn+1), Name: "web_search", Arguments: string(args)}}}, nil
}

// searchResult is one hit of WebSearch.
type searchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// WebSearch returns about size bytes of JSON results, different every call.
func WebSearch(_ context.Context, call ToolCall, size int) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(call.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), 17))
	words := strings.Fields("durable execution workflow history replay activity retry timeout agent model tool conversation payload storage chunk claim worker fleet namespace retention deterministic event sourcing")
	var results []searchResult
	n := 0
	for n < size {
		var b strings.Builder
		for b.Len() < 400 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		r := searchResult{
			Title:   fmt.Sprintf("%s and %s in practice", words[rng.IntN(len(words))], words[rng.IntN(len(words))]),
			URL:     fmt.Sprintf("https://example.org/%s/%d", call.ID, len(results)),
			Snippet: b.String(),
		}
		results = append(results, r)
		n += len(r.Title) + len(r.URL) + len(r.Snippet) + 40
	}
	data, err := json.Marshal(results)
	return string(data), err
}

// Answer is the model's reply: short next to what it read.
func Answer(ctx context.Context, conv *conversation.Log[Message]) (Message, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return Message{}, err
	}
	read := 0
	for _, m := range msgs {
		read += len(m.Content)
	}
	last := msgs[len(msgs)-1]
	var results []searchResult
	if err := json.Unmarshal([]byte(last.Content), &results); err != nil || len(results) == 0 {
		return Message{}, fmt.Errorf("the last message is not search results: %v", err)
	}
	return Message{Role: "assistant", Content: fmt.Sprintf("Finding %s: %q (%s). I have read %d messages, %d characters.",
		last.ToolCallID, results[0].Title, results[0].URL, len(msgs), read)}, nil
}
