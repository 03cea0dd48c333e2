package agent

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Activities are the sample's activities. Register a value with
// worker.RegisterActivity; the activity types are the method names.
type Activities struct {
	// Model is the chat endpoint's client. Required for Chat.
	Model chat.Client
	// Ledger records every booking. Required for BookSeat.
	Ledger *Ledger
	// Memory keeps conversations. Required for LoadMemory and SaveMemory.
	Memory *MemoryStore
	// Index is searched by SearchDocs. If nil, the shipped corpus.
	Index *Index
	// Now is the clock of the ledger's entries. If nil, time.Now.
	Now func() time.Time
}

// ChatRequest is one MODEL call.
type ChatRequest struct {
	// Step names the call within the run.
	Step     string         `json:"step"`
	Messages []chat.Message `json:"messages"`
	// Fault is asked of the stand-in model server (see package standin);
	// empty for none.
	Fault string `json:"fault,omitempty"`
}

// Chat streams one completion (MODEL). Its failures are the kit's errors,
// classified from the HTTP outcome, so the interceptor knows which to retry
// and how long to wait. Whether it succeeded or failed, it reports the
// attempt's usage with providers.ReportUsage (see ChatUsage), which the kit
// settles the attempt's token and cost reservation with.
func (a *Activities) Chat(ctx context.Context, req ChatRequest) (chat.Reply, error) {
	call := activity.GetInfo(ctx).WorkflowExecution.ID + "/" + req.Step
	reply, err := a.Model.Complete(ctx, chat.Request{Messages: req.Messages, Call: call, Fault: req.Fault})
	streamed := reply.Tokens
	if err != nil {
		// A failed stream returns no reply: what it streamed before it
		// failed is on the kit's heartbeater, one token per chunk.
		streamed = temporaladk.HeartbeaterFrom(ctx).Snapshot().Tokens
	}
	if _, uerr := providers.ReportUsage(ctx, ChatUsage(req.Messages, streamed, err == nil)); uerr != nil {
		return chat.Reply{}, fmt.Errorf("agent: reporting the usage of %s: %w", req.Step, uerr)
	}
	return reply, err
}

// ChatUsage is what one attempt of Chat reports as its usage: the tokens
// the endpoint streamed as output, and as input the prompt's words, the
// unit the stand-in streams in (one word a chunk), since the sample's
// client does not ask the endpoint for its own usage. An attempt that
// completed nothing and streamed nothing (the endpoint answered 503 or 429
// before any token) used nothing, and reports zero, so that its whole
// reservation is released; one that streamed part of an answer before it
// failed is charged its prompt and what it streamed.
func ChatUsage(msgs []chat.Message, streamed int64, completed bool) providers.Usage {
	if !completed && streamed == 0 {
		return providers.Usage{}
	}
	var prompt int64
	for _, m := range msgs {
		prompt += int64(len(strings.Fields(m.Content)))
	}
	return providers.Usage{InputTokens: prompt, OutputTokens: streamed}
}

// SeatMapRequest asks for one flight's free seats.
type SeatMapRequest struct {
	Flight string `json:"flight"`
	// FailFirstAttempt makes the first attempt fail transiently, as a busy
	// seat-map service does.
	FailFirstAttempt bool `json:"fail_first_attempt,omitempty"`
}

// SeatMap is a flight's free seats.
type SeatMap struct {
	Flight string   `json:"flight"`
	Free   []string `json:"free"`
}

// SeatMap returns a flight's free seats (TOOL, declared READ_ONLY, so it gets
// the TOOL policy's attempts without a key).
func (a *Activities) SeatMap(ctx context.Context, req SeatMapRequest) (SeatMap, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	if req.FailFirstAttempt && call.Attempt <= 1 {
		return SeatMap{}, &temporaladk.ToolFailureError{Tool: "SeatMap", Transient: true, Reason: "the seat-map service is busy (injected)"}
	}
	h := fnv.New32a()
	h.Write([]byte(req.Flight))
	seed := h.Sum32()
	out := SeatMap{Flight: req.Flight}
	for row := 10 + int(seed%20); len(out.Free) < 4; row++ {
		out.Free = append(out.Free, fmt.Sprintf("%d%c", row, 'A'+rune((seed>>uint(row%8))%6)))
	}
	return out, nil
}

// Booking is one seat for one passenger. The flight and the passenger are
// its idempotency key fields (see KitOptions).
type Booking struct {
	Flight    string `json:"flight"`
	Passenger string `json:"passenger"`
	Seat      string `json:"seat"`
	// LoseReplyOnce makes the first attempt book the seat and then fail
	// transiently, as a reply lost on the way back does.
	LoseReplyOnce bool `json:"lose_reply_once,omitempty"`
}

// Receipt is a booking's confirmation.
type Receipt struct {
	Flight       string `json:"flight"`
	Passenger    string `json:"passenger"`
	Seat         string `json:"seat"`
	Confirmation string `json:"confirmation"`
	// Key is the idempotency key the booking was made with.
	Key string `json:"key"`
	// Attempt is the attempt that returned the receipt.
	Attempt int `json:"attempt"`
	// Deduplicated is true when the ledger already held the booking: this
	// attempt landed on the first one's result.
	Deduplicated bool `json:"deduplicated,omitempty"`
}

// BookSeat books a seat (TOOL, declared EFFECTFUL). It passes the call's
// idempotency key to the ledger, which books once per key: a second attempt
// gets the first booking back instead of a second seat.
func (a *Activities) BookSeat(ctx context.Context, b Booking) (Receipt, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	key := call.IdempotencyKey
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	entry, fresh, err := a.Ledger.Book(key, b, call.Attempt, now())
	if err != nil {
		return Receipt{}, &temporaladk.ToolFailureError{Tool: "BookSeat", Transient: true, Reason: "the ledger could not be written", Cause: err}
	}
	if fresh && b.LoseReplyOnce && call.Attempt <= 1 {
		return Receipt{}, &temporaladk.ToolFailureError{Tool: "BookSeat", Transient: true,
			Reason: "the seat was booked but the confirmation was lost on the way back (injected)"}
	}
	return Receipt{
		Flight: entry.Flight, Passenger: entry.Passenger, Seat: entry.Seat, Confirmation: entry.Confirmation,
		Key: key, Attempt: call.Attempt, Deduplicated: !fresh,
	}, nil
}

// SearchRequest is a RETRIEVAL query.
type SearchRequest struct {
	Query string `json:"query"`
	// Limit is how many hits to return. If 0, 3.
	Limit int `json:"limit"`
}

// SearchDocs ranks the corpus for a query (RETRIEVAL).
func (a *Activities) SearchDocs(ctx context.Context, req SearchRequest) ([]Hit, error) {
	idx := a.Index
	if idx == nil {
		var err error
		if idx, err = ShippedIndex(); err != nil {
			return nil, err
		}
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 3
	}
	return idx.Search(req.Query, limit), nil
}

// MemoryWrite appends turns to a conversation.
type MemoryWrite struct {
	Conversation string         `json:"conversation"`
	Turns        []chat.Message `json:"turns"`
}

// LoadMemory returns a conversation's turns (MEMORY).
func (a *Activities) LoadMemory(ctx context.Context, conversation string) ([]chat.Message, error) {
	return a.Memory.Load(conversation)
}

// SaveMemory appends turns to a conversation and returns how many it holds
// (MEMORY).
func (a *Activities) SaveMemory(ctx context.Context, w MemoryWrite) (int, error) {
	return a.Memory.Append(w.Conversation, w.Turns)
}
