package policies_test

import (
	"context"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// allClasses is the four classes, in the order the tests report them.
var allClasses = []temporaladk.Class{temporaladk.Model, temporaladk.Tool, temporaladk.Retrieval, temporaladk.Memory}

// callOf returns the call an activity's context carries, or the zero call.
func callOf(ctx context.Context) temporaladk.ActivityCall {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	return call
}

// parseClass reads a class name as encoding.TextUnmarshaler does.
func parseClass(name string) (temporaladk.Class, error) {
	var c temporaladk.Class
	err := c.UnmarshalText([]byte(name))
	return c, err
}

// parseIdempotency reads a declaration name as encoding.TextUnmarshaler
// does.
func parseIdempotency(name string) (temporaladk.Idempotency, error) {
	var i temporaladk.Idempotency
	err := i.UnmarshalText([]byte(name))
	return i, err
}

// validated returns p when it is valid, else the zero policy and the
// problem Validate names.
func validated(p policies.ActivityPolicy) (policies.ActivityPolicy, error) {
	if err := p.Validate(); err != nil {
		return policies.ActivityPolicy{}, err
	}
	return p, nil
}

// defaultPolicies is the default policy of every class.
func defaultPolicies() map[temporaladk.Class]policies.ActivityPolicy {
	all := make(map[temporaladk.Class]policies.ActivityPolicy, len(allClasses))
	for _, c := range allClasses {
		p, err := policies.Default(c)
		if err != nil {
			panic(err)
		}
		all[c] = p
	}
	return all
}
