package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// kitOptions is the kit's configuration of every worker of the suite, in the
// test process and in worker processes alike, and of every replay. The
// intervals are cut short so that retries take milliseconds, not seconds.
func kitOptions() interceptors.Options {
	model := mustDefault(temporaladk.Model)
	model.Retry.InitialInterval = 100 * time.Millisecond
	model.Retry.MaxInterval = 200 * time.Millisecond
	tool := mustDefault(temporaladk.Tool)
	tool.Retry.MaxAttempts = 3 // with an idempotency key; without one an effectful tool gets 1
	tool.Retry.InitialInterval = 50 * time.Millisecond
	tool.Retry.MaxInterval = 100 * time.Millisecond
	retrieval := mustDefault(temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = time.Millisecond
	retrieval.Retry.MaxInterval = 5 * time.Millisecond
	return interceptors.Options{
		Policies: map[temporaladk.Class]policies.ActivityPolicy{
			temporaladk.Model: model, temporaladk.Tool: tool, temporaladk.Retrieval: retrieval,
		},
		// GatedTool's approvers: any named person (the matrix never
		// approves, so the mode does not matter to it).
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"GatedTool": {Open: true, Required: 1}}},
		Activities: map[string]temporaladk.Declaration{
			// Charge changes the world and has no key: one attempt.
			"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, Timeout: 3 * time.Second},
			// Pay changes the world, keyed by the card and the amount.
			"Pay": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, Timeout: 10 * time.Second,
				KeyFields: []string{"card", "amount"}, Input: PayArgs{}},
			// Fetch and Lookup are reads whose class comes from their
			// declaration; Summarize is a MODEL call, also tagged.
			"Fetch":     {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly, Timeout: 20 * time.Second},
			"Lookup":    {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly, Timeout: 10 * time.Second},
			"Summarize": {Class: temporaladk.Model, Timeout: 30 * time.Second},
			// GatedTool needs a person's approval, which the fail-closed
			// matrix never gives: its calls end denied after 2s.
			"GatedTool": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true, ApprovalTimeout: 2 * time.Second},
		},
	}
}

func mustDefault(c temporaladk.Class) policies.ActivityPolicy {
	p, err := policies.Default(c)
	if err != nil {
		panic(err)
	}
	return p
}

// registry is what a worker and a replayer both register workflows on.
type registry interface {
	RegisterWorkflow(any)
}

func registerWorkflows(r registry) {
	r.RegisterWorkflow(StreamWorkflow)
	r.RegisterWorkflow(ChargeWorkflow)
	r.RegisterWorkflow(FanOutWorkflow)
	r.RegisterWorkflow(AgentWorkflow)
	r.RegisterWorkflow(GuardedWorkflow)
	r.RegisterWorkflow(DeployWorkflow)
	r.RegisterWorkflow(MatrixWorkflow)
	r.RegisterWorkflow(FailClosedWorkflow)
}

// workflowFuncs lists the suite's workflows for testsuite.ReplayFile.
var workflowFuncs = []any{StreamWorkflow, ChargeWorkflow, FanOutWorkflow, AgentWorkflow, GuardedWorkflow, DeployWorkflow, MatrixWorkflow, FailClosedWorkflow}

// Event is what an activity reports of one attempt, as a JSON line on a
// worker process's stdout, or straight to the test in-process.
type Event struct {
	// Kind is "started" (an attempt's code began), "stalled" (the stream
	// stopped after StallAfter chunks and waits to be killed), "effect"
	// (the effect was written to the ledger and synced) or, from a worker
	// process's kit observer, "ended" (the kit finished serving an attempt,
	// whether or not its code ran).
	Kind     string `json:"kind"`
	Activity string `json:"activity"`
	// Workflow is the workflow ID of the call.
	Workflow string `json:"workflow,omitempty"`
	// Attempt is the server's attempt number, KitAttempt the kit's (the
	// workflow's count when the workflow drives the retries).
	Attempt    int `json:"attempt"`
	KitAttempt int `json:"kit_attempt,omitempty"`
	Branch     int `json:"branch,omitempty"`
	// ActivityID is the call's activity ID in its run.
	ActivityID string `json:"activity_id,omitempty"`
	// BudgetCall and ErrorType are what the kit's observer reported of an
	// attempt it served ("ended"): the call's name in its run's budgets,
	// and the type of the error the attempt ended with ("" for none).
	BudgetCall string `json:"budget_call,omitempty"`
	ErrorType  string `json:"error_type,omitempty"`
	// HasHeartbeat, Chunks and Tokens are what the attempt read of the
	// previous attempt's last heartbeat ("started"), or what it streamed
	// ("stalled").
	HasHeartbeat bool  `json:"has_heartbeat,omitempty"`
	Chunks       int64 `json:"chunks,omitempty"`
	Tokens       int64 `json:"tokens,omitempty"`
	// Step and HeartbeatRaw are the previous attempt's last heartbeat as
	// the server delivered it to this attempt: its step, and its bytes.
	Step         string          `json:"step,omitempty"`
	HeartbeatRaw json.RawMessage `json:"heartbeat_raw,omitempty"`
	PID          int             `json:"pid"`
	Time         time.Time       `json:"time"`
}

