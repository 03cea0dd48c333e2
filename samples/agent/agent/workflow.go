package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// TaskQueue is the task queue the sample's worker polls.
const TaskQueue = "temporaladk-agent-sample"

// Input is what one agent run is asked to do, and which faults to inject
// along the way.
type Input struct {
	// Conversation names the conversation whose memory is read and written.
	Conversation string `json:"conversation"`
	// Question is the user's question.
	Question string `json:"question"`
	// Flights are the flights whose seat maps are fetched in a fan-out.
	Flights []string `json:"flights"`
	// Passengers are booked, one seat each, on the first flight with room.
	Passengers []string `json:"passengers"`

	// ModelFaults asks the stand-in model server for one fault per MODEL
	// call: a 503, a 429 with Retry-After, a stall before the first token
	// and a dropped stream. A real endpoint ignores the request.
	ModelFaults bool `json:"model_faults"`
	// RetryAfter is the Retry-After of the injected 429.
	RetryAfter time.Duration `json:"retry_after"`
	// Stall is how long the stand-in waits before the first token of the
	// stalled call.
	Stall time.Duration `json:"stall"`
	// StallWindow is the heartbeat window the workflow sets on the stalled
	// call (the caller's own HeartbeatTimeout, which the kit keeps).
	StallWindow time.Duration `json:"stall_window"`
	// ToolFaults makes every seat map's first attempt fail transiently, and
	// the first booking lose its confirmation after the seat was booked.
	ToolFaults bool `json:"tool_faults"`

	// RunBudget is the ceiling on the attempts of the whole run.
	RunBudget int `json:"run_budget"`
	// FanOutPool is the retries the seat-map fan-out may share.
	FanOutPool int `json:"fan_out_pool"`
	// TokenBudget is the ceiling on the tokens (input plus output) of the
	// run's MODEL calls, and CostBudget the ceiling on what they cost, in
	// micro-dollars; every attempt reserves MaxTokens against each before
	// it runs and settles with what it reported after. 0 is no such budget.
	TokenBudget int64        `json:"token_budget"`
	CostBudget  spend.Micros `json:"cost_budget"`
	// MaxTokens is the cap of each MODEL call
	// (temporaladk.Budgets.MaxTokens), input plus output: what each of its
	// attempts reserves. Required under a token or cost budget.
	MaxTokens int64 `json:"max_tokens"`
	// Model names the MODEL calls' entry in the worker's price table
	// (temporaladk.Budgets.Model, interceptors.Options.Prices). Required under a
	// token or cost budget.
	Model string `json:"model"`

	// ExternalTool, if set, is a tool from outside the sample (an MCP
	// server's, see Config.Tools) that the run calls after the retrieval.
	ExternalTool *ExternalTool `json:"external_tool,omitempty"`
}

// DefaultInput is the run `go run ./samples/agent` makes.
func DefaultInput() Input {
	return Input{
		Conversation: "demo",
		Question:     "Can I still change my seat on LH400, and what happens to my checked bag if I do?",
		Flights:      []string{"LH400", "LH402", "UA901", "BA117", "AF023", "DL045"},
		Passengers:   []string{"ada", "grace"},
		ModelFaults:  true,
		RetryAfter:   2 * time.Second,
		Stall:        5 * time.Second,
		StallWindow:  2 * time.Second,
		ToolFaults:   true,
		RunBudget:    40,
		FanOutPool:   3,
		TokenBudget:  8_000,
		CostBudget:   spend.Dollar / 20,
		MaxTokens:    1_000,
		Model:        StandInModel,
	}
}

// The steps of the run's MODEL calls, and the fault each asks the stand-in
// for when Input.ModelFaults is set.
const (
	StepPlan     = "plan"     // an injected 503
	StepAnswer   = "answer"   // an injected 429 with Retry-After
	StepFollowUp = "followup" // a stall before the first token
	StepSummary  = "summary"  // a dropped stream
)

// Result is what the run produced, and the state of its budgets at the end.
type Result struct {
	Answer   string           `json:"answer"`
	Hits     []Hit            `json:"hits"`
	SeatMaps []SeatMapOutcome `json:"seat_maps"`
	Bookings []Receipt        `json:"bookings"`
	// Replies are the MODEL calls' replies by step, in call order.
	Replies []StepReply `json:"replies"`
	// MemoryRead is how many turns were in memory at the start;
	// MemoryStored how many after the run.
	MemoryRead   int `json:"memory_read"`
	MemoryStored int `json:"memory_stored"`
	// ExternalTool is the text of Input.ExternalTool's result.
	ExternalTool string `json:"external_tool,omitempty"`

	RunBudget BudgetState `json:"run_budget"`
	Pool      PoolState   `json:"pool"`
	// Tokens and Cost are the token and cost budgets at the end of the run,
	// as the workflow reads them; zero for a budget the run was not under.
	Tokens MeterState `json:"tokens"`
	Cost   MeterState `json:"cost"`
}

