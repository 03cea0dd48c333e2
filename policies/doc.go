// Package policies holds the numbers and the decisions of temporaladk, as
// pure functions: the per-class ActivityPolicy and its defaults, validation,
// the heartbeat window derived from a tool's timeout, the attempts a tool
// call gets, the backoff window and full jitter for a random number the
// caller draws, the fitting of a wait to a deadline, and the mapping onto
// Temporal's ActivityOptions and RetryPolicy.
//
//	p, err := policies.ActivityPolicyFor(temporaladk.Model, 10*time.Minute, nil)
//	// p.StartToClose = 10m, p.Heartbeat = 60s, p.Retry.MaxAttempts = 3
//	opts, err := policies.Apply(workflow.ActivityOptions{}, p, false)
//	ctx = workflow.WithActivityOptions(ctx, opts)
//
// # Decisions where the design is silent
//
// Heartbeat windows: a tenth of the timeout clamped to [5s, 60s], and never
// more than half the timeout. For activities shorter than ten seconds the 5s
// floor yields to half the timeout (8s gives 4s), so the window always lies
// strictly inside the activity with room for a missed beat.
//
// A zero MaxInterval is read as 100 × InitialInterval, Temporal's own default,
// so the jitter window drawn in the activity and the server's schedule agree.
//
// A zero MaxRetryAfter honours no Retry-After: any wait a provider asks for
// ends the retries. Retrying earlier than asked only earns another refusal.
//
// Nothing here draws randomness or reads a clock: jitter takes the random
// number, truncation takes the elapsed time. The kit's activity interceptor
// supplies the real ones, inside the activity, never on the workflow path.
package policies
