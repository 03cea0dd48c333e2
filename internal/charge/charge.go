// Package charge lets a test environment carry the kit's budget charges in
// place of the activity's client: the SDK's test environment gives
// activities a client that cannot send Updates, so testsuite's kit
// environment puts a Charger in the activity's context that sends the same
// Update through the test environment.
package charge

import "context"

// Charger sends the charge Update named updateName with updateID and
// request to the workflow of the activity ctx serves, and returns the
// handler's result (the result value, or its encoded payloads).
type Charger func(ctx context.Context, updateName, updateID string, request any) (any, error)

type key struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Charger) context.Context {
	return context.WithValue(ctx, key{}, c)
}

// From returns the Charger ctx carries, if any.
func From(ctx context.Context) (Charger, bool) {
	c, ok := ctx.Value(key{}).(Charger)
	return c, ok && c != nil
}
