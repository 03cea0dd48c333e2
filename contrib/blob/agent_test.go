package blob_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
)

// Message is one message of a conversation, as an agent sends it to a model.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// AgentInput is how long the agent talks and how much its tool returns.
type AgentInput struct {
	Turns     int
	ToolBytes int
	// Name, in LogAgent's system message, makes a run's conversation its
	// own.
	Name string
	// ActivityQueue is the task queue of LogAgent's activities ("": the
	// workflow's).
	ActivityQueue string
}

// AgentResult is what the agent did.
type AgentResult struct {
	Turns             int
	ConversationBytes int
}

// Agent re-sends its whole conversation to the model every turn, as an agent
// on a stateless model does, and appends the tool's output and the reply.
func Agent(ctx workflow.Context, in AgentInput) (AgentResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	conv := []Message{{Role: "system", Content: "You are a research agent. Call the search tool, then summarise."}}
	size := 1 + jsonSize(conv[0])
	for turn := range in.Turns {
		var out string
		if err := workflow.ExecuteActivity(ctx, Search, turn, in.ToolBytes).Get(ctx, &out); err != nil {
			return AgentResult{}, err
		}
		conv = append(conv, Message{Role: "tool", Content: out})
		size += jsonSize(conv[len(conv)-1])
		var reply string
		if err := workflow.ExecuteActivity(ctx, Model, conv).Get(ctx, &reply); err != nil {
			return AgentResult{}, err
		}
		conv = append(conv, Message{Role: "assistant", Content: reply})
		size += jsonSize(conv[len(conv)-1])
	}
	return AgentResult{Turns: in.Turns, ConversationBytes: size}, nil
}

// LogAgent is Agent with its conversation in a conversation.Log: each
// model call's input is the Log's head, and LogModel reads the
// conversation from the store.
func LogAgent(ctx workflow.Context, in AgentInput) (AgentResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           in.ActivityQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	conv := conversation.NewLog[Message]()
	system := Message{Role: "system", Content: "You are research agent " + in.Name + ". Call the search tool, then summarise."}
	if err := conv.Append(ctx, system); err != nil {
		return AgentResult{}, err
	}
	size := 1 + jsonSize(system)
	for turn := range in.Turns {
		var out string
		if err := workflow.ExecuteActivity(ctx, Search, turn, in.ToolBytes).Get(ctx, &out); err != nil {
			return AgentResult{}, err
		}
		tool := Message{Role: "tool", Content: out}
		if err := conv.Append(ctx, tool); err != nil {
			return AgentResult{}, err
		}
		size += jsonSize(tool)
		var reply string
		if err := workflow.ExecuteActivity(ctx, LogModel, conv).Get(ctx, &reply); err != nil {
			return AgentResult{}, err
		}
		answer := Message{Role: "assistant", Content: reply}
		if err := conv.Append(ctx, answer); err != nil {
			return AgentResult{}, err
		}
		size += jsonSize(answer)
	}
	return AgentResult{Turns: in.Turns, ConversationBytes: size}, nil
}

// LogModel is Model on a conversation.Log: it reads the whole conversation
// from the store, every segment checked, and replies as Model does.
func LogModel(ctx context.Context, conv *conversation.Log[Message]) (string, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return "", err
	}
	return Model(ctx, msgs)
}

// Search returns size bytes of text that no other turn returns.
func Search(_ context.Context, turn, size int) (string, error) {
	rng := rand.New(rand.NewPCG(uint64(turn), 99))
	var b strings.Builder
	fmt.Fprintf(&b, "results for turn %d: ", turn)
	words := []string{"temporal", "workflow", "history", "payload", "agent", "model", "chunk", "store", "claim", "replay"}
	for b.Len() < size {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(" .,;"[rng.IntN(4)]) // no newline: JSON would escape it into two bytes
	}
	return b.String()[:size], nil
}

// Model reads the whole conversation and replies briefly, as a model's
// answer is short next to its input.
func Model(_ context.Context, conv []Message) (string, error) {
	modelCalls.Add(1)
	n := 0
	for _, m := range conv {
		n += len(m.Content)
	}
	return fmt.Sprintf("Read %d messages, %d characters; the last tool call found what was asked.", len(conv), n), nil
}

// Echo returns its input: a workflow whose input and result are stored.
func Echo(_ workflow.Context, s string) (string, error) { return s, nil }

// Hold keeps its input in an open run until it is signalled "release".
func Hold(ctx workflow.Context, s string) (string, error) {
	workflow.GetSignalChannel(ctx, "release").Receive(ctx, nil)
	return s, nil
}

// modelCalls counts the Model calls this process ran.
var modelCalls atomic.Int64

// jsonSize is what m adds to the conversation's JSON: itself and a comma
// (or the closing bracket). The size is kept as the conversation grows:
// marshalling 50 MB at once in workflow code would hold the workflow
// goroutine for seconds.
func jsonSize(m Message) int {
	data, _ := json.Marshal(m)
	return len(data) + 1
}
