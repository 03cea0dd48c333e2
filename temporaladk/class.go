package temporaladk

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"
)

// Class is the kind of call an agent makes. Each class has its own timeouts,
// heartbeat window and retry settings (see package policies).
//
// The zero value is no class: a call without a class is left to the
// interceptor's default class, or untouched when there is none.
type Class string

// The four activity classes.
const (
	// Model is a call to a language model: slow, streams, worth retrying on a
	// provider blip.
	Model Class = "MODEL"
	// Tool is a call that is assumed to change the world until its
	// declaration says otherwise.
	Tool Class = "TOOL"
	// Retrieval is a read from a search index or document store.
	Retrieval Class = "RETRIEVAL"
	// Memory is a read or write of conversation memory.
	Memory Class = "MEMORY"
)

// Classes returns the four classes in a fixed order.
func Classes() []Class { return []Class{Model, Tool, Retrieval, Memory} }

// String returns the class name, or "" for the zero value.
func (c Class) String() string { return string(c) }

// Valid reports whether c is one of the four classes. The zero value is not
// valid.
func (c Class) Valid() bool {
	switch c {
	case Model, Tool, Retrieval, Memory:
		return true
	}
	return false
}

// Lower returns the class name in lower case ("model"), as used in
// activity summaries and metric tags.
func (c Class) Lower() string {
	// The four classes' names are constants: no allocation on every call.
	switch c {
	case Model:
		return "model"
	case Tool:
		return "tool"
	case Retrieval:
		return "retrieval"
	case Memory:
		return "memory"
	}
	return strings.ToLower(string(c))
}

// ParseClass returns the class named by name, in any letter case ("MODEL",
// "model"). A name that is none of the four classes is an error: there is no
// silent default.
func ParseClass(name string) (Class, error) {
	c := Class(strings.ToUpper(name))
	if !c.Valid() {
		return "", fmt.Errorf("temporaladk: unknown activity class %q (want one of MODEL, TOOL, RETRIEVAL, MEMORY)", name)
	}
	return c, nil
}

type classKey struct{}

// WithClass returns a workflow context whose activity calls are tagged with
// class c:
//
//	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
//	err := workflow.ExecuteActivity(ctx, CallModel, prompt).Get(ctx, &reply)
//
// The tag is read by the kit's workflow interceptor. A class that is not
// valid is kept as given and refused by the interceptor when the call is made,
// with an error naming it, so a typo fails the call rather than passing
// silently.
func WithClass(ctx workflow.Context, c Class) workflow.Context {
	return workflow.WithValue(ctx, classKey{}, c)
}

// ClassFrom returns the class tagged on ctx by WithClass, and whether there
// was one.
func ClassFrom(ctx workflow.Context) (Class, bool) {
	if ctx == nil {
		return "", false
	}
	c, ok := ctx.Value(classKey{}).(Class)
	return c, ok
}

type tenantKey struct{}
type idempotencyKeyKey struct{}

// WithTenant returns a workflow context whose calls derive their idempotency
// keys for tenant. Keys never cross tenants. If not set, the kit's
// interceptor takes the workflow's namespace as the tenant.
func WithTenant(ctx workflow.Context, tenant string) workflow.Context {
	return workflow.WithValue(ctx, tenantKey{}, tenant)
}

// TenantFrom returns the tenant set by WithTenant, and whether there was one.
func TenantFrom(ctx workflow.Context) (string, bool) {
	if ctx == nil {
		return "", false
	}
	t, ok := ctx.Value(tenantKey{}).(string)
	return t, ok
}

// WithIdempotencyKey returns a workflow context whose next calls carry key
// as their idempotency key, for a tool whose key is not derived from its
// arguments. An effectful tool called with a key gets the policy's attempts
// back, because the second call lands on the first call's result. Use one
// key per logical call.
func WithIdempotencyKey(ctx workflow.Context, key string) workflow.Context {
	return workflow.WithValue(ctx, idempotencyKeyKey{}, key)
}

// IdempotencyKeyFrom returns the key set by WithIdempotencyKey, and whether
// there was one.
func IdempotencyKeyFrom(ctx workflow.Context) (string, bool) {
	if ctx == nil {
		return "", false
	}
	k, ok := ctx.Value(idempotencyKeyKey{}).(string)
	return k, ok && k != ""
}
