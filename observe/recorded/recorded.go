package recorded

import (
	"errors"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/temporaladk/adk-go/observe"
)

// Run is what one run's history says the kit decided.
type Run struct {
	// Carried is what the run's start header carried in: the budgets of the
	// run it continues, or the owner of a child; nil for none.
	Carried *Carry
	// Calls are the activity calls the kit scheduled, in the order
	// scheduled (their observe.Call Seq).
	Calls []*Call
	// Charges are the attempts the kit's charge Update granted: the
	// retries of the run's own calls and every attempt of its children's
	// calls, in the order granted. A first attempt of the run's own call is
	// charged in workflow code before it is scheduled; its Call has a
	// Budget. Remaining is nil for a call under no ceiling or pool (metered
	// by tokens or cost alone, of which the live observer is told no
	// Charged), and in histories recorded before the kit recorded it.
	Charges []observe.Charge
	// Refusals are the attempts the charge Update refused, in order.
	Refusals []observe.Refusal
	// Reservations and Settlements are the charge Update's reservations
	// and settlements, in order. A reservation of an attempt whose previous
	// attempt never settled settles that one whole first (Usage nil), as
	// the ledger does.
	Reservations []observe.Reservation
	Settlements  []observe.Settlement
	// Children are the child workflows the run started, in order.
	Children []Child
	// Updates is how many Updates the run accepted; ChargeUpdates how many
	// of them were the kit's charge Update, which the events above come
	// from.
	Updates, ChargeUpdates int
	// NextRunID is the ID of the run this one continued as new to, "" when
	// it did not; Handed is what it handed that run, nil for nothing.
	Handed    *Carry
	NextRunID string
}

// Call is one activity call in a history: as the kit planned it, and how
// its attempts went.
type Call struct {
	// Call is the call as the kit scheduled it, read from its
	// ActivityTaskScheduled event: the kit's plan from the header, the
	// timeouts and retry policy as the server recorded them.
	observe.Call
	// ScheduledEventID is its ActivityTaskScheduled event's ID, and
	// Scheduled that event's time.
	ScheduledEventID int64
	Scheduled        time.Time
	// ActivityID is the call's activity ID, as recorded.
	ActivityID string
	// Input is the call's arguments, as recorded.
	Input *commonpb.Payloads
	// Attempts are its attempts, the first first.
	Attempts []*Attempt
	// End is how the call ended; nil while it is open.
	End *observe.CallEnd
	// Result is the completed call's result, as recorded.
	Result *commonpb.Payloads
}

// Attempt is one attempt of a call in a history.
type Attempt struct {
	// Attempt is the attempt as the kit's activity side described it
	// (observe.Attempt), rebuilt from the call's header and recorded retry
	// policy.
	observe.Attempt
	// End is how it ended: completed, failed or timed out; "" while open.
	// An attempt before the last one the history holds ended failed.
	End observe.CallOutcome
	// Started and Closed are when it started and ended; zero where the
	// history does not hold them (it holds neither for any attempt but the
	// last).
	Started, Closed time.Time
	// Outcome is what the kit decided about it, as AttemptEnded was told:
	// the error as its failure converts, its type, the retry decision and a
	// budget's refusal. Nil for a completed or open attempt, and for one
	// whose failure the history does not hold (all but the last two).
	// A timeout has the timeout's type (StartToClose, ...) as ErrorType.
	Outcome *observe.Outcome
	// Message is the recorded failure's message; "" for none. Failure is
	// that failure as the server holds it, nil where Outcome is.
	Message string
	Failure *failurepb.Failure
}

// Child is a child workflow a run started.
type Child struct {
	// WorkflowID names it; RunID is its first run's ID, "" until it
	// started.
	WorkflowID, RunID string
	// Carried is what its start header carried: the owner that charges
	// its calls, with the budgets; nil for none.
	Carried *Carry
}

// Carry is the kit's state a start header carries across a run boundary:
// the budgets named with temporaladk.WithBudgets, by name, as they stood,
// and the owner a child's calls are charged to.
type Carry struct {
	// Attempts are the ceilings on attempts and Retries the pools of
	// retries; Tokens the token budgets and Cost the cost budgets, in
	// micro-dollars.
	Attempts, Retries, Tokens, Cost map[string]Count
	// Owner is the run that charges the calls of a child and of the runs
	// it continues as new; nil for none. Its Call is "".
	Owner *observe.Owner
}

// Count is one budget as a start header carried it.
type Count struct {
	// Limit is its ceiling; Spent what the runs before spent of it.
	Limit, Spent int64
}

// Remaining is what is left of c: Limit less Spent, never below 0.
func (c Count) Remaining() int64 { return max(c.Limit-c.Spent, 0) }

// Completed returns the attempt that completed, or nil.
func (c *Call) Completed() *Attempt {
	for _, a := range c.Attempts {
		if a.End == observe.CallCompleted {
			return a
		}
	}
	return nil
}

// Read reads one run's history, from its first event: it must begin with
// WorkflowExecutionStarted. A kit header or charge Update that does not
// decode is an error naming the event.
func Read(events []*historypb.HistoryEvent) (*Run, error) {
	if len(events) == 0 {
		return nil, errors.New("recorded: the history has no event")
	}
	if events[0].GetWorkflowExecutionStartedEventAttributes() == nil {
		return nil, errors.New("recorded: the history does not begin with WorkflowExecutionStarted")
	}
	r := newReader()
	for _, e := range events {
		if err := r.event(e); err != nil {
			return nil, err
		}
	}
	return r.run, nil
}
