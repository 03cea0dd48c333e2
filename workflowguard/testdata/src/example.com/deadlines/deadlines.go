// Package deadlines sets wall-clock deadlines in workflow code.
package deadlines

import (
	"context"
	"time"

	"go.temporal.io/sdk/workflow"
)

func DeadlineWorkflow(ctx workflow.Context) error { // want DeadlineWorkflow:`reaches\(ADK-W003 deadlines.DeadlineWorkflow → context.WithTimeout\)`
	tctx, cancel := context.WithTimeout(context.Background(), time.Minute) // want `^ADK-W003 wall clock on the workflow path \(context.WithTimeout\); take the deadline from workflow time: workflow.WithCancel\(ctx\) and cancel when workflow.NewTimer\(ctx, d\) fires`
	defer cancel()
	dctx, cancel2 := context.WithDeadline(tctx, workflow.Now(ctx).Add(time.Minute)) // want `\(context.WithDeadline\)`
	defer cancel2()
	_ = dctx
	start := workflow.Now(ctx)
	_ = time.Since(start) // want `\(time.Since\); use workflow.Now`
	withBudget()          // want `ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(deadlines.withBudget → context.WithTimeoutCause\)`

	// Safe: a deadline on workflow time.
	cctx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	_ = workflow.NewTimer(cctx, time.Minute)
	_ = workflow.Now(ctx).Sub(start)
	bg, stop := context.WithCancel(context.Background())
	stop()
	_ = bg
	return nil
}

func withBudget() { // want withBudget:`reaches\(ADK-W003 deadlines.withBudget → context.WithTimeoutCause\)`
	c, cancel := context.WithTimeoutCause(context.Background(), time.Second, nil)
	defer cancel()
	_ = c
}
