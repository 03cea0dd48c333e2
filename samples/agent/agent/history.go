package agent

import (
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/observe/recorded"
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
// history (observe/recorded): the reservation made before it ran, or the
// refusal by a token or cost budget, and the settlement after it.
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
// the order they were first scheduled, from what observe/recorded reads of
// it: the kit's plan of each call, its attempts, and the reservations and
// settlements of its MODEL attempts.
func CallsFromHistory(events []*historypb.HistoryEvent) ([]*Call, error) {
	run, err := recorded.Read(events)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	dc := converter.GetDefaultDataConverter()
	spends := spendsOf(run)
	calls := make([]*Call, 0, len(run.Calls))
	for _, rc := range run.Calls {
		call := &Call{
			ActivityType: rc.ActivityType, Label: labelOf(dc, rc.ActivityType, rc.Input),
			Class: rc.Class, Key: rc.Key,
			Budget: rc.Budget, MaxTokens: rc.MaxTokens, Model: rc.Model,
			StartToClose:         rc.StartToClose,
			Heartbeat:            rc.Heartbeat,
			ScheduleToClose:      rc.ScheduleToClose,
			ScheduledMaxAttempts: int32(rc.MaxAttempts),
			InitialInterval:      rc.InitialInterval,
			MaxInterval:          rc.MaxInterval,
		}
		if rc.Idempotency != temporaladk.Undeclared {
			call.Idempotency = rc.Idempotency.String()
		}
		last := len(rc.Attempts) - 1
		for i, ra := range rc.Attempts {
			// The history holds the times of the last attempt only; the
			// earlier ones stand at the call's schedule, so that a gap
			// measured from them is the longest the wait can have been.
			a := &Attempt{Number: ra.Number, Scheduled: rc.Scheduled, Closed: rc.Scheduled, Outcome: attemptOutcome(ra.End), Message: ra.Message}
			if i == last {
				a.Closed = ra.Closed
				if ra.Number > 1 {
					a.Scheduled = ra.Started
				}
				if ra.End == observe.CallCompleted {
					a.Result = rc.Result
				}
			}
			if o := ra.Outcome; o != nil {
				a.ErrorType, a.Decision = o.ErrorType, o.Retry
				var app *temporal.ApplicationError
				if errors.As(o.Err, &app) {
					a.NextRetryDelay = app.NextRetryDelay()
				}
			}
			if rc.Budget != "" {
				a.Spend = spends[spendKey{rc.Budget, ra.Number}]
			}
			call.Attempts = append(call.Attempts, a)
		}
		calls = append(calls, call)
	}
	return calls, nil
}

// attemptOutcome names how an attempt ended, as the report prints it.
func attemptOutcome(end observe.CallOutcome) string {
	switch end {
	case observe.CallCompleted, observe.CallFailed, observe.CallTimedOut:
		return string(end)
	}
	return "open"
}

// spendsOf is each attempt's reservation and settlement, from the run's
// recorded reservations, settlements and refusals by a token or cost
// budget.
func spendsOf(run *recorded.Run) map[spendKey]*Spend {
	spends := map[spendKey]*Spend{}
	planned := map[string]*recorded.Call{}
	for _, c := range run.Calls {
		if c.Budget != "" {
			planned[c.Budget] = c
		}
	}
	for _, r := range run.Reservations {
		s := &Spend{Model: r.Model, MaxTokens: r.MaxTokens, Price: r.Price, Granted: true, ReservedTokens: r.MaxTokens}
		if r.Price != nil {
			s.ReservedCost = ReservationCost(r.MaxTokens, *r.Price)
		}
		// Spent whole until a settlement says otherwise.
		s.SettledTokens, s.SettledCost = s.ReservedTokens, s.ReservedCost
		spends[spendKey{r.Call, r.Attempt}] = s
	}
	for _, r := range run.Refusals {
		k := spendKey{r.Call, r.Attempt}
		if _, ok := spends[k]; ok || r.Err == nil || (r.Err.Breached != "tokens" && r.Err.Breached != "cost") {
			continue
		}
		s := &Spend{Refused: r.Err.Error()}
		if c := planned[r.Call]; c != nil {
			s.Model, s.MaxTokens = c.Model, c.MaxTokens
		}
		spends[k] = s
	}
	for _, st := range run.Settlements {
		s := spends[spendKey{st.Call, st.Attempt}]
		if s == nil || st.Unsettled || s.Settled {
			continue
		}
		s.Settled, s.Usage = true, st.Usage
		if u := st.Usage; u != nil {
			s.SettledTokens = u.InputTokens + u.OutputTokens
			s.SettledCost = 0
			if s.Price != nil {
				s.SettledCost = UsageCost(*u, *s.Price)
			}
		}
	}
	return spends
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