// MeterState is a token budget (in tokens) or a cost budget (in
// micro-dollars) at the end of the run.
type MeterState struct {
	Limit     int64 `json:"limit"`
	Reserved  int64 `json:"reserved"`
	Spent     int64 `json:"settled"`
	Remaining int64 `json:"remaining"`
	// Refused is the BudgetExceededError's message when the budget refused
	// an attempt; empty otherwise.
	Refused string `json:"refused,omitempty"`
}

// StepReply is one MODEL call's reply.
type StepReply struct {
	Step  string     `json:"step"`
	Fault string     `json:"fault,omitempty"`
	Reply chat.Reply `json:"reply"`
}

// SeatMapOutcome is one branch of the seat-map fan-out.
type SeatMapOutcome struct {
	Flight string   `json:"flight"`
	Free   []string `json:"free,omitempty"`
	// Refused is set when the pool refused the branch a retry.
	Refused bool   `json:"refused,omitempty"`
	Error   string `json:"error,omitempty"`
}

// BudgetState is the run's ceiling on attempts at its end.
type BudgetState struct {
	Limit int `json:"limit"`
	Spent int `json:"spent"`
	// Refused is the BudgetExceededError's message when the budget refused
	// an attempt; empty otherwise.
	Refused string `json:"refused,omitempty"`
}

// PoolState is the fan-out's retry pool at its end.
type PoolState struct {
	// The JSON names are those of the committed history's result.
	Limit    int `json:"size"`
	Spent    int `json:"used"`
	Refusals int `json:"refusals"`
}

// a is the nil receiver the workflow names activity methods by; the worker
// registers a real *Activities.
var a *Activities

