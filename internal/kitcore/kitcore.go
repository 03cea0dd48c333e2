// Package kitcore holds what package temporaladk shares with the kit's own
// packages (policies, interceptors, testsuite) and with no one else: the keys
// of the values temporaladk puts on workflow and activity contexts, hooks
// into temporaladk's unexported error table, and the heartbeat cadence.
//
// It imports nothing of the kit, so that temporaladk can import it. The hooks
// are set from temporaladk's init, the pattern google.golang.org/grpc/internal
// uses: a package that imports temporaladk (directly or not) always finds
// them set. The kit's packages read all of it typed through internal/vocab.
package kitcore

import "time"

// The keys of the values temporaladk puts on contexts: a workflow context's
// class tag, tenant and idempotency key (temporaladk.WithClass, WithTenant,
// WithIdempotencyKey), and an activity context's call
// (temporaladk.ActivityCallFrom).
type (
	ClassKey          struct{}
	TenantKey         struct{}
	IdempotencyKeyKey struct{}
	ActivityCallKey   struct{}
)

// Hooks into temporaladk's error table, set from temporaladk's init.
var (
	// IsKitType reports whether errType is the Type of one of the kit's
	// errors.
	IsKitType func(errType string) bool
	// NeverRetryableTypes returns the types of the errors that are never
	// retried, in a new slice on every call.
	NeverRetryableTypes func() []string
)

// BeatsPerWindow is how many heartbeats a heartbeater sends per heartbeat
// window, so that one lost beat is not read as a death.
const BeatsPerWindow = 3

// CanBeat reports whether the kit can beat in a heartbeat window: whether it
// is positive and fits BeatsPerWindow beats at least a nanosecond apart.
func CanBeat(window time.Duration) bool { return window/BeatsPerWindow > 0 }
