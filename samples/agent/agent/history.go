package agent

import (
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
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
	// Budget names the call in its run's budgets (the header's Budget);
	// MaxTokens and Model are its cap and model (the header's Spend).
	Budget    string
	MaxTokens int64
	Model     string
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
	// Spend is what the kit's charge Update reserved and settled for this
	// attempt of a MODEL call under a token or cost budget; nil for an
	// attempt the history holds no reservation of.
	Spend *Spend
}

// Spend is one attempt's reservation and settlement, read back from the
// kit's charge Updates (wire.ChargeUpdateName) in the history: the
// request that reserved it before it ran, the result that granted or
// refused it, and the request that settled it after.
type Spend struct {
	// Model, MaxTokens and Price are what the reservation was made with,
	// as recorded in its request; Price is nil without a cost budget.
	Model     string
	MaxTokens int64
	Price     *spend.Price
	// Granted is true when the run granted the reservation; Refused is the
	// refusal's message otherwise.
	Granted bool
	Refused string
	// ReservedTokens and ReservedCost are what the reservation held: the
	// cap, and the cap at the price's highest rate, rounded up.
	ReservedTokens int64
	ReservedCost   spend.Micros
	// Settled is true when a settle request for the attempt is in the
	// history; Usage is what it reported, nil when it reported none.
	Settled bool
	Usage   *providers.Usage
	// SettledTokens and SettledCost are what the attempt spent: its usage
	// (input plus output, priced at the reservation's price, rounded up),
	// or its whole reservation when it reported none or never settled.
	SettledTokens int64
	SettledCost   spend.Micros
}

// ReservationCost is the most an attempt capped at maxTokens can cost at p:
// every token at p's highest rate, rounded up to a whole micro-dollar, as
// the kit reserves it.
func ReservationCost(maxTokens int64, p spend.Price) spend.Micros {
	return ceilMillionth(maxTokens * int64(max(p.Input, p.CachedInput, p.Output)))
}

// UsageCost is what u costs at p: the uncached input at Input, the cached
// input at CachedInput and the output at Output, rounded up to a whole
// micro-dollar, as the kit settles it.
func UsageCost(u providers.Usage, p spend.Price) spend.Micros {
	return ceilMillionth((u.InputTokens-u.CachedInputTokens)*int64(p.Input) + u.CachedInputTokens*int64(p.CachedInput) + u.OutputTokens*int64(p.Output))
}

// ceilMillionth is n/1,000,000 rounded up: a price per million tokens
// applied to a count.
func ceilMillionth(n int64) spend.Micros {
	return spend.Micros((n + 999_999) / 1_000_000)
}

// spendKey names one attempt of a budgeted call in the charge Updates.
type spendKey struct {
	call    string
	attempt int
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
	spends := map[spendKey]*Spend{}
	requests := map[int64][]wire.ChargeRequest{}
	for _, e := range events {
		switch {
		case e.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil:
			in := e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput()
			if in.GetName() != wire.ChargeUpdateName {
				break
			}
			var reqs []wire.ChargeRequest
			if err := dc.FromPayloads(in.GetArgs(), &reqs); err != nil {
				return nil, fmt.Errorf("history: event %d: the charge Update's requests: %w", e.GetEventId(), err)
			}
			requests[e.GetEventId()] = reqs
		case e.GetWorkflowExecutionUpdateCompletedEventAttributes() != nil:
			attrs := e.GetWorkflowExecutionUpdateCompletedEventAttributes()
			reqs, ok := requests[attrs.GetAcceptedEventId()]
			if !ok {
				break
			}
			var res []wire.ChargeResult
			if err := dc.FromPayloads(attrs.GetOutcome().GetSuccess(), &res); err != nil {
				return nil, fmt.Errorf("history: event %d: the charge Update's results: %w", e.GetEventId(), err)
			}
			if len(res) != len(reqs) {
				return nil, fmt.Errorf("history: event %d: %d results for %d charge requests", e.GetEventId(), len(res), len(reqs))
			}
			for i, req := range reqs {
				if err := readCharge(spends, req, res[i]); err != nil {
					return nil, fmt.Errorf("history: event %d: %w", e.GetEventId(), err)
				}
			}
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			attrs := e.GetActivityTaskScheduledEventAttributes()
			h, _, err := wire.DecodeCallHeader(attrs.GetHeader().GetFields())
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
					Budget: h.Budget, MaxTokens: h.Spend.MaxTokens, Model: h.Spend.Model,
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
	for _, c := range calls {
		if c.Budget == "" {
			continue
		}
		for _, a := range c.Attempts {
			a.Spend = spends[spendKey{c.Budget, a.Number}]
		}
	}
	return calls, nil
}

// readCharge adds one answered charge request to spends: a reservation
// with its answer, or a settlement of a granted one.
func readCharge(spends map[spendKey]*Spend, req wire.ChargeRequest, res wire.ChargeResult) error {
	k := spendKey{req.Call, req.Attempt}
	switch {
	case req.Reserve != nil:
		r := req.Reserve
		s := &Spend{Model: r.Model, MaxTokens: r.MaxTokens, Price: r.Price, Granted: res.Granted, ReservedTokens: r.MaxTokens}
		if r.Price != nil {
			s.ReservedCost = ReservationCost(r.MaxTokens, *r.Price)
		}
		if res.Refused != nil {
			s.Refused = res.Refused.Error()
		}
		if res.Error != "" {
			return fmt.Errorf("the reservation of attempt %d of %s answered %q", req.Attempt, req.Call, res.Error)
		}
		if prev, ok := spends[k]; ok && prev.Granted {
			return nil // the same attempt asked again: one reservation
		}
		if s.Granted {
			// Spent whole until a settlement says otherwise.
			s.SettledTokens, s.SettledCost = s.ReservedTokens, s.ReservedCost
		}
		spends[k] = s
	case req.Settle != nil:
		s, ok := spends[k]
		if !ok {
			return fmt.Errorf("a settlement of attempt %d of %s, which the history holds no reservation of", req.Attempt, req.Call)
		}
		if !res.Granted || s.Settled {
			return nil
		}
		s.Settled, s.Usage = true, req.Settle.Usage
		if u := req.Settle.Usage; u != nil {
			s.SettledTokens = u.InputTokens + u.OutputTokens
			s.SettledCost = 0
			if s.Price != nil {
				s.SettledCost = UsageCost(*u, *s.Price)
			}
		}
	}
	return nil
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
