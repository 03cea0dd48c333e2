// Package keptbackoffs keeps its backoffs where a workflow's loop cannot see them built: in the // want package:`interface calls`
// fields of the workflow's struct, set by its constructor, and behind a constructor function.
// Each Next is judged by what built the value, and reported where the loop steps it.
package keptbackoffs

import (
	"time"

	backoff4 "github.com/cenkalti/backoff/v4"
	sethvargo "github.com/sethvargo/go-retry"
	"go.temporal.io/sdk/workflow"
)

// Poller polls with the backoffs its constructor gives it.
type Poller struct {
	retry  sethvargo.Backoff
	steady sethvargo.Backoff
	pause  backoff4.BackOff
	calm   backoff4.BackOff
}

// NewPoller builds the backoffs; building them is not on the workflow path.
func NewPoller() *Poller { // want NewPoller:`reaches`
	return &Poller{
		retry:  sethvargo.WithMaxDuration(time.Minute, sethvargo.NewConstant(time.Second)),
		steady: sethvargo.NewConstant(time.Second),
		pause:  backoff4.NewExponentialBackOff(),
		calm:   &backoff4.ExponentialBackOff{InitialInterval: time.Second, Multiplier: 2},
	}
}

func newDeadline() sethvargo.Backoff { // want newDeadline:`reaches`
	return sethvargo.WithMaxDuration(time.Minute, sethvargo.NewConstant(time.Second))
}

// policy embeds the exponential backoff itself; newPolicy leaves its defaults.
type policy struct{ *backoff4.ExponentialBackOff }

func newPolicy() *policy { return &policy{backoff4.NewExponentialBackOff()} }

// paced steps the backoff it embeds.
type paced struct{ backoff4.BackOff }

// Stepper is a workflow struct that embeds its backoff.
type Stepper struct{ backoff4.BackOff }

// NewStepper gives the Stepper a jittered backoff.
func NewStepper() *Stepper { return &Stepper{BackOff: backoff4.NewExponentialBackOff()} }

func (p *Poller) Poll(ctx workflow.Context) error { // want Poll:`reaches`
	for {
		d, stop := p.retry.Next() // want `^ADK-W003 wall clock on the workflow path \(\(github.com/sethvargo/go-retry.Backoff\).Next of a backoff made by WithMaxDuration, whose stop reads the wall clock at each call\)`
		if stop {
			break
		}
		_ = workflow.Sleep(ctx, d)
	}
	b := newDeadline() // want `^ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(keptbackoffs.newDeadline → github.com/sethvargo/go-retry.WithMaxDuration\)`
	for {
		d, stop := b.Next() // want `\(\(github.com/sethvargo/go-retry.Backoff\).Next of a backoff made by WithMaxDuration, whose stop reads the wall clock at each call\)`
		if stop {
			break
		}
		_ = workflow.Sleep(ctx, d)
	}
	_ = workflow.Sleep(ctx, p.pause.NextBackOff()) // want `^ADK-W002 random draw on the workflow path \(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff, through \(github.com/cenkalti/backoff/v4.BackOff\).NextBackOff\)` `^ADK-W003 .*which stops at MaxElapsedTime on the wall clock\)`
	pol := newPolicy()
	_ = workflow.Sleep(ctx, pol.NextBackOff()) // want `^ADK-W002 .*\(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff\); let` `^ADK-W003 .*\(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff, which stops at MaxElapsedTime`
	pp := paced{p.pause}
	_ = workflow.Sleep(ctx, pp.NextBackOff()) // want `^ADK-W002 .*through \(github.com/cenkalti/backoff/v4.BackOff\).NextBackOff\)` `^ADK-W003 .*which stops at MaxElapsedTime`

	// Safe: a constant backoff and a literal without jitter or deadline, both kept in fields.
	d, _ := p.steady.Next()
	_ = workflow.Sleep(ctx, d)
	_ = workflow.Sleep(ctx, p.calm.NextBackOff())
	return nil
}

func (s *Stepper) Step(ctx workflow.Context) error { // want Step:`reaches`
	return workflow.Sleep(ctx, s.NextBackOff()) // want `^ADK-W002 .*through \(github.com/cenkalti/backoff/v4.BackOff\).NextBackOff\)` `^ADK-W003 .*which stops at MaxElapsedTime`
}