// Agent holds the suite's activities. emit receives every event.
type Agent struct {
	emit func(Event)
	// ledger is the effect ledger file Charge appends to.
	ledger string
	// gate is a file the first attempt of Fetch waits for, or "".
	gate string
	// provider is the URL of a stand-in model provider (security test).
	provider string
}

func (a *Agent) event(ctx context.Context, kind string, ev Event) {
	info := activity.GetInfo(ctx)
	ev.Kind, ev.Activity, ev.Attempt, ev.PID, ev.Time = kind, info.ActivityType.Name, int(info.Attempt), os.Getpid(), time.Now()
	ev.Workflow, ev.ActivityID = info.WorkflowExecution.ID, info.ActivityID
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		ev.KitAttempt = call.Attempt
	}
	a.emit(ev)
}

// StreamRequest configures StreamModel.
type StreamRequest struct {
	Window         time.Duration
	Chunks         int64
	TokensPerChunk int
	ChunkEvery     time.Duration
	// StallAfter is how many chunks the first attempt streams before it
	// stalls, waiting for its worker to be killed.
	StallAfter int64
}

// StreamResult is what the attempt that completed StreamModel saw.
type StreamResult struct {
	Attempt       int
	ResumedChunks int64
	ResumedTokens int64
	Chunks        int64
}

// StreamModel is a streaming MODEL call. Its first attempt streams
// StallAfter chunks and stalls (the kit's heartbeater keeps beating); a
// retry reads the last heartbeat of the attempt before it and resumes from
// its chunk count.
func (a *Agent) StreamModel(ctx context.Context, req StreamRequest) (StreamResult, error) {
	var resumed temporaladk.Heartbeat
	has := activity.HasHeartbeatDetails(ctx)
	if has {
		if err := activity.GetHeartbeatDetails(ctx, &resumed); err != nil {
			return StreamResult{}, err
		}
	}
	attempt := int(activity.GetInfo(ctx).Attempt)
	a.event(ctx, "started", Event{HasHeartbeat: has, Chunks: resumed.Chunks, Tokens: resumed.Tokens})
	hb := temporaladk.HeartbeaterFrom(ctx)
	hb.SetStep("stream")
	done := resumed.Chunks
	for done < req.Chunks {
		if attempt == 1 && done == req.StallAfter {
			a.event(ctx, "stalled", Event{Chunks: done, Tokens: done * int64(req.TokensPerChunk)})
			<-ctx.Done()
			return StreamResult{}, ctx.Err()
		}
		hb.Chunk(req.TokensPerChunk)
		done++
		select {
		case <-time.After(req.ChunkEvery):
		case <-ctx.Done():
			return StreamResult{}, ctx.Err()
		}
	}
	return StreamResult{Attempt: attempt, ResumedChunks: resumed.Chunks, ResumedTokens: resumed.Tokens, Chunks: done}, nil
}

// StreamWorkflow runs StreamModel as a MODEL call with the caller's
// heartbeat window.
func StreamWorkflow(ctx workflow.Context, req StreamRequest) (StreamResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: req.Window})
	var r StreamResult
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), (*Agent).StreamModel, req).Get(ctx, &r)
	return r, err
}

// ChargeRequest is the input of the effectful tool Charge.
type ChargeRequest struct {
	Order  string `json:"order"`
	Amount int    `json:"amount"`
}

