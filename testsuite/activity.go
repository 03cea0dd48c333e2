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
func ActivityContext(ctx context.Context, call temporaladk.ActivityCall) context.Context {
	return vocab.WithActivityCall(ctx, call)
}
