package testsuite

import historypb "go.temporal.io/api/history/v1"

// ScheduledActivities returns the attributes of the ActivityTaskScheduled
// events among events, in order: one per activity call the workflow
// scheduled, with the options it was scheduled with (the server's retries
// of a call schedule no new event). With an activityType, only that type's;
// if empty, every type's.
func ScheduledActivities(events []*historypb.HistoryEvent, activityType string) []*historypb.ActivityTaskScheduledEventAttributes {
	var out []*historypb.ActivityTaskScheduledEventAttributes
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && (activityType == "" || a.GetActivityType().GetName() == activityType) {
			out = append(out, a)
		}
	}
	return out
}

// StartedAttempts returns the attempt of each ActivityTaskStarted event
// among events, in order. The server records one such event per call that
// started, when the call ends, with the attempt that ran last: a call that
// succeeded on its third attempt reads 3.
func StartedAttempts(events []*historypb.HistoryEvent) []int32 {
	var out []int32
	for _, e := range events {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			out = append(out, a.GetAttempt())
		}
	}
	return out
}
