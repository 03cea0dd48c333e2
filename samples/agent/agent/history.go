package agent

import (
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Call is one logical activity call as the history shows it: the options its
// attempts were scheduled with, the kit's plan that travelled in the header,
// and each attempt's outcome.
type Call struct {
	ActivityType string
	// Label tells calls of one activity type apart: the chat step, the
	// flight, the passenger, the query.
	Label string
	// Class, Idempotency and Key are the kit's plan, read from the header of
	// the ActivityTaskScheduled event.
	Class       temporaladk.Class
	Idempotency string
	Key         string
	// StartToClose, Heartbeat, ScheduleToClose and ScheduledMaxAttempts
	// are the options of the call's ActivityTaskScheduled event;
	// ScheduledMaxAttempts is the call's one attempt count.
	StartToClose         time.Duration
	Heartbeat            time.Duration
	ScheduleToClose      time.Duration
	ScheduledMaxAttempts int32
	InitialInterval      time.Duration
	MaxInterval          time.Duration
	Attempts             []*Attempt
}

// Attempt is one attempt of a call.
type Attempt struct {
	Number    int
	Scheduled time.Time
	Closed    time.Time
	// Outcome is "completed", "failed", "timed out" or "open".
	Outcome string
	// ErrorType is the failure's ApplicationError type (a kit error's Type)
	// or the timeout type; Message its message.
	ErrorType string
	Message   string
	// Decision is the wait the activity drew or honoured, when the kit
	// recorded one; NextRetryDelay is what it handed to the server.
	Decision       *temporaladk.RetryDecision
	NextRetryDelay time.Duration
	// Result is the completed attempt's result payloads.
	Result *commonpb.Payloads
}

// Completed returns the attempt that completed, or nil.
func (c *Call) Completed() *Attempt {
	for _, a := range c.Attempts {
		if a.Outcome == "completed" {
			return a
		}
	}
	return nil
}

// CallsFromHistory groups a workflow history's activity events into calls, in
// the order they were first scheduled.
func CallsFromHistory(events []*historypb.HistoryEvent) ([]*Call, error) {
	dc := converter.GetDefaultDataConverter()
	fc := temporal.GetDefaultFailureConverter()
	var calls []*Call
	bySchedule := map[int64]*Attempt{}
	callOf := map[int64]*Call{}
	for _, e := range events {
		switch {
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			attrs := e.GetActivityTaskScheduledEventAttributes()
			h, _, err := interceptors.DecodeCallHeader(attrs.GetHeader().GetFields())
			if err != nil {
				return nil, fmt.Errorf("history: event %d: %w", e.GetEventId(), err)
			}
			typ := attrs.GetActivityType().GetName()
			label := labelOf(dc, typ, attrs.GetInput())
			// One scheduled event is one call: its retries, budgeted or not,
			// are the server's, under that event.
			{
				rp := attrs.GetRetryPolicy()
				call := &Call{
					ActivityType: typ, Label: label,
					Class: h.Class, Idempotency: h.Idempotency, Key: h.IdempotencyKey,
					StartToClose:         attrs.GetStartToCloseTimeout().AsDuration(),
					Heartbeat:            attrs.GetHeartbeatTimeout().AsDuration(),
					ScheduleToClose:      attrs.GetScheduleToCloseTimeout().AsDuration(),
					ScheduledMaxAttempts: rp.GetMaximumAttempts(),
					InitialInterval:      rp.GetInitialInterval().AsDuration(),
					MaxInterval:          rp.GetMaximumInterval().AsDuration(),
				}
				calls = append(calls, call)
				a := &Attempt{Number: 1, Scheduled: e.GetEventTime().AsTime(), Outcome: "open"}
				call.Attempts = append(call.Attempts, a)
				bySchedule[e.GetEventId()] = a
				callOf[e.GetEventId()] = call
			}
		case e.GetActivityTaskStartedEventAttributes() != nil:
			// The server records the started event of the last attempt only,
			// with its number and the failure of the attempt before it; the
			// earlier attempts' times are not in the history, so they stand
			// at the call's schedule, and a gap measured from them is the
			// longest the wait can have been.
			attrs := e.GetActivityTaskStartedEventAttributes()
			a, call := bySchedule[attrs.GetScheduledEventId()], callOf[attrs.GetScheduledEventId()]
			if a == nil || attrs.GetAttempt() <= 1 {
				break
			}
			n := int(attrs.GetAttempt())
			earlier := make([]*Attempt, 0, n)
			for k := 1; k < n; k++ {
				earlier = append(earlier, &Attempt{Number: k, Scheduled: a.Scheduled, Closed: a.Scheduled, Outcome: "failed"})
			}
			if lf := attrs.GetLastFailure(); lf != nil {
				describeFailure(earlier[n-2], fc.FailureToError(lf), lf.GetMessage())
			}
			a.Number, a.Scheduled = n, e.GetEventTime().AsTime()
			call.Attempts = append(earlier, a)
		case e.GetActivityTaskCompletedEventAttributes() != nil:
			attrs := e.GetActivityTaskCompletedEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil {
				a.Outcome, a.Closed, a.Result = "completed", e.GetEventTime().AsTime(), attrs.GetResult()
			}
		case e.GetActivityTaskFailedEventAttributes() != nil:
			attrs := e.GetActivityTaskFailedEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil {
				a.Outcome, a.Closed = "failed", e.GetEventTime().AsTime()
				describeFailure(a, fc.FailureToError(attrs.GetFailure()), attrs.GetFailure().GetMessage())
			}
		case e.GetActivityTaskTimedOutEventAttributes() != nil:
			attrs := e.GetActivityTaskTimedOutEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil {
				a.Outcome, a.Closed = "timed out", e.GetEventTime().AsTime()
				a.Message = attrs.GetFailure().GetMessage()
				var te *temporal.TimeoutError
				if errors.As(fc.FailureToError(attrs.GetFailure()), &te) {
					a.ErrorType = te.TimeoutType().String()
				}
			}
		}
	}
	return calls, nil
}

// describeFailure fills a failed attempt from its failure: the kit error's
// type, the message, and the wait the activity drew or honoured.
func describeFailure(a *Attempt, err error, message string) {
	a.Message = message
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		a.ErrorType, a.NextRetryDelay = app.Type(), app.NextRetryDelay()
	}
	if d, ok := temporaladk.RetryDecisionOf(err); ok {
		a.Decision = &d
	}
}

// labelOf names a call by its input.
func labelOf(dc converter.DataConverter, activityType string, input *commonpb.Payloads) string {
	if len(input.GetPayloads()) == 0 {
		return ""
	}
	p := input.GetPayloads()[0]
	switch activityType {
	case "Chat":
		var r ChatRequest
		if dc.FromPayload(p, &r) == nil {
			return r.Step
		}
	case "SeatMap":
		var r SeatMapRequest
		if dc.FromPayload(p, &r) == nil {
			return r.Flight
		}
	case "BookSeat":
		var r Booking
		if dc.FromPayload(p, &r) == nil {
			return r.Passenger + "@" + r.Flight
		}
	case "SearchDocs":
		var r SearchRequest
		if dc.FromPayload(p, &r) == nil {
			return r.Query
		}
	case "LoadMemory":
		var s string
		if dc.FromPayload(p, &s) == nil {
			return s
		}
	case "SaveMemory":
		var r MemoryWrite
		if dc.FromPayload(p, &r) == nil {
			return r.Conversation
		}
	}
	return ""
}
