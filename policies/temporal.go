package policies

import (
	"fmt"
	"math"
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

// Apply writes a plan into the activity options a caller set, keeping what
// the caller set:
//   - a StartToCloseTimeout the caller set stays, and the heartbeat window is
//     then derived from it (when the class heartbeats and the caller set no
//     HeartbeatTimeout); otherwise both come from the plan's policy;
//   - the retry policy is the plan's (see PlanCall: the caller's, if brought,
//     with the never-retryable types and the plan's attempts);
//   - each Priority field the caller set stays, and each it left at zero is
//     the plan's; a resulting field out of range (a PriorityKey outside 0 to
//     MaxPriorityKey, a FairnessKey over MaxFairnessKeyBytes, a
//     FairnessWeight outside MinFairnessWeight to MaxFairnessWeight) is an
//     error naming it.
//
// A plan of a call the kit does not plan (no class) changes only the retry
// policy: its Priority stays exactly as the caller set it. opts is not changed; the result shares no slice with it.
func Apply(opts workflow.ActivityOptions, pl Plan) (workflow.ActivityOptions, error) {
	out := opts
	if pl.Class != "" {
		if err := pl.Policy.Validate(); err != nil {
			return opts, err
		}
		if out.StartToCloseTimeout <= 0 {
			out.StartToCloseTimeout = pl.Policy.StartToClose
			if out.HeartbeatTimeout == 0 {
				out.HeartbeatTimeout = pl.Policy.Heartbeat
			}
		} else if out.HeartbeatTimeout == 0 && pl.Policy.Heartbeat > 0 {
			window, err := HeartbeatWindowFor(out.StartToCloseTimeout)
			if err != nil {
				return opts, err
			}
			out.HeartbeatTimeout = window
		}
		out.Priority = mergePriority(opts.Priority, pl.Priority)
		if field, reason := priorityProblem(out.Priority); field != "" {
			return opts, fmt.Errorf("policies: ActivityOptions.Priority.%s of a %s call %s", field, pl.Class, reason)
		}
	}
	if pl.RetryPolicy != nil {
		out.RetryPolicy = cloneRetryPolicy(pl.RetryPolicy)
	}
	out.EventGroups = slices.Clone(opts.EventGroups)
	return out, nil
}

// ApplyLocal is Apply for local activities: a StartToCloseTimeout the caller
// set stays, the retry policy is the plan's. Local activities do not
// heartbeat, and have no priority: they run on the worker that schedules
// them, through no task queue.
func ApplyLocal(opts workflow.LocalActivityOptions, pl Plan) (workflow.LocalActivityOptions, error) {
	out := opts
	if pl.Class != "" {
		if err := pl.Policy.Validate(); err != nil {
			return opts, err
		}
		if out.StartToCloseTimeout <= 0 {
			out.StartToCloseTimeout = pl.Policy.StartToClose
		}
	}
	if pl.RetryPolicy != nil {
		out.RetryPolicy = cloneRetryPolicy(pl.RetryPolicy)
	}
	out.EventGroups = slices.Clone(opts.EventGroups)
	return out, nil
}

// retryPolicyFor is the retry policy of a planned call: the caller's, if
// brought, with the never-retryable types; else p's. oneAttempt caps it at
// one attempt. The result is new.
func retryPolicyFor(callers *temporal.RetryPolicy, p ActivityPolicy, oneAttempt bool) *temporal.RetryPolicy {
	var rp *temporal.RetryPolicy
	if callers != nil {
		rp = WithNeverRetryable(callers)
	} else {
		rp = p.Retry.RetryPolicy()
	}
	if oneAttempt {
		rp.MaximumAttempts = 1
	}
	return rp
}

// BoundAttempts is rp with its MaximumAttempts at most most, so that the
// server itself never runs more attempts of a budgeted call than its budget
// had left when it was scheduled, whichever workers run them: a worker
// without the kit asks no charge, and the server still stops there. It
// reports whether the bound is below what rp allowed (rp unlimited, or
// above most): the budget then decides the call's last attempt. A most
// below 1 leaves rp as it is. The result is new; rp is not changed.
func BoundAttempts(rp *temporal.RetryPolicy, most int) (*temporal.RetryPolicy, bool) {
	var out *temporal.RetryPolicy
	if rp != nil {
		out = cloneRetryPolicy(rp)
	} else {
		out = &temporal.RetryPolicy{}
	}
	if most < 1 || (out.MaximumAttempts > 0 && int(out.MaximumAttempts) <= most) {
		return out, false
	}
	out.MaximumAttempts = int32(min(most, math.MaxInt32))
	return out, true
}

// oneAttemptOf is rp, or the SDK's default for a local activity when nil,
// capped at one attempt. The result is new.
func oneAttemptOf(rp *temporal.RetryPolicy) *temporal.RetryPolicy {
	out := temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 100 * time.Second}
	if rp != nil {
		out = *cloneRetryPolicy(rp)
	}
	out.MaximumAttempts = 1
	return &out
}

func cloneRetryPolicy(rp *temporal.RetryPolicy) *temporal.RetryPolicy {
	out := *rp
	out.NonRetryableErrorTypes = slices.Clone(rp.NonRetryableErrorTypes)
	return &out
}

// isSDKLocalDefault reports whether rp is the retry policy the SDK gives a
// local activity whose caller set none (InitialInterval 1s,
// BackoffCoefficient 2, MaximumInterval 100s, unlimited attempts).
func isSDKLocalDefault(rp *temporal.RetryPolicy) bool {
	return rp.InitialInterval == time.Second && rp.BackoffCoefficient == 2 &&
		rp.MaximumInterval == 100*time.Second && rp.MaximumAttempts == 0 &&
		len(rp.NonRetryableErrorTypes) == 0
}
