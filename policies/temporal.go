package policies

import (
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/vocab"
)

// RetryPolicy returns the Temporal retry policy of r. Its
// NonRetryableErrorTypes hold the kit's never-retryable types, always.
func (r RetryConfig) RetryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        r.InitialInterval,
		BackoffCoefficient:     r.BackoffCoefficient,
		MaximumInterval:        r.MaxInterval,
		MaximumAttempts:        int32(min(r.MaxAttempts, 1<<31-1)),
		NonRetryableErrorTypes: vocab.NeverRetryableTypes(),
	}
}

// ActivityOptions returns the Temporal activity options of p: StartToClose,
// HeartbeatTimeout and RetryPolicy (with the never-retryable types). Other
// fields are left at their zero values for the caller to set.
func (p ActivityPolicy) ActivityOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: p.StartToClose,
		HeartbeatTimeout:    p.Heartbeat,
		RetryPolicy:         p.Retry.RetryPolicy(),
	}
}

// LocalActivityOptions returns the Temporal local activity options of p.
// Local activities do not heartbeat, so the window is not mapped.
func (p ActivityPolicy) LocalActivityOptions() workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		StartToCloseTimeout: p.StartToClose,
		RetryPolicy:         p.Retry.RetryPolicy(),
	}
}

// WithNeverRetryable returns a copy of rp whose NonRetryableErrorTypes hold
// the kit's never-retryable types as well as its own, so that a retry policy
// a caller brought cannot retry a guardrail block. A nil rp gives a policy
// with only those types (and the server's defaults for the rest). rp itself
// is not changed.
func WithNeverRetryable(rp *temporal.RetryPolicy) *temporal.RetryPolicy {
	var out temporal.RetryPolicy
	if rp != nil {
		out = *rp
	}
	types := slices.Clone(out.NonRetryableErrorTypes)
	for _, t := range vocab.NeverRetryableTypes() {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	out.NonRetryableErrorTypes = types
	return &out
}

// Apply merges p into activity options a caller set, keeping what the caller
// set:
//   - a StartToCloseTimeout the caller set stays, and the heartbeat window is
//     then derived from it (when the class heartbeats and the caller set no
//     HeartbeatTimeout); otherwise both come from p;
//   - a RetryPolicy the caller brought stays and gains the never-retryable
//     types; without one, p's retry policy is used.
//
// singleAttempt says the idempotency rules allow this call one attempt (an
// effectful or undeclared tool called without an idempotency key, see
// AttemptsForTool): MaximumAttempts is then 1, also in a retry policy the
// caller brought, because the second attempt books a second seat.
//
// opts is not changed; the result shares no slice with it.
func Apply(opts workflow.ActivityOptions, p ActivityPolicy, singleAttempt bool) (workflow.ActivityOptions, error) {
	if err := p.Validate(); err != nil {
		return opts, err
	}
	out := opts
	if out.StartToCloseTimeout <= 0 {
		out.StartToCloseTimeout = p.StartToClose
		if out.HeartbeatTimeout == 0 {
			out.HeartbeatTimeout = p.Heartbeat
		}
	} else if out.HeartbeatTimeout == 0 && p.Heartbeat > 0 {
		window, err := HeartbeatWindowFor(out.StartToCloseTimeout)
		if err != nil {
			return opts, err
		}
		out.HeartbeatTimeout = window
	}
	out.RetryPolicy = retryPolicyFor(opts.RetryPolicy, p, singleAttempt)
	out.EventGroups = slices.Clone(opts.EventGroups)
	return out, nil
}

// retryPolicyFor is the retry policy of a call: the caller's, if brought,
// with the never-retryable types; else p's. singleAttempt caps it at one
// attempt. The result is new.
func retryPolicyFor(callers *temporal.RetryPolicy, p ActivityPolicy, singleAttempt bool) *temporal.RetryPolicy {
	var rp *temporal.RetryPolicy
	if callers != nil {
		rp = WithNeverRetryable(callers)
	} else {
		rp = p.Retry.RetryPolicy()
	}
	if singleAttempt {
		rp.MaximumAttempts = 1
	}
	return rp
}

// ApplyLocal is Apply for local activities: a StartToCloseTimeout the caller
// set stays, a RetryPolicy the caller brought stays and gains the
// never-retryable types, singleAttempt caps MaximumAttempts at 1. Local
// activities do not heartbeat.
//
// The SDK fills every local activity's RetryPolicy with its defaults
// (InitialInterval 1s, BackoffCoefficient 2, MaximumInterval 100s, unlimited
// attempts) when the caller sets none; a policy exactly equal to those is
// read as not brought, so the class policy applies.
func ApplyLocal(opts workflow.LocalActivityOptions, p ActivityPolicy, singleAttempt bool) (workflow.LocalActivityOptions, error) {
	if err := p.Validate(); err != nil {
		return opts, err
	}
	out := opts
	if out.StartToCloseTimeout <= 0 {
		out.StartToCloseTimeout = p.StartToClose
	}
	callers := opts.RetryPolicy
	if callers != nil && isSDKLocalDefault(callers) {
		callers = nil
	}
	out.RetryPolicy = retryPolicyFor(callers, p, singleAttempt)
	out.EventGroups = slices.Clone(opts.EventGroups)
	return out, nil
}

// isSDKLocalDefault reports whether rp is the retry policy the SDK gives a
// local activity whose caller set none.
func isSDKLocalDefault(rp *temporal.RetryPolicy) bool {
	return rp.InitialInterval == time.Second && rp.BackoffCoefficient == 2 &&
		rp.MaximumInterval == 100*time.Second && rp.MaximumAttempts == 0 &&
		len(rp.NonRetryableErrorTypes) == 0
}
