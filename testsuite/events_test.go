package testsuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/temporaladk/adk-go/testsuite"
)

// scheduledEvent and startedEvent build the two events the helpers read.
func scheduledEvent(activityType string) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
		ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{ActivityType: &commonpb.ActivityType{Name: activityType}},
	}}
}

func startedEvent(attempt int32) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{
		ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{Attempt: attempt},
	}}
}

// eventsOfTwoCalls is a history of a Chat call retried to attempt 3 and a
// Search call that ran once, with an event of another kind between them.
func eventsOfTwoCalls() []*historypb.HistoryEvent {
	return []*historypb.HistoryEvent{
		scheduledEvent("Chat"),
		{Attributes: &historypb.HistoryEvent_TimerStartedEventAttributes{TimerStartedEventAttributes: &historypb.TimerStartedEventAttributes{}}},
		startedEvent(3),
		scheduledEvent("Search"),
		startedEvent(1),
	}
}

func TestScheduledActivities(t *testing.T) {
	t.Parallel()
	names := func(as []*historypb.ActivityTaskScheduledEventAttributes) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.GetActivityType().GetName())
		}
		return out
	}
	tests := []struct {
		name         string
		events       []*historypb.HistoryEvent
		activityType string
		want         []string
	}{
		{"every type", eventsOfTwoCalls(), "", []string{"Chat", "Search"}},
		{"one type", eventsOfTwoCalls(), "Search", []string{"Search"}},
		{"a type never scheduled", eventsOfTwoCalls(), "Book", nil},
		{"no events", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, names(testsuite.ScheduledActivities(tt.events, tt.activityType)))
		})
	}
}

func TestStartedAttempts(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int32{3, 1}, testsuite.StartedAttempts(eventsOfTwoCalls()), "the last attempt of each call, in order")
	assert.Nil(t, testsuite.StartedAttempts([]*historypb.HistoryEvent{scheduledEvent("Chat")}), "a call that never started has none")
	assert.Nil(t, testsuite.StartedAttempts(nil))
}
