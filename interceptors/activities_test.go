package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/temporaladk"
)

// CallReport is what an activity saw of the call it served.
type CallReport struct {
	StartToClose    time.Duration
	ScheduleToClose time.Duration
	Heartbeat       time.Duration
	MaxAttempts     int32
	NonRetryable    []string
	Attempt         int32
	Class           temporaladk.Class
	Key             string
	KitAttempt      int
	KitMaxAttempts  int
}

// Report returns what the activity saw.
func Report(ctx context.Context, _ string) (CallReport, error) {
	info := activity.GetInfo(ctx)
	r := CallReport{
		StartToClose:    info.StartToCloseTimeout,
		ScheduleToClose: info.ScheduleToCloseTimeout,
		Heartbeat:       info.HeartbeatTimeout,
		Attempt:         info.Attempt,
	}
	if info.RetryPolicy != nil {
		r.MaxAttempts = info.RetryPolicy.MaximumAttempts
		r.NonRetryable = append([]string(nil), info.RetryPolicy.NonRetryableErrorTypes...)
		sort.Strings(r.NonRetryable)
	}
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		r.Class, r.Key, r.KitAttempt, r.KitMaxAttempts = call.Class, call.IdempotencyKey, call.Attempt, call.MaxAttempts
	}
	return r, nil
}

// seenBy returns the attempt as the kit numbers it (the workflow's count
// when the workflow drives the retries) and the key.
func seenBy(ctx context.Context) attemptSeen {
	seen := attemptSeen{Attempt: int(activity.GetInfo(ctx).Attempt), Key: vocabtest.CallOf(ctx).IdempotencyKey, Start: time.Now()}
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok {
		seen.Attempt = call.Attempt
	}
	return seen
}

// Booking is the input of the effectful tool.
type Booking struct {
	Flight    string `json:"flight"`
	Passenger string `json:"passenger"`
	Note      string `json:"note"`
}

// attemptLog records every attempt the failing activities see, by scenario.
type attemptLog struct {
	mu       sync.Mutex
	attempts map[string][]attemptSeen
}

type attemptSeen struct {
	Attempt int
	Key     string
	Start   time.Time
}

func newAttemptLog() *attemptLog { return &attemptLog{attempts: map[string][]attemptSeen{}} }

func (l *attemptLog) add(scenario string, seen attemptSeen) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts[scenario] = append(l.attempts[scenario], seen)
	return len(l.attempts[scenario])
}

func (l *attemptLog) get(scenario string) []attemptSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]attemptSeen(nil), l.attempts[scenario]...)
}

// startTimes returns the wall-clock start of each attempt of scenario.
func (a *Activities) startTimes(scenario string) []time.Time {
	var out []time.Time
	for _, s := range a.log.get(scenario) {
		out = append(out, s.Start)
	}
	return out
}

func (l *attemptLog) total(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, v := range l.attempts {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			n += len(v)
		}
	}
	return n
}

// failures is the kit error each scenario's activity fails with.
func failure(kind string) error {
	switch kind {
	case "guardrail":
		return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "card number"}
	case "transient":
		return &temporaladk.ToolFailureError{Tool: "book", Transient: true, Reason: "ledger busy"}
	case "provider":
		return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "Service Unavailable"}
	case "retry-after-2s":
		return &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: 2 * time.Second}
	case "retry-after-90s":
		return &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: 90 * time.Second}
	case "plain":
		return errors.New("disk full")
	}
	return fmt.Errorf("unknown failure %q", kind)
}

// Activities fail as their scenario says and record every attempt.
type Activities struct {
	log *attemptLog
}

// Fail always fails with the kit error named by kind.
func (a *Activities) Fail(ctx context.Context, scenario, kind string) error {
	a.log.add(scenario, seenBy(ctx))
	return failure(kind)
}

// Book is an effectful tool that fails transiently.
func (a *Activities) Book(ctx context.Context, b Booking) error {
	a.log.add("book:"+b.Note, seenBy(ctx))
	return failure("transient")
}

// runResult is what the test workflows return for each call.
type runResult struct {
	Reports   []CallReport
	Errors    []string
	Types     []string
	Decisions []temporaladk.RetryDecision
}

func (r *runResult) addErr(err error) {
	if err == nil {
		r.Errors = append(r.Errors, "")
		r.Types = append(r.Types, "")
		return
	}
	r.Errors = append(r.Errors, err.Error())
	typ := "untyped"
	if kit, ok := temporaladk.AsError(err); ok {
		typ = kit.Type()
	}
	var budget *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(err), &budget) {
		typ += fmt.Sprintf(" attempts=%s", budget.Details()["attempts"])
	}
	r.Types = append(r.Types, typ)
	if d, ok := temporaladk.RetryDecisionOf(err); ok {
		r.Decisions = append(r.Decisions, d)
	}
}