// AgentWorkflow is one agent run: read the conversation's memory, retrieve
// documents, plan with the model, fan out over the seat maps, book seats,
// answer, follow up, summarise and write the memory back. Every call is tagged
// with its class; the kit's interceptor gives each its timeouts, heartbeat
// window and retries. The whole run is under a ceiling on attempts, and its MODEL
// calls under a token and a cost budget besides (Input.TokenBudget and
// Input.CostBudget, 0 for none), each call capped at Input.MaxTokens and
// priced as Input.Model.
func AgentWorkflow(ctx workflow.Context, in Input) (Result, error) {
	if len(in.Flights) == 0 || len(in.Passengers) == 0 {
		return Result{}, errors.New("agent: the input needs at least one flight and one passenger")
	}
	ctx, err := budgets(ctx, in)
	if err != nil {
		return Result{}, err
	}
	var res Result
	finish := func(err error) (Result, error) {
		for _, b := range temporaladk.BudgetsOf(ctx) {
			switch b.Kind {
			case spend.KindAttempts:
				res.RunBudget = BudgetState{Limit: int(b.Limit), Spent: int(b.Spent)}
			case spend.KindTokens:
				res.Tokens = MeterState{Limit: b.Limit, Reserved: b.Reserved, Spent: b.Spent, Remaining: b.Remaining}
			case spend.KindCost:
				res.Cost = MeterState{Limit: b.Limit, Reserved: b.Reserved, Spent: b.Spent, Remaining: b.Remaining}
			}
		}
		var refused *temporaladk.BudgetExceededError
		if errors.As(temporaladk.FromApplicationError(err), &refused) {
			switch refused.Breached {
			case "attempts":
				res.RunBudget.Refused = refused.Error()
			case "tokens":
				res.Tokens.Refused = refused.Error()
			case "cost":
				res.Cost.Refused = refused.Error()
			}
		}
		return res, err
	}

	// MEMORY: what was said before in this conversation.
	memoryCtx := temporaladk.WithClass(ctx, temporaladk.Memory)
	var memory []chat.Message
	if err := workflow.ExecuteActivity(memoryCtx, a.LoadMemory, in.Conversation).Get(ctx, &memory); err != nil {
		return finish(fmt.Errorf("agent: loading memory: %w", err))
	}
	res.MemoryRead = len(memory)

	// RETRIEVAL: the documents the answer may draw on.
	if err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), a.SearchDocs,
		SearchRequest{Query: in.Question, Limit: 3}).Get(ctx, &res.Hits); err != nil {
		return finish(fmt.Errorf("agent: searching the documents: %w", err))
	}
	var sources strings.Builder
	for _, h := range res.Hits {
		fmt.Fprintf(&sources, "[%s] %s\n", h.Title, h.Text)
	}
	if in.ExternalTool != nil {
		if res.ExternalTool, err = externalToolStep(ctx, *in.ExternalTool); err != nil {
			return finish(err)
		}
		fmt.Fprintf(&sources, "[%s] %s\n", in.ExternalTool.Tool, res.ExternalTool)
	}
	turns := append([]chat.Message{{Role: "system", Content: "You are a travel agent. Use these documents:\n" + sources.String()}}, memory...)
	turns = append(turns, chat.Message{Role: "user", Content: in.Question})

	// MODEL: plan the run.
	plan, err := chatStep(ctx, in, StepPlan, turns)
	res.Replies = append(res.Replies, plan)
	if err != nil {
		return finish(err)
	}

	// TOOL, read-only, fanned out: every branch's retries come from one pool,
	// named apart from the run's budgets so that it is the fan-out's alone.
	if in.FanOutPool < 1 {
		return finish(fmt.Errorf("agent: Input.FanOutPool is %d: the fan-out's pool needs at least 1 retry", in.FanOutPool))
	}
	fanCtx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Tool), temporaladk.Budgets{Name: "fan-out", Retries: in.FanOutPool})
	if err != nil {
		return finish(fmt.Errorf("agent: Input.FanOutPool: %w", err))
	}
	futures := make([]workflow.Future, len(in.Flights))
	for i, flight := range in.Flights {
		futures[i] = workflow.ExecuteActivity(fanCtx, a.SeatMap, SeatMapRequest{Flight: flight, FailFirstAttempt: in.ToolFaults})
	}
	for i, f := range futures {
		out := SeatMapOutcome{Flight: in.Flights[i]}
		var seats SeatMap
		if err := f.Get(ctx, &seats); err != nil {
			var refused *temporaladk.BudgetExceededError
			if errors.As(temporaladk.FromApplicationError(err), &refused) {
				out.Refused = refused.Breached == "retries"
				if refused.Breached == "retries" {
					res.Pool.Refusals++
				}
			}
			out.Error = err.Error()
		} else {
			out.Free = seats.Free
		}
		res.SeatMaps = append(res.SeatMaps, out)
	}
	pool := temporaladk.BudgetsOf(fanCtx)[1]
	res.Pool.Limit, res.Pool.Spent = int(pool.Limit), int(pool.Spent)

	// TOOL, effectful: one seat per passenger on the first flight with room.
	// The key is derived from the flight and the passenger (see KitOptions),
	// so the booking gets the TOOL policy's attempts, and a retry lands on
	// the first booking in the ledger.
	flight, seats := pickFlight(res.SeatMaps, len(in.Passengers))
	if flight == "" {
		return finish(errors.New("agent: no seat map came back with room for every passenger"))
	}
	toolCtx := temporaladk.WithClass(ctx, temporaladk.Tool)
	for i, passenger := range in.Passengers {
		var receipt Receipt
		booking := Booking{Flight: flight, Passenger: passenger, Seat: seats[i], LoseReplyOnce: in.ToolFaults && i == 0}
		if err := workflow.ExecuteActivity(toolCtx, a.BookSeat, booking).Get(ctx, &receipt); err != nil {
			return finish(fmt.Errorf("agent: booking %s on %s: %w", passenger, flight, err))
		}
		res.Bookings = append(res.Bookings, receipt)
	}

	// MODEL: answer, follow up (with a short window of the caller's own),
	// and summarise for memory.
	var booked strings.Builder
	for _, r := range res.Bookings {
		fmt.Fprintf(&booked, "%s: %s seat %s (%s). ", r.Passenger, r.Flight, r.Seat, r.Confirmation)
	}
	turns = append(turns, chat.Message{Role: "assistant", Content: plan.Reply.Text},
		chat.Message{Role: "user", Content: "Booked: " + booked.String() + "Now answer the question."})
	answer, err := chatStep(ctx, in, StepAnswer, turns)
	res.Replies = append(res.Replies, answer)
	if err != nil {
		return finish(err)
	}
	res.Answer = answer.Reply.Text
	turns = append(turns, chat.Message{Role: "assistant", Content: answer.Reply.Text},
		chat.Message{Role: "user", Content: "Anything else I should know before the flight?"})
	followUp, err := chatStep(ctx, in, StepFollowUp, turns)
	res.Replies = append(res.Replies, followUp)
	if err != nil {
		return finish(err)
	}
	turns = append(turns, chat.Message{Role: "assistant", Content: followUp.Reply.Text},
		chat.Message{Role: "user", Content: "Summarise this conversation in one line for next time."})
	summary, err := chatStep(ctx, in, StepSummary, turns)
	res.Replies = append(res.Replies, summary)
	if err != nil {
		return finish(err)
	}

	// MEMORY: keep the question, the answer and the summary.
	write := MemoryWrite{Conversation: in.Conversation, Turns: []chat.Message{
		{Role: "user", Content: in.Question},
		{Role: "assistant", Content: answer.Reply.Text},
		{Role: "system", Content: "summary: " + summary.Reply.Text},
	}}
	if err := workflow.ExecuteActivity(memoryCtx, a.SaveMemory, write).Get(ctx, &res.MemoryStored); err != nil {
		return finish(fmt.Errorf("agent: saving memory: %w", err))
	}
	return finish(nil)
}

