package policies

import (
	"fmt"
	"math"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/temporaladk"
)

// MaxPriorityKey is the largest priority key a policy may set: the lowest
// priority of a Temporal server's default configuration, whose keys run from
// 1 (dispatched first) to 5, with 3 for a task that sets none.
const MaxPriorityKey = 5

// MaxFairnessKeyBytes is the longest fairness key, in bytes, a Temporal
// server accepts.
const MaxFairnessKeyBytes = 64

// MinFairnessWeight and MaxFairnessWeight bound a fairness weight that is
// set: a Temporal server clamps a weight to this range, so a weight outside
// it would not be the weight the tasks get.
const (
	MinFairnessWeight = 0.001
	MaxFairnessWeight = 1000
)

// validatePriority checks a policy's priority, for class c. Zero fields set
// nothing and are valid.
func validatePriority(c temporaladk.Class, p temporal.Priority) error {
	if sub, reason := priorityProblem(p); sub != "" {
		return &ValidationError{Field: "Priority." + sub, Reason: fmt.Sprintf("of class %s %s", c, reason)}
	}
	return nil
}

// priorityProblem names the first field of p that is out of range and says
// why, or returns "" when there is none.
func priorityProblem(p temporal.Priority) (field, reason string) {
	w := float64(p.FairnessWeight)
	switch {
	case p.PriorityKey < 0 || p.PriorityKey > MaxPriorityKey:
		return "PriorityKey", fmt.Sprintf("is %d: it must be from 1 (first) to %d (last), or 0 for none", p.PriorityKey, MaxPriorityKey)
	case len(p.FairnessKey) > MaxFairnessKeyBytes:
		return "FairnessKey", fmt.Sprintf("is %d bytes long: the server accepts at most %d", len(p.FairnessKey), MaxFairnessKeyBytes)
	case math.IsNaN(w) || math.IsInf(w, 0):
		return "FairnessWeight", fmt.Sprintf("is %v: it must be a finite number", p.FairnessWeight)
	case w != 0 && (w < MinFairnessWeight || w > MaxFairnessWeight):
		return "FairnessWeight", fmt.Sprintf("is %v: it must be from %v to %v, or 0 for none", p.FairnessWeight, MinFairnessWeight, MaxFairnessWeight)
	}
	return "", ""
}

// planPriority is the priority a planned call of policy p gets before the
// caller's own: the policy's, with the call's tenant as its fairness key
// when there is one. A tenant too long to be a fairness key is an error, not
// a key cut short: two tenants sharing a prefix would share a share.
func planPriority(activityType string, p ActivityPolicy, tenant string) (temporal.Priority, error) {
	pr := p.Priority
	if tenant != "" {
		if len(tenant) > MaxFairnessKeyBytes {
			return temporal.Priority{}, fmt.Errorf("policies: activity %s: tenant is %d bytes long, and as a fairness key the server accepts at most %d", activityType, len(tenant), MaxFairnessKeyBytes)
		}
		pr.FairnessKey = tenant
	}
	return pr, nil
}

// mergePriority is the caller's priority with each field it leaves at zero
// taken from the plan's: a caller's own field wins.
func mergePriority(callers, planned temporal.Priority) temporal.Priority {
	out := callers
	if out.PriorityKey == 0 {
		out.PriorityKey = planned.PriorityKey
	}
	if out.FairnessKey == "" {
		out.FairnessKey = planned.FairnessKey
	}
	if out.FairnessWeight == 0 {
		out.FairnessWeight = planned.FairnessWeight
	}
	return out
}
