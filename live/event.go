package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Kind is what an Event says.
type Kind string

// The kinds of event a stream carries.
const (
	// Planned: the kit scheduled a call (observe CallPlanned).
	Planned Kind = "planned"
	// Reset: an attempt of a call starts (observe AttemptStarted); the
	// text of its earlier attempts is dead, and a screen drops it.
	Reset Kind = "reset"
	// Delta: a piece of text or reasoning the attempt streamed (observe
	// TextDelta). Partial: the call's Final says what it came to.
	Delta Kind = "delta"
	// Final: the call ended (observe CallEnded); Output is the result
	// history recorded.
	Final Kind = "final"
	// ApprovalAsked and ApprovalDecided: a call waits for an approval, and
	// the wait ended; Data is the observe.Approval, and the observe.Decision.
	ApprovalAsked   Kind = "approval-asked"
	ApprovalDecided Kind = "approval-decided"
	// Charged: a budget granted an attempt; Data is the observe.Charge.
	Charged Kind = "charged"
)

// Event is one event of a live stream.
type Event struct {
	// ID names the event by history's coordinates (see IDs in the package
	// doc): the same event published twice has the same ID, and a hub keeps
	// one.
	ID string `json:"id"`
	// Offset is the event's place in its stream, from 1, set by the hub
	// that keeps it; 0 before it is published.
	Offset uint64 `json:"offset,omitempty"`
	// Stream is the stream's name (Options.Stream).
	Stream string `json:"stream"`
	// Kind says what the event is.
	Kind Kind `json:"kind"`
	// WorkflowID and RunID name the run the event is of.
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	// Call is the call's number in its run (observe.Call Seq), Local true
	// for a local activity's; 0 for an event of no call (an approval, a
	// charge). ActivityID is the call's activity ID where the event's side
	// knows it (its attempts'), "" otherwise.
	Call       int    `json:"call,omitempty"`
	Local      bool   `json:"local,omitempty"`
	ActivityID string `json:"activity_id,omitempty"`
	// ActivityType and Class are the call's.
	ActivityType string            `json:"activity_type,omitempty"`
	Class        temporaladk.Class `json:"class,omitempty"`
	// Attempt is the attempt of a Reset or a Delta, from 1.
	Attempt int `json:"attempt,omitempty"`
	// Seq numbers a Delta within its attempt, from 1.
	Seq int `json:"seq,omitempty"`
	// TextKind and Text are a Delta's.
	TextKind providers.TextKind `json:"text_kind,omitempty"`
	Text     string             `json:"text,omitempty"`
	// Outcome and ErrorType are how a Final's call ended.
	Outcome   observe.CallOutcome `json:"outcome,omitempty"`
	ErrorType string              `json:"error_type,omitempty"`
	// Output is a Final's result as history recorded it, when its payload
	// is JSON (the default converter's json/plain); nil otherwise.
	Output json.RawMessage `json:"output,omitempty"`
	// Data is the JSON of what an approval or a charge event reports.
	Data json.RawMessage `json:"data,omitempty"`
}

// callKey names a call within its run: c3 for the third activity, l3 for
// the third local activity.
func callKey(local bool, call int) string {
	if local {
		return "l" + strconv.Itoa(call)
	}
	return "c" + strconv.Itoa(call)
}

// key names the event's call across runs: run/c3.
func (e Event) key() string { return e.RunID + "/" + callKey(e.Local, e.Call) }

// PlannedID, ResetID, DeltaID and FinalID are the IDs of a call's events:
// run/c3/planned, run/c3/a2 (attempt 2 starts), run/c3/a2/7 (its seventh
// delta), run/c3/final.
func PlannedID(run string, local bool, call int) string {
	return run + "/" + callKey(local, call) + "/planned"
}

// ResetID is the ID of the Reset of attempt of a call (see PlannedID).
func ResetID(run string, local bool, call, attempt int) string {
	return run + "/" + callKey(local, call) + "/a" + strconv.Itoa(attempt)
}

// DeltaID is the ID of the seq-th Delta of attempt of a call (see
// PlannedID).
func DeltaID(run string, local bool, call, attempt, seq int) string {
	return ResetID(run, local, call, attempt) + "/" + strconv.Itoa(seq)
}

// FinalID is the ID of a call's Final (see PlannedID).
func FinalID(run string, local bool, call int) string {
	return run + "/" + callKey(local, call) + "/final"
}

// Check reports what is wrong with e for a hub to keep it, naming the
// field.
func (e Event) Check() error {
	switch {
	case e.Stream == "":
		return errors.New("live: Event.Stream is empty")
	case e.ID == "":
		return errors.New("live: Event.ID is empty")
	case e.RunID == "":
		return fmt.Errorf("live: event %s: RunID is empty", e.ID)
	}
	switch e.Kind {
	case Planned, Final:
	case Reset, Delta:
		if e.Attempt < 1 {
			return fmt.Errorf("live: event %s: Attempt is %d: a %s names an attempt, from 1", e.ID, e.Attempt, e.Kind)
		}
		if e.Kind == Delta && e.Seq < 1 {
			return fmt.Errorf("live: event %s: Seq is %d: a delta is numbered from 1", e.ID, e.Seq)
		}
		if e.Kind == Delta {
			if err := e.TextKind.Check(); err != nil {
				return fmt.Errorf("live: event %s: %w", e.ID, err)
			}
		}
	case ApprovalAsked, ApprovalDecided, Charged:
		return nil
	default:
		return fmt.Errorf("live: event %s: Kind %q is not a kind of this package", e.ID, e.Kind)
	}
	if e.Call < 1 {
		return fmt.Errorf("live: event %s: Call is %d: a %s names its call, from 1", e.ID, e.Call, e.Kind)
	}
	return nil
}
