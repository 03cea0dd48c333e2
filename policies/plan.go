package policies

import (
	"fmt"

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
}

// PlanCall decides a call's plan, or reports false when the call is not the
// kit's to touch (no tag, no declared class, no default class). Every part of
// the kit that needs a call's plan calls this.
//
// The class is the tag, else the declaration's class, else DefaultClass; a
// class that is not one of the four is an error. The windows follow the
// declared timeout (ActivityPolicyFor). The idempotency rule (AttemptsForTool)
// applies to tools: a call whose class is TOOL, and an activity declared TOOL
// or EFFECTFUL whatever class tag the call carries, so that a tool that
// declared nothing is effectful under any tag. Other activities keep their
// class policy's attempts: a RETRIEVAL or MEMORY read that declared nothing
// about repeating is still a read.
func PlanCall(c Call) (Plan, bool, error) {
	var class temporaladk.Class
	switch {
	case c.Tag != "":
		if !c.Tag.Valid() {
			return Plan{}, false, fmt.Errorf("policies: activity %s is tagged with class %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", c.ActivityType, c.Tag)
		}
		class = c.Tag
	case c.Declaration != nil && c.Declaration.Class != "":
		class = c.Declaration.Class
	case c.DefaultClass != "":
		class = c.DefaultClass
	default:
		return Plan{}, false, nil
	}
	if !class.Valid() {
		return Plan{}, false, fmt.Errorf("policies: activity %s has class %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", c.ActivityType, class)
	}
	p, ok := c.Policies[class]
	if !ok {
		p = defaults[class]
	}
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
