package interceptors

import (
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
)

// indeterminateOnTimeout returns a future that settles as f does, except
// that a timeout of an effectful call's only attempt becomes an
// *temporaladk.IndeterminateOutcomeError: the worker may have changed the
// world and died before saying so, and the call must not be repeated
// blindly. The coroutine adds no command.
func indeterminateOnTimeout(ctx workflow.Context, activityType string, f workflow.Future) workflow.Future {
	future, settable := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		err := f.Get(gctx, nil)
		var timeout *temporal.TimeoutError
		// A ScheduleToStart timeout is passed on: the attempt never started.
		if err != nil && errors.As(err, &timeout) && timeout.TimeoutType() != enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START {
			settable.SetError(&temporaladk.IndeterminateOutcomeError{
				Tool:   activityType,
				Reason: fmt.Sprintf("its only attempt timed out (%s): it may have made its effect before the worker was lost", timeoutName(timeout)),
				Cause:  err,
			})
			return
		}
		settable.Chain(f)
	})
	return future
}

func timeoutName(t *temporal.TimeoutError) string {
	switch t.TimeoutType() {
	case enumspb.TIMEOUT_TYPE_START_TO_CLOSE:
		return "StartToClose"
	case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
		return "ScheduleToClose"
	case enumspb.TIMEOUT_TYPE_HEARTBEAT:
		return "Heartbeat"
	case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
		return "ScheduleToStart"
	}
	return t.TimeoutType().String()
}
