package testsuite

import (
	"context"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ActivityContext returns ctx carrying call, as the kit's activity
// interceptor gives it to an activity, so that a test can run an activity
// function directly: temporaladk.ActivityCallFrom reads call, and
// temporaladk.HeartbeaterFrom its Heartbeater (one from
// temporaladk.NewHeartbeater, on a FakeClock).
//
//	hb, _ := temporaladk.NewHeartbeater(record, time.Minute, testsuite.NewFakeClock(testsuite.DefaultStartTime()), "chat")
//	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model, Heartbeater: hb})
//
// A nil ctx panics, naming the call: a programming error of the test.
func ActivityContext(ctx context.Context, call temporaladk.ActivityCall) context.Context {
	if ctx == nil {
		panic("testsuite: ActivityContext: ctx is nil: pass a context (context.Background() in a test)")
	}
	return vocab.WithActivityCall(ctx, call)
}
