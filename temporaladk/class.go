package temporaladk

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/kitcore"
)

// Class is the kind of call an agent makes. Each class has its own timeouts,
// heartbeat window and retry settings (see package policies).
//
// The zero value is no class: a call without a class is left to the
// interceptor's default class, or untouched when there is none.
//
// A class is read in any letter case wherever the kit takes one: a tag
// (WithClass), a Declaration, the interceptor's DefaultClass and Policies,
// an ActivityPolicy, a policies.Call, text (UnmarshalText). UnmarshalText
// decides which spellings name a class, for all of them; the kit keeps and
// reports the canonical spelling ("MODEL"), the only one Valid accepts.
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

// UnmarshalText sets c to the class named by text, in any letter case
// ("MODEL", "model"), so that a class reads from JSON, YAML or a flag. Empty
// text is the zero value, no class, as a Class encodes it. A name that is
// none of the four classes is an error and leaves c unchanged: there is no
// silent default. It is the one decision of which spellings name a class:
// every part of the kit that takes a Class reads it through this.
func (c *Class) UnmarshalText(text []byte) error {
	parsed := Class(strings.ToUpper(string(text)))
	if parsed != "" && !parsed.Valid() {
		return fmt.Errorf("temporaladk: unknown activity class %q (want one of MODEL, TOOL, RETRIEVAL, MEMORY)", text)
	}
	*c = parsed
	return nil
}

// canonicalClass is c in its canonical spelling when UnmarshalText reads it
// as a class, else c as it is, so that an error names what was written.
// internal/vocab.CanonicalClass is the same for the kit's other packages.
func canonicalClass(c Class) Class {
	var parsed Class
	if parsed.UnmarshalText([]byte(c)) != nil {
		return c
	}
	return parsed
}

// WithClass returns a workflow context whose activity calls are tagged with
// class c:
//
//	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
//	err := workflow.ExecuteActivity(ctx, CallModel, prompt).Get(ctx, &reply)
//
// The tag is read by the kit's workflow interceptor. A class in another
// letter case ("model") is the class it names. A name that is no class is
// kept as given and refused by the interceptor when the call is made, with
// an error naming it, so a typo fails the call rather than passing
// silently. Without the kit's interceptor in the running workflow, or with a
// nil ctx, it panics, as WithBudgets does: a class nobody applies is a
// policy silently not enforced.
func WithClass(ctx workflow.Context, c Class) workflow.Context {
	budget.Require(ctx, "temporaladk.WithClass")
	return workflow.WithValue(ctx, kitcore.ClassKey{}, canonicalClass(c))
}

// WithTenant returns a workflow context whose calls derive their idempotency
// keys for tenant. Keys never cross tenants. If not set, the kit's
// interceptor takes the workflow's namespace as the tenant. Without the
// kit's interceptor in the running workflow, or with a nil ctx, it panics,
// as WithBudgets does.
func WithTenant(ctx workflow.Context, tenant string) workflow.Context {
	budget.Require(ctx, "temporaladk.WithTenant")
	return workflow.WithValue(ctx, kitcore.TenantKey{}, tenant)
}

// WithIdempotencyKey returns a workflow context whose next calls carry key
// as their idempotency key, for a tool whose key is not derived from its
// arguments. The activity reads it (ActivityCallFrom) and hands it to the
// system it changes, so that a repeat lands on the first call's result.
// For a tool treated as effectful, a key lifts the one-attempt cap and
// adds no attempt: the call gets what its retry policy gives (the TOOL
// policy's, one by default, or a RetryPolicy the caller sets), and a
// timeout of an attempt is a timeout, not an IndeterminateOutcomeError.
// Use one key per logical call. Without the kit's interceptor in the
// running workflow, or with a nil ctx, it panics, as WithBudgets does.
func WithIdempotencyKey(ctx workflow.Context, key string) workflow.Context {
	budget.Require(ctx, "temporaladk.WithIdempotencyKey")
	return workflow.WithValue(ctx, kitcore.IdempotencyKeyKey{}, key)
}
