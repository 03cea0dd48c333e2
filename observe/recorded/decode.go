package recorded

import (
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// This file is the one place outside the kit's interceptors that reads the
// kit's wire format (internal/wire) out of a history.

// budgeted is what the reader keeps of one call in the run's budgets, as
// the ledger keeps it: the highest attempt charged, reserved and settled.
type budgeted struct {
	activityType string
	class        temporaladk.Class
	charged      int
	reserved     int
	settled      int
	refused      map[int]bool
}

// reader reads one history, event by event.
type reader struct {
	run      *Run
	calls    map[int64]*Call // by scheduled event ID
	headers  map[int64]wire.CallHeader
	budgets  map[string]*budgeted
	requests map[int64][]wire.ChargeRequest // by accepted event ID
	children map[int64]int                  // initiated event ID -> index in Children
	failures converter.FailureConverter
	// workflowID and runID name the run, from its start.
	workflowID, runID string
}

func newReader() *reader {
	return &reader{run: &Run{}, calls: map[int64]*Call{}, headers: map[int64]wire.CallHeader{},
		budgets: map[string]*budgeted{}, requests: map[int64][]wire.ChargeRequest{}, children: map[int64]int{},
		failures: temporal.GetDefaultFailureConverter()}
}

func (r *reader) event(e *historypb.HistoryEvent) error {
	var err error
	switch {
	case e.GetWorkflowExecutionStartedEventAttributes() != nil:
		attrs := e.GetWorkflowExecutionStartedEventAttributes()
		r.workflowID, r.runID = attrs.GetWorkflowId(), attrs.GetOriginalExecutionRunId()
		r.run.Carried, err = carryOf(attrs.GetHeader())
	case e.GetActivityTaskScheduledEventAttributes() != nil:
		err = r.scheduled(e)
	case e.GetActivityTaskStartedEventAttributes() != nil:
		r.started(e)
	case e.GetActivityTaskCompletedEventAttributes() != nil:
		attrs := e.GetActivityTaskCompletedEventAttributes()
		if c, a := r.last(attrs.GetScheduledEventId()); a != nil {
			a.End, a.Closed = observe.CallCompleted, e.GetEventTime().AsTime()
			c.Result = attrs.GetResult()
			c.End = &observe.CallEnd{Outcome: observe.CallCompleted, Attempts: a.Number}
		}
	case e.GetActivityTaskFailedEventAttributes() != nil:
		attrs := e.GetActivityTaskFailedEventAttributes()
		r.ended(attrs.GetScheduledEventId(), e, observe.CallFailed, attrs.GetFailure())
	case e.GetActivityTaskTimedOutEventAttributes() != nil:
		attrs := e.GetActivityTaskTimedOutEventAttributes()
		r.ended(attrs.GetScheduledEventId(), e, observe.CallTimedOut, attrs.GetFailure())
	case e.GetActivityTaskCanceledEventAttributes() != nil:
		attrs := e.GetActivityTaskCanceledEventAttributes()
		if c, a := r.last(attrs.GetScheduledEventId()); a != nil {
			a.Closed = e.GetEventTime().AsTime()
			c.End = &observe.CallEnd{Outcome: observe.CallCanceled, Err: temporal.NewCanceledError(), Attempts: a.Number}
		}
	case e.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil:
		r.run.Updates++
		in := e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput()
		if in.GetName() != wire.ChargeUpdateName {
			break
		}
		r.run.ChargeUpdates++
		var reqs []wire.ChargeRequest
		if err := wire.Converter.FromPayloads(in.GetArgs(), &reqs); err != nil {
			return fmt.Errorf("recorded: event %d: the kit's charge Update's requests do not decode: %w", e.GetEventId(), err)
		}
		r.requests[e.GetEventId()] = reqs
	case e.GetWorkflowExecutionUpdateCompletedEventAttributes() != nil:
		err = r.charges(e)
	case e.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
		attrs := e.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		var carried *Carry
		if carried, err = carryOf(attrs.GetHeader()); err == nil {
			r.children[e.GetEventId()] = len(r.run.Children)
			r.run.Children = append(r.run.Children, Child{WorkflowID: attrs.GetWorkflowId(), Carried: carried})
		}
	case e.GetChildWorkflowExecutionStartedEventAttributes() != nil:
		attrs := e.GetChildWorkflowExecutionStartedEventAttributes()
		if i, ok := r.children[attrs.GetInitiatedEventId()]; ok {
			r.run.Children[i].RunID = attrs.GetWorkflowExecution().GetRunId()
		}
	case e.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
		attrs := e.GetWorkflowExecutionContinuedAsNewEventAttributes()
		r.run.NextRunID = attrs.GetNewExecutionRunId()
		r.run.Handed, err = carryOf(attrs.GetHeader())
	}
	if err != nil {
		return fmt.Errorf("recorded: event %d: %w", e.GetEventId(), err)
	}
	return nil
}

// scheduled reads a call's ActivityTaskScheduled event: one event is one
// call, whose retries are the server's, under that event.
func (r *reader) scheduled(e *historypb.HistoryEvent) error {
	attrs := e.GetActivityTaskScheduledEventAttributes()
	h, kit, err := wire.DecodeCallHeader(attrs.GetHeader().GetFields())
	if err != nil {
		return err
	}
	rp := attrs.GetRetryPolicy()
	c := &Call{ScheduledEventID: e.GetEventId(), Scheduled: e.GetEventTime().AsTime(), Input: attrs.GetInput(), ActivityID: attrs.GetActivityId()}
	c.ActivityType = attrs.GetActivityType().GetName()
	c.Class, c.Key, c.SingleAttempt = h.Class, h.IdempotencyKey, h.SingleAttempt
	c.Budget, c.BudgetBound, c.MaxTokens, c.Model = h.Budget, h.BudgetBound, h.Spend.MaxTokens, h.Spend.Model
	if h.Idempotency != "" {
		_ = c.Idempotency.UnmarshalText([]byte(h.Idempotency))
	}
	if h.Owner.Call != "" {
		c.Owner = &observe.Owner{WorkflowID: h.Owner.WorkflowID, RunID: h.Owner.RunID, Delegation: h.Owner.Delegation, Call: h.Owner.Call}
	}
	c.StartToClose = attrs.GetStartToCloseTimeout().AsDuration()
	c.ScheduleToClose = attrs.GetScheduleToCloseTimeout().AsDuration()
	c.ScheduleToStart = attrs.GetScheduleToStartTimeout().AsDuration()
	c.Heartbeat = attrs.GetHeartbeatTimeout().AsDuration()
	c.MaxAttempts = int(rp.GetMaximumAttempts())
	c.InitialInterval, c.BackoffCoefficient, c.MaxInterval = rp.GetInitialInterval().AsDuration(), rp.GetBackoffCoefficient(), rp.GetMaximumInterval().AsDuration()
	if kit {
		// The kit numbers the calls it schedules; a call without its
		// header was scheduled by a worker without the kit.
		seq := 1
		for _, prior := range r.run.Calls {
			if prior.Seq > 0 {
				seq = prior.Seq + 1
			}
		}
		c.Seq = seq
		if h.Seq > 0 {
			// The header names the call since it carries its number.
			c.Seq = h.Seq
		}
	}
	r.headers[e.GetEventId()] = h
	r.calls[e.GetEventId()] = c
	c.Attempts = []*Attempt{r.attempt(c, kit, 1)}
	r.run.Calls = append(r.run.Calls, c)
	if h.Budget != "" {
		r.budgets[h.Budget] = &budgeted{activityType: c.ActivityType, class: c.Class, charged: 1}
	}
	return nil
}

// attempt is attempt number of c, described as the activity side
// describes it (observe.Attempt).
func (r *reader) attempt(c *Call, kit bool, number int) *Attempt {
	a := &Attempt{Attempt: observe.Attempt{ActivityType: c.ActivityType, Number: number,
		WorkflowID: r.workflowID, RunID: r.runID, ActivityID: c.ActivityID}}
	if kit {
		a.Header, a.Class, a.RetryPolicy, a.MaxAttempts = true, c.Class, true, c.MaxAttempts
		a.Call, a.RootWorkflowID = c.Seq, r.headers[c.ScheduledEventID].Root
		a.SingleAttempt, a.Idempotency, a.KeyPresent, a.BudgetCall = c.SingleAttempt, c.Idempotency, c.Key != "", c.Budget
	}
	return a
}

// last is the call of the scheduled event and its last attempt.
func (r *reader) last(scheduled int64) (*Call, *Attempt) {
	c := r.calls[scheduled]
	if c == nil {
		return nil, nil
	}
	return c, c.Attempts[len(c.Attempts)-1]
}

// started reads the start of a call's last attempt: the server records
// that one only, with its number and the failure of the attempt before it.
func (r *reader) started(e *historypb.HistoryEvent) {
	attrs := e.GetActivityTaskStartedEventAttributes()
	c, a := r.last(attrs.GetScheduledEventId())
	if c == nil {
		return
	}
	a.Started = e.GetEventTime().AsTime()
	n := int(attrs.GetAttempt())
	if n <= 1 {
		return
	}
	kit := c.Seq > 0
	earlier := make([]*Attempt, 0, n)
	for k := 1; k < n; k++ {
		prior := r.attempt(c, kit, k)
		prior.End = observe.CallFailed
		earlier = append(earlier, prior)
	}
	if lf := attrs.GetLastFailure(); lf != nil {
		before := earlier[n-2]
		before.Message, before.Failure = lf.GetMessage(), lf
		out := r.outcomeOf(lf)
		before.Outcome = &out
	}
	a.Number = n
	c.Attempts = append(earlier, a)
}

// ended reads the failure or timeout that ended a call's last attempt, and
// the call.
func (r *reader) ended(scheduled int64, e *historypb.HistoryEvent, end observe.CallOutcome, f *failurepb.Failure) {
	c, a := r.last(scheduled)
	if a == nil {
		return
	}
	a.End, a.Closed, a.Message, a.Failure = end, e.GetEventTime().AsTime(), f.GetMessage(), f
	out := r.outcomeOf(f)
	a.Outcome = &out
	ce := &observe.CallEnd{Outcome: end, Err: out.Err, ErrorType: out.ErrorType, Attempts: a.Number}
	if kitErr, ok := temporaladk.AsError(out.Err); ok {
		ce.ErrorType = kitErr.Type()
	}
	c.End = ce
}

// outcomeOf reads what the kit decided about an attempt from its recorded
// failure, as the activity side reads the error it hands to the SDK.
func (r *reader) outcomeOf(f *failurepb.Failure) observe.Outcome {
	return observe.OutcomeOf(r.failures.FailureToError(f))
}

// charges reads the answers of one charge Update, as the ledger decided
// them.
func (r *reader) charges(e *historypb.HistoryEvent) error {
	attrs := e.GetWorkflowExecutionUpdateCompletedEventAttributes()
	reqs, ok := r.requests[attrs.GetAcceptedEventId()]
	if !ok {
		return nil
	}
	var res []wire.ChargeResult
	if err := wire.Converter.FromPayloads(attrs.GetOutcome().GetSuccess(), &res); err != nil {
		return fmt.Errorf("the kit's charge Update's results do not decode: %w", err)
	}
	if len(res) != len(reqs) {
		return fmt.Errorf("the kit's charge Update has %d results for %d requests", len(res), len(reqs))
	}
	for i, req := range reqs {
		r.charge(req, res[i])
	}
	return nil
}

// charge reads one answered request: what the ledger told its observer
// when it answered it.
func (r *reader) charge(req wire.ChargeRequest, res wire.ChargeResult) {
	b := r.budgets[req.Call]
	if b == nil {
		// A child's call, named here by its first charge.
		b = &budgeted{class: req.Class}
		r.budgets[req.Call] = b
	}
	if res.Refused != nil {
		if b.refused == nil {
			b.refused = map[int]bool{}
		}
		if !b.refused[req.Attempt] {
			b.refused[req.Attempt] = true
			r.run.Refusals = append(r.run.Refusals, observe.Refusal{ActivityType: b.activityType, Class: b.class, Call: req.Call, Attempt: req.Attempt, Err: res.Refused})
		}
		return
	}
	if !res.Granted {
		return
	}
	if s := req.Settle; s != nil {
		if req.Attempt == b.reserved && b.settled < req.Attempt {
			b.settled = req.Attempt
			r.run.Settlements = append(r.run.Settlements, observe.Settlement{ActivityType: b.activityType, Class: b.class, Call: req.Call, Attempt: req.Attempt, Usage: s.Usage, Succeeded: s.Succeeded})
		}
		return
	}
	if req.Attempt > b.charged {
		b.charged = req.Attempt
		var left *int
		if res.Remaining != nil {
			n := *res.Remaining
			left = &n
		}
		r.run.Charges = append(r.run.Charges, observe.Charge{ActivityType: b.activityType, Class: b.class, Call: req.Call, Attempt: req.Attempt, Remaining: left})
	}
	if rv := req.Reserve; rv != nil && req.Attempt > b.reserved {
		if b.reserved > b.settled {
			// The attempt before ended without settling: spent whole.
			r.run.Settlements = append(r.run.Settlements, observe.Settlement{ActivityType: b.activityType, Class: b.class, Call: req.Call, Attempt: b.reserved, Unsettled: true})
			b.settled = b.reserved
		}
		b.reserved = req.Attempt
		r.run.Reservations = append(r.run.Reservations, observe.Reservation{ActivityType: b.activityType, Class: b.class, Call: req.Call, Attempt: req.Attempt, Model: rv.Model, MaxTokens: rv.MaxTokens, Price: rv.Price})
	}
}

// carryOf reads the kit's chain header of a start header; nil for none.
func carryOf(h *commonpb.Header) (*Carry, error) {
	ch, ok, err := wire.DecodeChainHeader(h.GetFields())
	if err != nil || !ok {
		return nil, err
	}
	c := &Carry{}
	for name, s := range ch.Attempts {
		c.Attempts = put(c.Attempts, name, Count{Limit: int64(s.Limit), Spent: int64(s.Spent)})
	}
	for name, s := range ch.Retries {
		c.Retries = put(c.Retries, name, Count{Limit: int64(s.Limit), Spent: int64(s.Spent)})
	}
	for name, s := range ch.Tokens {
		c.Tokens = put(c.Tokens, name, Count(s))
	}
	for name, s := range ch.Costs {
		c.Cost = put(c.Cost, name, Count(s))
	}
	if o := ch.Owner; o != nil {
		c.Owner = &observe.Owner{WorkflowID: o.WorkflowID, RunID: o.RunID, Delegation: o.Delegation}
	}
	return c, nil
}

// put sets m[name], making m when it is nil.
func put(m map[string]Count, name string, c Count) map[string]Count {
	if m == nil {
		m = map[string]Count{}
	}
	m[name] = c
	return m
}
