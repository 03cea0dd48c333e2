// Package policies holds the numbers and the decisions of temporaladk, as
// pure functions: the per-class ActivityPolicy and its defaults, validation,
// the heartbeat window derived from a tool's timeout, the attempts a tool
// call gets, the backoff window and full jitter for a random number the
// caller draws, the fitting of a wait to a deadline, and the mapping onto
// Temporal's ActivityOptions and RetryPolicy.
//
//	plan, planned, err := policies.PlanCall(policies.Call{ActivityType: "Chat", Tag: temporaladk.Model})
//	// plan.Policy.StartToClose = 900s, Heartbeat = 60s, Retry.MaxAttempts = 3
//	opts, err := policies.Apply(workflow.ActivityOptions{}, plan)
//	d, err := policies.DecideWait(policies.WaitInput{Err: err, Attempt: 1, MaxAttempts: 3, Retry: plan.Policy.Retry, Random: rand.Float64})
//
// # One place decides
//
// Three functions make the kit's decisions, and every part of the kit calls
// them rather than deciding again: PlanCall (a call's class, windows,
// attempts and single-attempt rule), DecideWait (whether a failed attempt is
// followed by another, and after how long), and Retryable (whether a failure
// is a fault at all). Retryable and DecideWait read the kit's error table,
// one row per error type the server records: whether it is retried, and the
// fixed wait of the kit's own retryable failure (TemporaladkBudgetUnavailable,
// 1s); the typed errors' Retryable methods read the same rows. The workflow
// interceptor plans with PlanCall; the activity interceptor and
// ActivityAttempts, the in-activity retry loop, decide waits with
// DecideWait. The retry loop lives here, next to its decision, rather than
// in package temporaladk: the packages depend one way (temporaladk ←
// policies), and the loop calls DecideWait.
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
// A wait that leaves no time for the attempt it is for (wait ≥ what is
// left) is final: a retry scheduled at the deadline itself could not run.
// It is reported as truncated when it was longer than what was left.
//
// The idempotency rule applies to tools: a call whose class is TOOL, and an
// activity declared TOOL or EFFECTFUL under any class tag. A RETRIEVAL or
// MEMORY activity that declared nothing about repeating keeps its class's
// attempts: a read is a read.
//
// A policy's priority key runs from 1 to MaxPriorityKey (5), the range of a
// Temporal server's default configuration; 0 sets none. A fairness key over
// MaxFairnessKeyBytes (64), a negative key, and a weight outside what the
// server clamps weights to are errors naming the class and the field.
//
// Nothing here draws randomness or reads a clock: jitter takes the random
// number, truncation takes the elapsed time. The kit's activity interceptor
// supplies the real ones, inside the activity, never on the workflow path.
package policies