// Charge is an effectful tool without a key: it appends the charge to the
// ledger file, syncs it to disk, reports the effect, and then hangs, as a
// worker that dies after the side effect and before it returns.
func (a *Agent) Charge(ctx context.Context, req ChargeRequest) error {
	a.event(ctx, "started", Event{})
	f, err := os.OpenFile(a.ledger, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "charged %s %d attempt=%d pid=%d\n", req.Order, req.Amount, activity.GetInfo(ctx).Attempt, os.Getpid()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	a.event(ctx, "effect", Event{})
	<-ctx.Done()
	return ctx.Err()
}

// Outcome is how a call ended, as the workflow saw it.
type Outcome struct {
	Type    string
	Message string
}

func outcomeOf(err error) Outcome {
	if err == nil {
		return Outcome{}
	}
	out := Outcome{Type: "untyped", Message: err.Error()}
	if kit, ok := temporaladk.AsError(err); ok {
		out.Type = kit.Type()
	}
	return out
}

// ChargeWorkflow calls Charge once and returns how it ended.
func ChargeWorkflow(ctx workflow.Context, req ChargeRequest) (Outcome, error) {
	err := workflow.ExecuteActivity(ctx, (*Agent).Charge, req).Get(ctx, nil)
	return outcomeOf(temporaladk.FromApplicationError(err)), nil
}

// FlakyArgs configures one branch's call of Flaky.
type FlakyArgs struct {
	Branch int
	// FailFirst is how many attempts fail (with a retryable 503) before one
	// succeeds.
	FailFirst int
	// Work is how long each attempt takes.
	Work time.Duration
}

// Flaky is a RETRIEVAL call that fails its first FailFirst attempts with a
// retryable provider error.
func (a *Agent) Flaky(ctx context.Context, args FlakyArgs) error {
	a.event(ctx, "started", Event{Branch: args.Branch})
	if args.Work > 0 {
		select {
		case <-time.After(args.Work):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	attempt := int(activity.GetInfo(ctx).Attempt)
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		attempt = call.Attempt
	}
	if attempt <= args.FailFirst {
		return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: http.StatusServiceUnavailable, Message: "Service Unavailable"}
	}
	return nil
}

// FanOutRequest configures FanOutWorkflow. A zero budget means none.
type FanOutRequest struct {
	Branches  int
	RunBudget int
	Pool      int
	FailFirst int
	Work      time.Duration
}

// FanOutResult is how the branches settled and what the budgets counted.
type FanOutResult struct {
	// Settled counts the branches by outcome type ("" for success).
	Settled map[string]int
	// Untyped is the messages of the first few branches that ended with an
	// error outside the kit's types, which none should.
	Untyped []string
	// RunSpent is the attempts the attempts budget charged.
	RunSpent int
	// Retries is the retries the pool counted.
	Retries int
}

// FanOutWorkflow runs Branches calls of Flaky at once, as RETRIEVAL calls,
// under the budgets the request asks for.
func FanOutWorkflow(ctx workflow.Context, req FanOutRequest) (FanOutResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	ctx = temporaladk.WithClass(ctx, temporaladk.Retrieval)
	ctx, counts, err := withBudgets(ctx, "fanout", req.RunBudget, req.Pool)
	if err != nil {
		return FanOutResult{}, err
	}
	futures := make([]workflow.Future, req.Branches)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, (*Agent).Flaky, FlakyArgs{Branch: i, FailFirst: req.FailFirst, Work: req.Work})
	}
	out := FanOutResult{Settled: map[string]int{}}
	for _, f := range futures {
		o := outcomeOf(temporaladk.FromApplicationError(f.Get(ctx, nil)))
		out.Settled[o.Type]++
		if o.Type == "untyped" && len(out.Untyped) < 3 {
			out.Untyped = append(out.Untyped, o.Message)
		}
	}
	out.RunSpent, out.Retries = counts()
	return out, nil
}

// withBudgets attaches to ctx the budgets named name: an attempts budget
// of runBudget attempts and a pool of pool retries, each only when not
// zero (a negative one is WithBudgets' error); counts reads what they
// charged: the attempts budget's attempts and the pool's retries (zero for
// a budget not attached).
func withBudgets(ctx workflow.Context, name string, runBudget, pool int) (_ workflow.Context, counts func() (spent, retries int), _ error) {
	if runBudget != 0 || pool != 0 {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: name, Attempts: runBudget, Retries: pool}); err != nil {
			return nil, nil, err
		}
	}
	return ctx, func() (spent, retries int) {
		return int(budgetOf(ctx, spend.KindAttempts).Spent), int(budgetOf(ctx, spend.KindRetries).Spent)
	}, nil
}

// budgetOf returns the budget of kind attached to ctx, as
// temporaladk.BudgetsOf reports it; the zero State when there is none.
func budgetOf(ctx workflow.Context, kind string) spend.State {
	for _, s := range temporaladk.BudgetsOf(ctx) {
		if s.Kind == kind {
			return s
		}
	}
	return spend.State{}
}

