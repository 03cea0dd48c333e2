package policies

import (
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Call is what PlanCall is told about one activity call.
type Call struct {
	// ActivityType names the activity, for errors.
	ActivityType string
	// Tag is the class tag on the workflow context (temporaladk.WithClass),
	// or "" when there is none.
	Tag temporaladk.Class
	// Declaration is the activity type's declaration, or nil when it has
	// none.
	Declaration *temporaladk.Declaration
	// DefaultClass is the class of calls with neither a tag nor a declared
	// class; "" leaves such calls alone.
	DefaultClass temporaladk.Class
	// Policies are the class policies in force. A class missing from it (or
	// a nil map) has its default policy.
	Policies map[temporaladk.Class]ActivityPolicy
	// HasKey says whether the call carries an idempotency key.
	HasKey bool
	// Retry is the retry policy the caller set on the call's options, or nil
	// for none. For a local activity, a policy equal to the one the SDK fills
	// in when the caller sets none counts as none.
	Retry *temporal.RetryPolicy
	// Local is true for a local activity, whose retries run inside the
	// worker, out of the workflow's sight.
	Local bool
	// Budgeted is true for a call made under a ceiling on attempts or a
	// pool of retries (temporaladk.Budgets Attempts, Retries).
	Budgeted bool
	// Tenant is the tenant on the workflow context (temporaladk.WithTenant),
	// or "" when there is none. It becomes a planned call's fairness key.
	Tenant string
}

// Plan is what the kit decided for one call.
type Plan struct {
	// Class is the call's class.
	Class temporaladk.Class
	// Policy is the class policy with the windows derived from the declared
	// timeout, and Retry.MaxAttempts the attempts this call gets.
	Policy ActivityPolicy
	// Idempotency is what the declaration says; Undeclared without one.
	Idempotency temporaladk.Idempotency
	// SingleAttempt is true for a tool treated as effectful and called
	// without a key: one attempt, whatever a retry policy says, and a timeout
	// after it may have started is an indeterminate outcome.
	SingleAttempt bool
	// RetryPolicy is the retry policy the call is scheduled with, and its
	// MaximumAttempts the one count of the call's attempts (0: unlimited).
	// It is nil for a call the kit leaves exactly as it is.
	RetryPolicy *temporal.RetryPolicy
	// Priority is the priority a planned call is scheduled with where the
	// caller set none (see Apply): the class policy's, with the call's
	// tenant as its FairnessKey when the call has a tenant. It is zero for a
	// call the kit does not plan, and local activities do not carry it.
	Priority temporal.Priority
}

// PlanCall decides a call's plan, or reports false when the call is not the
// kit's to touch (no tag, no declared class, no default class). Every part of
// the kit that needs a call's plan calls this.
//
// The class is the tag, else the declaration's class, else DefaultClass,
// each read in any letter case (as temporaladk.Class.UnmarshalText reads
// it), and so are the keys of Policies; a class that is not one of the four
// is an error. The windows follow the
// declared timeout (ActivityPolicyFor). The idempotency rule (AttemptsForTool)
// applies to tools: a call whose class is TOOL, and an activity declared TOOL
// or EFFECTFUL whatever class tag the call carries, so that a tool that
// declared nothing is effectful under any tag. Other activities keep their
// class policy's attempts: a RETRIEVAL or MEMORY read that declared nothing
// about repeating is still a read.
//
// The retry policy follows from the plan: the caller's, if brought, else the
// class policy's; with the kit's never-retryable types, always; one attempt
// for a single-attempt call, whatever the caller's policy says, and for a
// local activity under a budget, whose retries could not be charged. A call
// the kit does not plan keeps its options but for that retry policy: the
// never-retryable types (an activity, whose attempts may run on a worker
// without the kit) and the one attempt under a budget (a local activity).
//
// The priority of a planned call is its class policy's, with the call's
// tenant as the fairness key, so that one tenant's backlog of tasks does not
// hold up another's first attempts; a tenant longer than a fairness key may
// be (MaxFairnessKeyBytes) is an error. A call the kit does not plan gets no
// priority from it.
func PlanCall(c Call) (Plan, bool, error) {
	if c.Local && c.Retry != nil && isSDKLocalDefault(c.Retry) {
		c.Retry = nil
	}
	pl, planned, err := planClass(c)
	if err != nil {
		return Plan{}, false, err
	}
	oneAttempt := pl.SingleAttempt || (c.Local && c.Budgeted)
	switch {
	case planned:
		pl.RetryPolicy = retryPolicyFor(c.Retry, pl.Policy, oneAttempt)
		if !c.Local {
			if pl.Priority, err = planPriority(c.ActivityType, pl.Policy, c.Tenant); err != nil {
				return Plan{}, false, err
			}
		}
	case !c.Local:
		pl.RetryPolicy = WithNeverRetryable(c.Retry)
	case c.Budgeted:
		pl.RetryPolicy = oneAttemptOf(c.Retry)
	}
	return pl, planned, nil
}

// policyOf returns the policy policies holds for class, whose key may be
// spelt in any letter case: the canonical key first, else the first key in
// sorted order that reads as class.
func policyOf(policies map[temporaladk.Class]ActivityPolicy, class temporaladk.Class) (ActivityPolicy, bool) {
	if p, ok := policies[class]; ok {
		return p, true
	}
	for _, k := range slices.Sorted(maps.Keys(policies)) {
		if vocab.CanonicalClass(k) == class {
			return policies[k], true
		}
	}
	return ActivityPolicy{}, false
}

// planClass decides the class, the policy and the idempotency rule. Every
// class it is given is read in any letter case (vocab.CanonicalClass).
func planClass(c Call) (Plan, bool, error) {
	var class temporaladk.Class
	switch {
	case c.Tag != "":
		if class = vocab.CanonicalClass(c.Tag); !class.Valid() {
			return Plan{}, false, fmt.Errorf("policies: activity %s is tagged with class %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", c.ActivityType, c.Tag)
		}
	case c.Declaration != nil && c.Declaration.Class != "":
		class = vocab.CanonicalClass(c.Declaration.Class)
	case c.DefaultClass != "":
		class = vocab.CanonicalClass(c.DefaultClass)
	default:
		return Plan{}, false, nil
	}
	if !class.Valid() {
		return Plan{}, false, fmt.Errorf("policies: activity %s has class %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", c.ActivityType, class)
	}
	p, ok := policyOf(c.Policies, class)
	if !ok {
		p = defaults[class]
	}
	p.Class = class
	pl := Plan{Class: class, Policy: p}
	if d := c.Declaration; d != nil {
		pl.Idempotency = d.Idempotency
		if d.Timeout > 0 {
			derived, err := ActivityPolicyFor(class, d.Timeout, &p)
			if err != nil {
				return Plan{}, false, fmt.Errorf("policies: activity %s: %w", c.ActivityType, err)
			}
			pl.Policy = derived
		}
	}
	if class == temporaladk.Tool || (c.Declaration != nil && c.Declaration.IsTool()) {
		pl.Policy.Retry.MaxAttempts = AttemptsForTool(pl.Policy, pl.Idempotency, c.HasKey)
		pl.SingleAttempt = (pl.Idempotency.TreatedAsEffectful() || !pl.Idempotency.Valid()) && !c.HasKey
	}
	if err := pl.Policy.Validate(); err != nil {
		return Plan{}, false, fmt.Errorf("policies: activity %s: %w", c.ActivityType, err)
	}
	return pl, true, nil
}
