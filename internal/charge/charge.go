// Package charge lets a test environment carry the kit's budget charges in
// place of the activity's client: the SDK's test environment gives
// activities a client that cannot send Updates, so testsuite's kit
// environment puts a Route in the activity's context that sends the same
// Update through the test environment.
package charge

import "context"

// Route sends charge Updates to the workflow under test. A pointer to one
// names where charges go: the kit gathers the charges of one route and run
// into one Update.
type Route struct {
	// Send sends the Update updateName with updateID and request, and
	// returns the handler's result (the result value, or its encoded
	// payloads).
	Send func(ctx context.Context, updateName, updateID string, request any) (any, error)
}

type key struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Route) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the Route ctx carries, if any.
func From(ctx context.Context) (*Route, bool) {
	r, ok := ctx.Value(key{}).(*Route)
	return r, ok && r != nil && r.Send != nil
}
