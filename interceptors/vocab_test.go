package interceptors_test

import (
	"context"

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
