package temporaladk

import (
	"context"

	"github.com/temporaladk/adk-go/internal/kitcore"
)

// ActivityCall is what the kit's activity interceptor tells an activity
// about the call it is serving, through its context (see ActivityCallFrom).
// An effectful tool passes IdempotencyKey to the system it changes, so that
// a second attempt lands on the first one's result.
type ActivityCall struct {
	// Class is the call's class.
	Class Class
	// Idempotency is what the activity's declaration says; Undeclared when
	// there is none.
	Idempotency Idempotency
	// IdempotencyKey is the call's key, or "" when it has none. Every attempt
	// of one call sees the same key.
	IdempotencyKey string
	// Attempt is the attempt number, 1 for the first.
	Attempt int
	// MaxAttempts is how many attempts the call gets.
	MaxAttempts int
	// Heartbeater beats for the activity; nil when it has no heartbeat
	// window.
	Heartbeater *Heartbeater
}

// ActivityCallFrom returns the call ctx carries, and whether it carries one.
func ActivityCallFrom(ctx context.Context) (ActivityCall, bool) {
	if ctx == nil {
		return ActivityCall{}, false
	}
	call, ok := ctx.Value(kitcore.ActivityCallKey{}).(ActivityCall)
	return call, ok
}

// HeartbeaterFrom returns the heartbeater of the call an activity is serving.
// Outside the kit, or for an activity without a heartbeat window, it returns
// a heartbeater that counts and sends nothing, so activity code can call
// Chunk unconditionally.
func HeartbeaterFrom(ctx context.Context) *Heartbeater {
	if call, ok := ActivityCallFrom(ctx); ok && call.Heartbeater != nil {
		return call.Heartbeater
	}
	return newHeartbeater(func(Heartbeat) {}, 0, stoppedClock{}, "")
}