// AgentRequest is the input of the agent-like workflow of the security
// test: a prompt for the model and a card for the payment tool.
type AgentRequest struct {
	Prompt string
	Card   string
	Amount int
}

// PayArgs is the input of the payment tool.
type PayArgs struct {
	Card   string `json:"card"`
	Amount int    `json:"amount"`
}

// AgentResult is what the agent-like workflow returns: no argument value,
// no model text.
type AgentResult struct {
	ReplyTokens int
	// Keys are the idempotency keys Pay saw: tenant-a, tenant-b, tenant-a.
	Keys []string
}

// CallModel is a MODEL call to the stand-in provider. Attempt 1 streams the
// prompt's words as chunks and then stalls past its StartToClose, so its
// timeout carries the last heartbeat; attempt 2 gets a 503 whose body
// echoes the prompt; attempt 3 succeeds.
func (a *Agent) CallModel(ctx context.Context, prompt string) (int, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	var started Event
	if activity.HasHeartbeatDetails(ctx) {
		// The last heartbeat of the attempt before, as the server kept it.
		var raw json.RawMessage
		if err := activity.GetHeartbeatDetails(ctx, &raw); err != nil {
			return 0, err
		}
		var hb temporaladk.Heartbeat
		if err := json.Unmarshal(raw, &hb); err != nil {
			return 0, err
		}
		started = Event{HasHeartbeat: true, Chunks: hb.Chunks, Tokens: hb.Tokens, Step: hb.Step, HeartbeatRaw: raw}
	}
	a.event(ctx, "started", started)
	hb := temporaladk.HeartbeaterFrom(ctx)
	hb.SetStep("generate")
	words := strings.Fields(prompt)
	for range words {
		hb.Chunk(1)
	}
	switch call.Attempt {
	case 1:
		<-ctx.Done()
		return 0, ctx.Err()
	case 2:
		return 0, a.post(ctx, "model", prompt)
	}
	return len(words), nil
}

// Pay is an effectful tool keyed by card and amount. Its first attempt of
// each call gets a 502 whose body echoes the card; the second succeeds and
// returns the key it was called with.
func (a *Agent) Pay(ctx context.Context, args PayArgs) (string, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	a.event(ctx, "started", Event{})
	if call.Attempt == 1 {
		return "", a.post(ctx, "payments", fmt.Sprintf(`{"card":%q,"amount":%d}`, args.Card, args.Amount))
	}
	return vocabtest.CallOf(ctx).IdempotencyKey, nil
}

// post sends body to the stand-in provider, which fails and echoes it, and
// classifies the outcome as the kit does for real providers.
func (a *Agent) post(ctx context.Context, provider, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.provider+"/"+provider, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if resp != nil {
		defer resp.Body.Close()
	}
	if kerr := providers.ClassifyHTTP(provider, resp, err, time.Now()); kerr != nil {
		return kerr
	}
	return fmt.Errorf("the stand-in provider did not fail")
}

// AgentWorkflow is an agent run: a model call and three payments (tenant-a,
// tenant-b, tenant-a again, with the same arguments), under an attempts
// budget.
func AgentWorkflow(ctx workflow.Context, req AgentRequest) (AgentResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "agent", Attempts: 12})
	if err != nil {
		return AgentResult{}, err
	}
	var out AgentResult
	mctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 4 * time.Second, HeartbeatTimeout: 2 * time.Second})
	if err := workflow.ExecuteActivity(temporaladk.WithClass(mctx, temporaladk.Model), (*Agent).CallModel, req.Prompt).Get(ctx, &out.ReplyTokens); err != nil {
		return out, err
	}
	for _, tenant := range []string{"tenant-a", "tenant-b", "tenant-a"} {
		var key string
		if err := workflow.ExecuteActivity(temporaladk.WithTenant(ctx, tenant), (*Agent).Pay, PayArgs{Card: req.Card, Amount: req.Amount}).Get(ctx, &key); err != nil {
			return out, err
		}
		out.Keys = append(out.Keys, key)
	}
	return out, nil
}

// eventLog collects the events of in-process workers.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) add(ev Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *eventLog) snapshot() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// count returns how many events of kind there are.
func count(events []Event, kind, activityName string) int {
	n := 0
	for _, ev := range events {
		if ev.Kind == kind && (activityName == "" || ev.Activity == activityName) {
			n++
		}
	}
	return n
}
