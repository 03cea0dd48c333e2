package temporaladk

import "context"

// ActivityCall is what the kit's activity interceptor tells an activity
// about the call it is serving, through its context.
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

type activityCallKey struct{}

// WithActivityCall returns ctx carrying call. The kit's activity interceptor
// does this for every call it serves; tests of an activity can do it to run
// the activity as the interceptor would.
func WithActivityCall(ctx context.Context, call ActivityCall) context.Context {
	return context.WithValue(ctx, activityCallKey{}, call)
}

// ActivityCallFrom returns the call ctx carries, and whether it carries one.
func ActivityCallFrom(ctx context.Context) (ActivityCall, bool) {
	if ctx == nil {
		return ActivityCall{}, false
	}
	call, ok := ctx.Value(activityCallKey{}).(ActivityCall)
	return call, ok
}

// IdempotencyKey returns the idempotency key of the call an activity is
// serving, or "" when it has none. An effectful tool passes it to the system
// it changes, so that a second attempt lands on the first one's result.
func IdempotencyKey(ctx context.Context) string {
	call, _ := ActivityCallFrom(ctx)
	return call.IdempotencyKey
}

// ActivityClass returns the class of the call an activity is serving, or ""
// outside the kit.
func ActivityClass(ctx context.Context) Class {
	call, _ := ActivityCallFrom(ctx)
	return call.Class
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
