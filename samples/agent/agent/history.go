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
	// Class, Idempotency, Key and KitMaxAttempts are the kit's plan, read
	// from the header of the ActivityTaskScheduled event.
	Class          temporaladk.Class
	Idempotency    string
	Key            string
	KitMaxAttempts int
	// StartToClose, Heartbeat, ScheduleToClose and ScheduledMaxAttempts
	// are the options of the first attempt's ActivityTaskScheduled event.
	// Under a budget the workflow drives the retries, so every attempt is
	// scheduled with MaximumAttempts 1.
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
			var call *Call
			if h.Attempt > 1 {
				for i := len(calls) - 1; i >= 0; i-- {
					if calls[i].ActivityType == typ && calls[i].Label == label {
						call = calls[i]
						break
					}
				}
			}
			if call == nil {
				rp := attrs.GetRetryPolicy()
				call = &Call{
					ActivityType: typ, Label: label,
					Class: h.Class, Idempotency: h.Idempotency, Key: h.IdempotencyKey, KitMaxAttempts: h.MaxAttempts,
					StartToClose:         attrs.GetStartToCloseTimeout().AsDuration(),
					Heartbeat:            attrs.GetHeartbeatTimeout().AsDuration(),
					ScheduleToClose:      attrs.GetScheduleToCloseTimeout().AsDuration(),
					ScheduledMaxAttempts: rp.GetMaximumAttempts(),
					InitialInterval:      rp.GetInitialInterval().AsDuration(),
					MaxInterval:          rp.GetMaximumInterval().AsDuration(),
				}
				calls = append(calls, call)
			}
			n := h.Attempt
			if n == 0 {
				n = len(call.Attempts) + 1
			}
			a := &Attempt{Number: n, Scheduled: e.GetEventTime().AsTime(), Outcome: "open"}
			call.Attempts = append(call.Attempts, a)
			bySchedule[e.GetEventId()] = a
		case e.GetActivityTaskStartedEventAttributes() != nil:
			// Without a budget the server retries under one scheduled event;
			// each started event then is an attempt. Under a budget there is
			// one started event per scheduled one.
			attrs := e.GetActivityTaskStartedEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil && attrs.GetAttempt() > 1 {
				a.Number = int(attrs.GetAttempt())
			}
		case e.GetActivityTaskCompletedEventAttributes() != nil:
			attrs := e.GetActivityTaskCompletedEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil {
				a.Outcome, a.Closed, a.Result = "completed", e.GetEventTime().AsTime(), attrs.GetResult()
			}
		case e.GetActivityTaskFailedEventAttributes() != nil:
			attrs := e.GetActivityTaskFailedEventAttributes()
			if a := bySchedule[attrs.GetScheduledEventId()]; a != nil {
				a.Outcome, a.Closed = "failed", e.GetEventTime().AsTime()
				a.Message = attrs.GetFailure().GetMessage()
				err := fc.FailureToError(attrs.GetFailure())
				var app *temporal.ApplicationError
				if errors.As(err, &app) {
					a.ErrorType, a.NextRetryDelay = app.Type(), app.NextRetryDelay()
				}
				if d, ok := temporaladk.RetryDecisionOf(err); ok {
					a.Decision = &d
				}
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
