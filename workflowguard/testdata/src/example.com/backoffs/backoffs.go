// Package backoffs retries with backoff libraries: deterministic backoffs in front of // want package:`interface calls\(backoffs.LoopWorkflow calls \(github.com/sethvargo/go-retry.Backoff\).Next; backoffs.LoopWorkflow calls \(github.com/cenkalti/backoff/v4.BackOff\).NextBackOff\)`
// workflow.Sleep stay quiet, retry loops sleep on the wall clock, and deadlines read it.
package backoffs

import (
	"context"
	"errors"
	"time"

	avast "github.com/avast/retry-go/v4"
	backoff4 "github.com/cenkalti/backoff/v4"
	backoff5 "github.com/cenkalti/backoff/v5"
	sethvargo "github.com/sethvargo/go-retry"
	"go.temporal.io/sdk/workflow"
)

func BackoffWorkflow(ctx workflow.Context) error { // want BackoffWorkflow:`reaches`
	// Deterministic: no jitter, and no MaxElapsedTime (v4) or none to have (v5).
	fixed := &backoff5.ExponentialBackOff{InitialInterval: time.Second, RandomizationFactor: 0, Multiplier: 2}
	_ = workflow.Sleep(ctx, fixed.NextBackOff())
	noJitter := backoff5.NewExponentialBackOff()
	noJitter.RandomizationFactor = 0
	_ = workflow.Sleep(ctx, noJitter.NextBackOff())
	literal4 := &backoff4.ExponentialBackOff{InitialInterval: time.Second, Multiplier: 2}
	_ = workflow.Sleep(ctx, literal4.NextBackOff())
	opts4 := backoff4.NewExponentialBackOff(backoff4.WithRandomizationFactor(0), backoff4.WithMaxElapsedTime(0))
	_ = workflow.Sleep(ctx, opts4.NextBackOff())

	// v4 without jitter still stops at MaxElapsedTime on the wall clock.
	clocked := backoff4.NewExponentialBackOff()
	clocked.RandomizationFactor = 0
	_ = workflow.Sleep(ctx, clocked.NextBackOff()) // want `^ADK-W003 wall clock on the workflow path \(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff, which stops at MaxElapsedTime on the wall clock\)`
	jittered := backoff5.NewExponentialBackOff()
	_ = workflow.Sleep(ctx, jittered.NextBackOff()) // want `^ADK-W002 .*\(\(\*github.com/cenkalti/backoff/v5.ExponentialBackOff\).NextBackOff\); let the activity RetryPolicy back off`

	// A retry loop sleeps on the wall clock whether or not it jitters.
	op := func() error { return errors.New("again") }
	_ = avast.Do(op, avast.DelayType(avast.FixedDelay))                                   // want `^ADK-W003 wall clock on the workflow path \(github.com/avast/retry-go/v4.Do\); let the activity RetryPolicy retry`
	_ = backoff4.Retry(op, literal4)                                                      // want `^ADK-W003 .*\(github.com/cenkalti/backoff/v4.Retry\)`
	b := sethvargo.WithMaxDuration(time.Minute, sethvargo.NewConstant(time.Second))       // want `^ADK-W003 .*\(github.com/sethvargo/go-retry.WithMaxDuration\); take the deadline from workflow time`
	_ = sethvargo.Do(context.Background(), b, func(context.Context) error { return nil }) // want `\(github.com/sethvargo/go-retry.Do\)`
	_ = avast.RandomDelay(1, nil)                                                         // want `^ADK-W002 .*\(github.com/avast/retry-go/v4.RandomDelay\)`
	return nil
}
