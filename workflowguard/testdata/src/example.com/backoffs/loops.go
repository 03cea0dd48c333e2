package backoffs

import (
	"time"

	backoff4 "github.com/cenkalti/backoff/v4"
	sethvargo "github.com/sethvargo/go-retry"
	"go.temporal.io/sdk/workflow"
)

// Backoffs built off the workflow path and stepped in workflow loops: the construction is not
// on the path, each Next is.
var (
	deadlined = sethvargo.WithMaxDuration(time.Minute, sethvargo.NewConstant(time.Second))
	jitterOn  = sethvargo.WithJitter(time.Second, sethvargo.NewConstant(time.Second))
	constant  = sethvargo.NewConstant(time.Second)
)

// retrier and wrapped embed a backoff: NextBackOff is promoted from it.
type retrier struct{ *backoff4.ExponentialBackOff }

type wrapped struct{ backoff4.BackOff }

func LoopWorkflow(ctx workflow.Context) { // want LoopWorkflow:`reaches`
	for {
		d, stop := deadlined.Next() // want `^ADK-W003 wall clock on the workflow path \(\(github.com/sethvargo/go-retry.Backoff\).Next of a backoff made by WithMaxDuration, whose stop reads the wall clock at each call\); take the deadline from workflow time` `likely: example.com/backoffs.deadlined`
		if stop {
			break
		}
		_ = workflow.Sleep(ctx, d)
	}
	d, _ := jitterOn.Next() // want `^ADK-W002 random draw on the workflow path \(\(github.com/sethvargo/go-retry.Backoff\).Next of a backoff made by WithJitter, which draws at each call\)` `likely: example.com/backoffs.jitterOn`
	_ = workflow.Sleep(ctx, d)
	r := retrier{backoff4.NewExponentialBackOff()}
	_ = workflow.Sleep(ctx, r.NextBackOff()) // want `^ADK-W002 .*\(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff\)` `^ADK-W003 .*which stops at MaxElapsedTime on the wall clock\)`
	w := wrapped{BackOff: backoff4.NewExponentialBackOff()}
	_ = workflow.Sleep(ctx, w.NextBackOff()) // want `^ADK-W002 .*\(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff, through \(github.com/cenkalti/backoff/v4.BackOff\).NextBackOff\)` `ADK-W003 .*through .*which stops at MaxElapsedTime`

	// Safe: a constant backoff, embedded backoffs proved deterministic.
	c, _ := constant.Next()
	_ = workflow.Sleep(ctx, c)
	quiet := retrier{backoff4.NewExponentialBackOff(backoff4.WithRandomizationFactor(0), backoff4.WithMaxElapsedTime(0))}
	_ = workflow.Sleep(ctx, quiet.NextBackOff())
	fixed := wrapped{&backoff4.ExponentialBackOff{InitialInterval: time.Second, Multiplier: 2}}
	_ = workflow.Sleep(ctx, fixed.NextBackOff())
	inner := backoff4.NewExponentialBackOff()
	zeroed := retrier{inner}
	zeroed.RandomizationFactor = 0
	zeroed.MaxElapsedTime = 0
	_ = workflow.Sleep(ctx, zeroed.NextBackOff())
}