// ClassesWorkflow runs Report under each class tag, untagged, and with a
// caller's StartToClose and retry policy.
func ClassesWorkflow(ctx workflow.Context) (runResult, error) {
	var out runResult
	base := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ScheduleToCloseTimeout: time.Hour})
	for _, c := range vocab.Classes() {
		var r CallReport
		if err := workflow.ExecuteActivity(temporaladk.WithClass(base, c), Report, string(c)).Get(ctx, &r); err != nil {
			return out, err
		}
		out.Reports = append(out.Reports, r)
	}
	var untagged CallReport
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 7 * time.Second}), Report, "untagged").Get(ctx, &untagged); err != nil {
		return out, err
	}
	out.Reports = append(out.Reports, untagged)
	callers := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 120 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5, NonRetryableErrorTypes: []string{"MyError"}},
	})
	var tuned CallReport
	if err := workflow.ExecuteActivity(temporaladk.WithClass(callers, temporaladk.Model), Report, "callers").Get(ctx, &tuned); err != nil {
		return out, err
	}
	out.Reports = append(out.Reports, tuned)
	return out, nil
}

// FailWorkflow runs one failing call per (class, kind) pair and collects the
// errors the workflow sees, rebuilt as typed kit errors.
func FailWorkflow(ctx workflow.Context, scenario string, class temporaladk.Class, kind string, scheduleToClose time.Duration) (runResult, error) {
	var out runResult
	opts := workflow.ActivityOptions{ScheduleToCloseTimeout: scheduleToClose}
	if class == temporaladk.Model {
		// The same retries as MODEL, without a 900s window to wait out.
		opts.StartToCloseTimeout = 30 * time.Second
	}
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, opts), class)
	err := workflow.ExecuteActivity(ctx, (*Activities).Fail, scenario, kind).Get(ctx, nil)
	out.addErr(temporaladk.FromApplicationError(err))
	return out, nil
}

// BookWorkflow calls the effectful tool, with or without a key.
func BookWorkflow(ctx workflow.Context, b Booking, key string) (runResult, error) {
	var out runResult
	if key != "" {
		ctx = temporaladk.WithIdempotencyKey(ctx, key)
	}
	err := workflow.ExecuteActivity(ctx, (*Activities).Book, b).Get(ctx, nil)
	out.addErr(temporaladk.FromApplicationError(err))
	return out, nil
}

// FanOutWorkflow runs branches failing calls under an optional pool of
// retries and run budget (0 or a negative size means none).
func FanOutWorkflow(ctx workflow.Context, scenario string, branches, pool, run int) (runResult, error) {
	var out runResult
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}), temporaladk.Retrieval)
	if pool > 0 || run > 0 {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "fanout", Retries: max(pool, 0), Attempts: max(run, 0)}); err != nil {
			return out, err
		}
	}
	futures := make([]workflow.Future, branches)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, (*Activities).Fail, fmt.Sprintf("%s/%d", scenario, i), "provider")
	}
	for _, f := range futures {
		out.addErr(f.Get(ctx, nil))
	}
	return out, nil
}

// newRand returns a source of jitter draws seeded from the runtime, as the
// kit's default is; each test run draws its own.
func newRand() func() float64 {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var mu sync.Mutex
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return r.Float64()
	}
}

// StreamReport is what the streaming activity did.
type StreamReport struct {
	Chunks int
	Beats  int64
}

// Stream is a MODEL activity: silent for a while (a slow first token), then
// chunks over a duration, counting them on the kit's heartbeater.
func Stream(ctx context.Context, silent time.Duration, chunks int, over time.Duration) (StreamReport, error) {
	hb := temporaladk.HeartbeaterFrom(ctx)
	hb.SetStep("stream")
	select {
	case <-time.After(silent):
	case <-ctx.Done():
		return StreamReport{}, ctx.Err()
	}
	const batches = 300
	per := chunks / batches
	tick := time.NewTicker(over / batches)
	defer tick.Stop()
	sent := 0
	for b := 0; b < batches; b++ {
		n := per
		if b == batches-1 {
			n = chunks - sent
		}
		for i := 0; i < n; i++ {
			hb.Chunk(1)
		}
		sent += n
		select {
		case <-tick.C:
		case <-ctx.Done():
			return StreamReport{}, ctx.Err()
		}
	}
	return StreamReport{Chunks: sent, Beats: hb.Beats()}, nil
}

// StreamWorkflow runs Stream as a MODEL call with a heartbeat window the
// caller chose.
func StreamWorkflow(ctx workflow.Context, window, silent time.Duration, chunks int, over time.Duration) (StreamReport, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: window})
	var r StreamReport
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), Stream, silent, chunks, over).Get(ctx, &r)
	return r, err
}

// Charge is an effectful tool that makes its effect and then hangs, as a
// worker that dies after the side effect and before it returns.
func (a *Activities) Charge(ctx context.Context, scenario string) error {
	a.log.add(scenario, seenBy(ctx))
	<-ctx.Done()
	// A lost worker does not answer at its deadline: the timeout, not this
	// late return, is what the workflow sees.
	time.Sleep(500 * time.Millisecond)
	return ctx.Err()
}

// ChargeWorkflow calls Charge with a short StartToClose.
func ChargeWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	var out runResult
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second})
	err := workflow.ExecuteActivity(ctx, (*Activities).Charge, scenario).Get(ctx, nil)
	out.addErr(err)
	return out, nil
}

// LocalChargeWorkflow calls Charge as a local activity with a short
// StartToClose.
func LocalChargeWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	var out runResult
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Second})
	err := workflow.ExecuteLocalActivity(ctx, (*Activities).Charge, scenario).Get(ctx, nil)
	out.addErr(err)
	return out, nil
}
