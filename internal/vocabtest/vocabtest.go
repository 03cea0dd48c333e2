// Package vocabtest holds the small helpers the kit's own tests share over
// its public vocabulary: parsing class and idempotency names as text, reading the call an activity serves, and the default
// policies. It is for tests only.
package vocabtest

import (
	"context"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// CallOf returns the call an activity's context carries, or the zero call.
func CallOf(ctx context.Context) temporaladk.ActivityCall {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	return call
}

// ParseClass reads a class name as encoding.TextUnmarshaler does.
func ParseClass(name string) (temporaladk.Class, error) {
	var c temporaladk.Class
	err := c.UnmarshalText([]byte(name))
	return c, err
}

// ParseIdempotency reads a declaration name as encoding.TextUnmarshaler
// does.
func ParseIdempotency(name string) (temporaladk.Idempotency, error) {
	var i temporaladk.Idempotency
	err := i.UnmarshalText([]byte(name))
	return i, err
}

// Validated returns p when it is valid, else the zero policy and the
// problem Validate names.
func Validated(p policies.ActivityPolicy) (policies.ActivityPolicy, error) {
	if err := p.Validate(); err != nil {
		return policies.ActivityPolicy{}, err
	}
	return p, nil
}

// DefaultPolicies returns the default policy of every class. A class
// without one is an error.
func DefaultPolicies() (map[temporaladk.Class]policies.ActivityPolicy, error) {
	all := map[temporaladk.Class]policies.ActivityPolicy{}
	for _, c := range vocab.Classes() {
		p, err := policies.Default(c)
		if err != nil {
			return nil, err
		}
		all[c] = p
	}
	return all, nil
}
