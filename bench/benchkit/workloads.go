package benchkit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// NoOp is the activity of the throughput workloads: it does nothing.
func NoOp(context.Context) error { return nil }

// NoOpsWorkflow runs n NoOp activities, one after the other or all at once.
// tagged puts the calls in the MEMORY class, as a workflow written for the
// kit would; a worker without the kit refuses it (the kit fails closed), so
// the plain side runs untagged.
func NoOpsWorkflow(ctx workflow.Context, n int, parallel, tagged bool) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	if tagged {
		ctx = temporaladk.WithClass(ctx, temporaladk.Memory)
	}
	if !parallel {
		for range n {
			if err := workflow.ExecuteActivity(ctx, NoOp).Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}
	futures := make([]workflow.Future, n)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, NoOp)
	}
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// FlakyActivity is the name RetryProbe.Flaky is registered under.
const FlakyActivity = "Flaky"

// RetryWaits are the waits the flaky activity asks for, in turn, with
// NextRetryDelay.
var RetryWaits = []time.Duration{200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}

// Attempt is one run of the flaky activity as the worker saw it.
type Attempt struct {
	// Start and End are when the activity's own code started and ended.
	Start, End time.Time
	// KitStart and KitEnd are when the kit began and finished serving the
	// attempt (its observer's AttemptStarted and AttemptEnded), around
	// Start and End; zero on a worker without the kit.
	KitStart, KitEnd time.Time
	// Wait is the wait the attempt asked for before the next one; 0 for the
	// attempt that succeeded.
	Wait time.Duration
}

// RetryProbe is the activity side of the retry measurement: its Flaky
// activity fails a given number of times, each time asking for the next of
// RetryWaits, and records when each attempt started and ended. Attempts are
// counted per workflow ID, so the record is the same whether the server
// retries the activity or the workflow schedules each attempt.
type RetryProbe struct {
	mu       sync.Mutex
	attempts map[string][]Attempt
}

// NewRetryProbe returns an empty probe; register it with
// worker.RegisterActivity.
func NewRetryProbe() *RetryProbe { return &RetryProbe{attempts: map[string][]Attempt{}} }

// Flaky fails its first fails attempts in the workflow with an
// ApplicationError whose NextRetryDelay is the next of RetryWaits.
func (p *RetryProbe) Flaky(ctx context.Context, fails int) error {
	start := time.Now()
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.attempts[id])
	if n >= fails {
		p.attempts[id] = append(p.attempts[id], Attempt{Start: start, End: time.Now()})
		return nil
	}
	wait := RetryWaits[n%len(RetryWaits)]
	p.attempts[id] = append(p.attempts[id], Attempt{Start: start, End: time.Now(), Wait: wait})
	return temporal.NewApplicationErrorWithOptions(fmt.Sprintf("attempt %d fails on purpose", n+1), "BenchFlaky",
		temporal.ApplicationErrorOptions{NextRetryDelay: wait})
}

// Attempts returns the attempts recorded for a workflow ID.
func (p *RetryProbe) Attempts(workflowID string) []Attempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Attempt(nil), p.attempts[workflowID]...)
}

// Retry is where the time of one retry went, beyond the wait it asked for.
type Retry struct {
	// Late is how much later than asked the next attempt's code started:
	// its Start minus the failed attempt's End minus the wait asked for.
	Late time.Duration
	// KitAfter is the kit's time after the failed attempt's code ended,
	// before the failure went back to the SDK (KitEnd - End); KitBefore
	// the kit's time before the next attempt's code started (Start -
	// KitStart). Both are 0 on a worker without the kit.
	KitAfter, KitBefore time.Duration
	// Rest is Late less the kit's parts: the SDK's report of the failure,
	// the server's retry timer and the next attempt's dispatch.
	Rest time.Duration
}

// Retries splits each retry of attempts, a workflow's attempts in order
// (see Retry). An attempt without the
// kit's times gives the kit no part.
func Retries(attempts []Attempt) []Retry {
	var out []Retry
	for i := 0; i+1 < len(attempts); i++ {
		failed, next := attempts[i], attempts[i+1]
		r := Retry{Late: next.Start.Sub(failed.End) - failed.Wait}
		if !failed.KitEnd.IsZero() {
			r.KitAfter = failed.KitEnd.Sub(failed.End)
		}
		if !next.KitStart.IsZero() {
			r.KitBefore = next.Start.Sub(next.KitStart)
		}
		r.Rest = r.Late - r.KitAfter - r.KitBefore
		out = append(out, r)
	}
	return out
}

// kitSpans records, through the kit's observer seam, when the kit began and
// finished serving each attempt of the flaky activity, per workflow ID; the
// measurement takes a workflow's record when it reads it.
type kitSpans struct {
	observe.Base
	mu    sync.Mutex
	spans map[string]map[int]*[2]time.Time
}

func newKitSpans() *kitSpans { return &kitSpans{spans: map[string]map[int]*[2]time.Time{}} }

func (k *kitSpans) mark(a observe.Attempt, end bool) {
	if a.ActivityType != FlakyActivity {
		return
	}
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	byAttempt := k.spans[a.WorkflowID]
	if byAttempt == nil {
		byAttempt = map[int]*[2]time.Time{}
		k.spans[a.WorkflowID] = byAttempt
	}
	s := byAttempt[a.Number]
	if s == nil {
		s = &[2]time.Time{}
		byAttempt[a.Number] = s
	}
	if end {
		s[1] = now
	} else {
		s[0] = now
	}
}

// AttemptStarted records when the kit began serving the attempt.
func (k *kitSpans) AttemptStarted(_ context.Context, a observe.Attempt) { k.mark(a, false) }

// AttemptEnded records when the kit finished serving the attempt.
func (k *kitSpans) AttemptEnded(_ context.Context, a observe.Attempt, _ observe.Outcome) {
	k.mark(a, true)
}

// take fills in the kit's times of attempts, the workflow's attempts in
// order, and forgets the workflow.
func (k *kitSpans) take(workflowID string, attempts []Attempt) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for n, s := range k.spans[workflowID] {
		if n >= 1 && n <= len(attempts) {
			attempts[n-1].KitStart, attempts[n-1].KitEnd = s[0], s[1]
		}
	}
	delete(k.spans, workflowID)
}

// RetryWorkflow calls RetryProbe.Flaky, which fails fails times, with a
// retry policy that allows every attempt. tagged puts the call in the
// RETRIEVAL class, as on the kit's worker; with budget (which needs tagged),
// the call runs under a ceiling (temporaladk.Budgets.Attempts) of exactly
// the attempts it needs. A worker without the kit runs it untagged: the kit
// refuses to be asked for on a worker without it.
func RetryWorkflow(ctx workflow.Context, fails int, tagged, budget bool) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: 10 * time.Minute,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: int32(fails + 1)},
	})
	if tagged {
		ctx = temporaladk.WithClass(ctx, temporaladk.Retrieval)
	}
	if budget {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "bench", Attempts: fails + 1}); err != nil {
			return err
		}
	}
	return workflow.ExecuteActivity(ctx, FlakyActivity, fails).Get(ctx, nil)
}