// chatStep makes one MODEL call, capped at Input.MaxTokens and priced as
// Input.Model. The follow-up sets a StartToClose and a heartbeat window of
// its own, so that its stall outlasts two windows in seconds rather than
// minutes; the kit keeps what the caller set.
func chatStep(ctx workflow.Context, in Input, step string, turns []chat.Message) (StepReply, error) {
	req := ChatRequest{Step: step, Messages: turns}
	if in.ModelFaults {
		req.Fault = faultFor(in, step)
	}
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	if step == StepFollowUp {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: in.Stall + 30*time.Second,
			HeartbeatTimeout:    in.StallWindow,
		})
	}
	out := StepReply{Step: step, Fault: req.Fault}
	if err := workflow.ExecuteActivity(ctx, a.Chat, req).Get(ctx, &out.Reply); err != nil {
		return out, fmt.Errorf("agent: model step %s: %w", step, err)
	}
	return out, nil
}

// budgets returns ctx under the run's budgets: its attempts, and its MODEL
// calls' tokens and cost (none for a zero Input.TokenBudget or
// Input.CostBudget), each call capped at Input.MaxTokens and priced as
// Input.Model. A bad figure is an error naming the Input field.
func budgets(ctx workflow.Context, in Input) (workflow.Context, error) {
	switch {
	case in.RunBudget < 1:
		return nil, fmt.Errorf("agent: Input.RunBudget is %d: it must be at least 1", in.RunBudget)
	case in.TokenBudget < 0:
		return nil, fmt.Errorf("agent: Input.TokenBudget is %d: it must be at least 1, or 0 for none", in.TokenBudget)
	case in.CostBudget < 0:
		return nil, fmt.Errorf("agent: Input.CostBudget is %d micro-dollars: it must be at least 1, or 0 for none", in.CostBudget)
	case in.TokenBudget == 0 && in.CostBudget == 0:
		return temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "run", Attempts: in.RunBudget})
	case in.MaxTokens < 1:
		return nil, fmt.Errorf("agent: Input.MaxTokens is %d: under a token or cost budget each MODEL call needs a cap of at least 1 token", in.MaxTokens)
	case in.Model == "":
		return nil, errors.New("agent: Input.Model is empty: under a token or cost budget it names the MODEL calls' price")
	}
	return temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "run", Attempts: in.RunBudget,
		Tokens: in.TokenBudget, Cost: in.CostBudget, MaxTokens: in.MaxTokens, Model: in.Model})
}

// faultFor is the stand-in fault of a step, in the header form of package
// standin.
func faultFor(in Input, step string) string {
	switch step {
	case StepPlan:
		return "503"
	case StepAnswer:
		return "429=" + in.RetryAfter.String()
	case StepFollowUp:
		return "stall=" + in.Stall.String()
	case StepSummary:
		return "drop"
	}
	return ""
}

// pickFlight returns the first flight with room for n passengers, and the
// seats to book.
func pickFlight(maps []SeatMapOutcome, n int) (string, []string) {
	for _, m := range maps {
		if len(m.Free) >= n {
			return m.Flight, m.Free[:n]
		}
	}
	return "", nil
}
