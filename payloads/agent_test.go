package payloads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/conversation"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Message is one message of a conversation, as an agent sends it to a model.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// AgentInput is how long the agent talks and how much its tool returns; a
// run that continues as new hands the next the conversation so far.
type AgentInput struct {
	Turns     int
	ToolBytes int
	// HistoryByteLimit, if set, continues as new when
	// conversation.ShouldContinueAsNew says so by it.
	HistoryByteLimit int
	Done             int
	// Conversation is Agent's conversation so far, Log LogAgent's.
	Conversation      []Message
	Log               *conversation.Log[Message]
	ConversationBytes int
}

// AgentResult is what the agent did.
type AgentResult struct {
	Turns             int
	ConversationBytes int
	// Reply is the model's last reply, which says how many messages and
	// characters the model read.
	Reply string
}

// Agent re-sends its whole conversation to the model every turn, as an agent
// on a stateless model does, and appends the tool's output and the reply.
// Its conversation is a slice of messages, encoded whole into every model
// call.
func Agent(ctx workflow.Context, in AgentInput) (AgentResult, error) {
	return converse(ctx, in, &sliceTranscript{msgs: in.Conversation}, Agent)
}

// LogAgent is Agent with its conversation in a conversation.Log: every
// model call (LogModel) is handed the Log, which the store's DataConverter
// encodes as its head, and the model reads the messages with Messages.
func LogAgent(ctx workflow.Context, in AgentInput) (AgentResult, error) {
	log := in.Log
	if log == nil {
		log = conversation.NewLog[Message]()
	}
	return converse(ctx, in, &logTranscript{log: log}, LogAgent)
}

// transcript is where an agent keeps its conversation, and how it hands it
// to the model and to the next run.
type transcript interface {
	// len is the number of messages so far.
	len() int
	// add appends m.
	add(ctx workflow.Context, m Message) error
	// model schedules the model call on the whole conversation.
	model(ctx workflow.Context) workflow.Future
	// carry puts the conversation into the next run's input.
	carry(next *AgentInput)
}

type sliceTranscript struct{ msgs []Message }

func (t *sliceTranscript) len() int { return len(t.msgs) }
func (t *sliceTranscript) add(_ workflow.Context, m Message) error {
	t.msgs = append(t.msgs, m)
	return nil
}
func (t *sliceTranscript) model(ctx workflow.Context) workflow.Future {
	return workflow.ExecuteActivity(ctx, Model, t.msgs)
}
func (t *sliceTranscript) carry(next *AgentInput) { next.Conversation = t.msgs }

type logTranscript struct{ log *conversation.Log[Message] }

func (t *logTranscript) len() int { return t.log.Len() }
func (t *logTranscript) add(ctx workflow.Context, m Message) error {
	return t.log.Append(ctx, m)
}
func (t *logTranscript) model(ctx workflow.Context) workflow.Future {
	return workflow.ExecuteActivity(ctx, LogModel, t.log)
}
func (t *logTranscript) carry(next *AgentInput) { next.Log = t.log }

// systemPrompt opens every conversation.
var systemPrompt = Message{Role: "system", Content: "You are a research agent. Call the search tool, then summarise."}

// converse is the agents' turns, whatever holds the conversation: search,
// add the tool's output, call the model on the whole conversation, add the
// reply, and continue as new (as self) when conversation.ShouldContinueAsNew
// says so and the run set a HistoryByteLimit.
func converse(ctx workflow.Context, in AgentInput, conv transcript, self any) (AgentResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	size := in.ConversationBytes
	if conv.len() == 0 {
		if err := conv.add(ctx, systemPrompt); err != nil {
			return AgentResult{}, err
		}
		size = 1 + jsonSize(systemPrompt)
	}
	if in.HistoryByteLimit != 0 {
		var err error
		if ctx, err = conversation.WithHistoryByteLimit(ctx, in.HistoryByteLimit); err != nil {
			return AgentResult{}, err
		}
	}
	var reply string
	for turn := in.Done; turn < in.Turns; turn++ {
		var out string
		if err := workflow.ExecuteActivity(ctx, Search, turn, in.ToolBytes).Get(ctx, &out); err != nil {
			return AgentResult{}, err
		}
		tool := Message{Role: "tool", Content: out}
		if err := conv.add(ctx, tool); err != nil {
			return AgentResult{}, err
		}
		size += jsonSize(tool)
		if err := conv.model(ctx).Get(ctx, &reply); err != nil {
			return AgentResult{}, err
		}
		answer := Message{Role: "assistant", Content: reply}
		if err := conv.add(ctx, answer); err != nil {
			return AgentResult{}, err
		}
		size += jsonSize(answer)
		if in.HistoryByteLimit != 0 && turn+1 < in.Turns && conversation.ShouldContinueAsNew(ctx) {
			next := in
			next.Done, next.ConversationBytes = turn+1, size
			conv.carry(&next)
			return AgentResult{}, workflow.NewContinueAsNewError(ctx, self, next)
		}
	}
	return AgentResult{Turns: in.Turns, ConversationBytes: size, Reply: reply}, nil
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
func Model(_ context.Context, conv []Message) (string, error) { return reply(conv), nil }

// LogModel is Model on a conversation.Log: it reads the messages from the
// store the Log was decoded with.
func LogModel(ctx context.Context, log *conversation.Log[Message]) (string, error) {
	conv, err := log.Messages(ctx)
	if err != nil {
		return "", err
	}
	return reply(conv), nil
}

// reply is the model's answer to conv: how much it read.
func reply(conv []Message) string {
	n := 0
	for _, m := range conv {
		n += len(m.Content)
	}
	return fmt.Sprintf("Read %d messages, %d characters; the last tool call found what was asked.", len(conv), n)
}

// Echo returns its input: a workflow whose input and result are stored.
func Echo(_ workflow.Context, s string) (string, error) { return s, nil }

// Hold keeps its input in an open run until it is signalled "release".
func Hold(ctx workflow.Context, s string) (string, error) {
	workflow.GetSignalChannel(ctx, "release").Receive(ctx, nil)
	return s, nil
}

// jsonSize is what m adds to the conversation's JSON: itself and a comma
// (or the closing bracket). The size is kept as the conversation grows:
// marshalling 50 MB at once in workflow code would hold the workflow
// goroutine for seconds.
func jsonSize(m Message) int {
	data, _ := json.Marshal(m)
	return len(data) + 1
}
