package benchkit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
)

// NoOp is the activity of the throughput workloads: it does nothing.
func NoOp(context.Context) error { return nil }

// NoOpsWorkflow runs n NoOp activities, one after the other or all at once.
// tagged puts the calls in the MEMORY class, as a workflow written for the
// kit would; it changes nothing on a worker without the kit.
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
	Start, End time.Time
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

// Lateness returns, for each retry, how much later than asked the next
// attempt started: its start minus the failed attempt's end minus the wait
// the failed attempt asked for.
func Lateness(attempts []Attempt) []time.Duration {
	var late []time.Duration
	for i := 0; i+1 < len(attempts); i++ {
		late = append(late, attempts[i+1].Start.Sub(attempts[i].End)-attempts[i].Wait)
	}
	return late
}

// RetryWorkflow calls RetryProbe.Flaky, which fails fails times, with a
// retry policy that allows every attempt. With budget, the call runs under
// a ceiling (temporaladk.Budgets.Attempts) of exactly the attempts it needs.
func RetryWorkflow(ctx workflow.Context, fails int, budget bool) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: 10 * time.Minute,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: int32(fails + 1)},
	})
	ctx = temporaladk.WithClass(ctx, temporaladk.Retrieval)
	if budget {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "bench", Attempts: fails + 1}); err != nil {
			return err
		}
	}
	return workflow.ExecuteActivity(ctx, FlakyActivity, fails).Get(ctx, nil)
}
