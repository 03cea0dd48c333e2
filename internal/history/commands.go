package history

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
)

// commandOfEvent maps each history event that a workflow command produces to
// that command's type name, as the SDK names commands in its messages.
var commandOfEvent = map[enumspb.EventType]string{
	enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:                              "ScheduleActivityTask",
	enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED:                       "RequestCancelActivityTask",
	enumspb.EVENT_TYPE_TIMER_STARTED:                                        "StartTimer",
	enumspb.EVENT_TYPE_TIMER_CANCELED:                                       "CancelTimer",
	enumspb.EVENT_TYPE_MARKER_RECORDED:                                      "RecordMarker",
	enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:             "StartChildWorkflowExecution",
	enumspb.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: "RequestCancelExternalWorkflowExecution",
	enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:         "SignalExternalWorkflowExecution",
	enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:                    "UpsertWorkflowSearchAttributes",
	enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:                         "ModifyWorkflowProperties",
	enumspb.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:                            "ScheduleNexusOperation",
	enumspb.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:                     "RequestCancelNexusOperation",
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:                         "CompleteWorkflowExecution",
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:                            "FailWorkflowExecution",
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:                          "CancelWorkflowExecution",
	enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:                  "ContinueAsNewWorkflowExecution",
}

// commandEvent is a history event that records a command, with its summary.
type commandEvent struct {
	event   *historypb.HistoryEvent
	summary string
}

// commandEvents lists the history's command-recording events in order.
func commandEvents(h *historypb.History) []commandEvent {
	var out []commandEvent
	for _, e := range h.GetEvents() {
		name, ok := commandOfEvent[e.GetEventType()]
		if !ok {
			continue
		}
		out = append(out, commandEvent{event: e, summary: name + detail(e)})
	}
	return out
}

// Commands lists the commands a history records, one per command event, as
// "ScheduleActivityTask(Charge)", "StartTimer(1s)", "RecordMarker(Version)",
// "CompleteWorkflowExecution": the command type and what tells it apart.
func Commands(h *historypb.History) []string {
	events := commandEvents(h)
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.summary
	}
	return out
}

// detail is the parenthesised part of an event's command summary, or "".
func detail(e *historypb.HistoryEvent) string {
	var d string
	switch e.GetEventType() {
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		d = e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
	case enumspb.EVENT_TYPE_TIMER_STARTED:
		d = e.GetTimerStartedEventAttributes().GetStartToFireTimeout().AsDuration().String()
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		d = e.GetMarkerRecordedEventAttributes().GetMarkerName()
	case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
		d = e.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowType().GetName()
	case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
		d = e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetSignalName()
	case enumspb.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:
		a := e.GetNexusOperationScheduledEventAttributes()
		d = a.GetService() + "/" + a.GetOperation()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		d = e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetWorkflowType().GetName()
	}
	if d == "" {
		return ""
	}
	return "(" + d + ")"
}

// FirstDivergence returns the first index at which expected and actual
// differ, and ok=false; or (-1, true) when they are equal. A shorter actual
// diverges at len(actual), a longer one at len(expected).
func FirstDivergence(expected, actual []string) (index int, ok bool) {
	for i := 0; i < len(expected) || i < len(actual); i++ {
		if i >= len(expected) || i >= len(actual) || expected[i] != actual[i] {
			return i, false
		}
	}
	return -1, true
}

// Divergence is what a nondeterminism message says: the command the history
// expected and the one the replayed code produced, and the expected command's
// index in Commands(history) when it can be found (-1 otherwise).
type Divergence struct {
	CommandIndex int
	Expected     string
	Actual       string
}

// The SDK's replay messages (internal/internal_task_handlers.go,
// internal/internal_command_state_machine.go in go.temporal.io/sdk).
var (
	reMismatch = regexp.MustCompile(`nondeterministic workflow: history event is (.+?), replay command is (.+)$`)
	reMissing  = regexp.MustCompile(`nondeterministic workflow: missing replay command for (.+)$`)
	reExtra    = regexp.MustCompile(`nondeterministic workflow: extra replay command for (.+)$`)
	rePosition = regexp.MustCompile(`a matching (\w+) command was expected in history event position (\S+?)\. `)
)

// ParseNondeterminism reads an SDK nondeterminism message against the replayed
// history. ok is false when msg is not a nondeterminism message.
func ParseNondeterminism(msg string, h *historypb.History) (Divergence, bool) {
	// The message can be wrapped (for example in a failure's text); only its
	// first line matters.
	i := strings.Index(msg, "[TMPRL1100]")
	if i < 0 {
		return Divergence{}, false
	}
	msg = msg[i:]
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	events := commandEvents(h)
	switch {
	case reMismatch.MatchString(msg):
		m := reMismatch.FindStringSubmatch(msg)
		return fromEventText(m[1], summarizeText(m[2]), events), true
	case reMissing.MatchString(msg):
		m := reMissing.FindStringSubmatch(msg)
		return fromEventText(m[1], "", events), true
	case reExtra.MatchString(msg):
		m := reExtra.FindStringSubmatch(msg)
		return Divergence{CommandIndex: -1, Actual: summarizeText(m[1])}, true
	case rePosition.MatchString(msg):
		m := rePosition.FindStringSubmatch(msg)
		d := Divergence{CommandIndex: -1, Expected: m[1] + " " + m[2]}
		if i := findByID(events, m[1], m[2]); i >= 0 {
			d.CommandIndex, d.Expected = i, events[i].summary
		}
		return d, true
	}
	return Divergence{CommandIndex: -1}, true
}

// fromEventText locates the history event the SDK printed and describes it.
func fromEventText(text, actual string, events []commandEvent) Divergence {
	d := Divergence{CommandIndex: -1, Expected: summarizeText(text), Actual: actual}
	typ, _, _ := strings.Cut(text, ":")
	id := field(text, "ActivityId")
	if id == "" {
		id = field(text, "TimerId")
	}
	var candidates []int
	for i, e := range events {
		if e.event.GetEventType().String() != strings.TrimSpace(typ) {
			continue
		}
		if id != "" && eventID(e.event) != id {
			continue
		}
		candidates = append(candidates, i)
	}
	if len(candidates) == 1 || (len(candidates) > 1 && id != "") {
		d.CommandIndex = candidates[0]
		d.Expected = events[candidates[0]].summary
	}
	return d
}

// findByID finds the command event of an SDK command kind with the given ID.
func findByID(events []commandEvent, kind, id string) int {
	want := map[string]enumspb.EventType{
		"Activity":      enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
		"Timer":         enumspb.EVENT_TYPE_TIMER_STARTED,
		"ChildWorkflow": enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
	}[kind]
	for i, e := range events {
		if e.event.GetEventType() == want && eventID(e.event) == id {
			return i
		}
	}
	return -1
}

// eventID is the ID the SDK matches commands by, for the kinds that have one.
func eventID(e *historypb.HistoryEvent) string {
	switch e.GetEventType() {
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		return e.GetActivityTaskScheduledEventAttributes().GetActivityId()
	case enumspb.EVENT_TYPE_TIMER_STARTED:
		return e.GetTimerStartedEventAttributes().GetTimerId()
	case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
		return e.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowId()
	}
	return ""
}

// field extracts "Name:value" from the SDK's struct text.
func field(text, name string) string {
	re := regexp.MustCompile(`\b` + name + `:([^,()]+)`)
	if m := re.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

var reDuration = regexp.MustCompile(`StartToFireTimeout:\(([^)]*)\)`)

// summarizeText turns the SDK's "Type: (fields...)" text for a command or an
// event into the short form Commands uses.
func summarizeText(text string) string {
	typ, rest, _ := strings.Cut(text, ":")
	typ = strings.TrimSpace(typ)
	name := typ
	for eventType, command := range commandOfEvent {
		if eventType.String() == typ {
			name = command
		}
	}
	var d string
	switch name {
	case "ScheduleActivityTask":
		d = nestedName(rest, "ActivityType")
	case "StartChildWorkflowExecution", "ContinueAsNewWorkflowExecution":
		d = nestedName(rest, "WorkflowType")
	case "RecordMarker":
		d = field(rest, "MarkerName")
	case "SignalExternalWorkflowExecution":
		d = field(rest, "SignalName")
	case "StartTimer":
		if m := reDuration.FindStringSubmatch(rest); m != nil {
			secs, _ := strconv.ParseInt(field(m[1], "Seconds"), 10, 64)
			nanos, _ := strconv.ParseInt(field(m[1], "Nanos"), 10, 64)
			d = (time.Duration(secs)*time.Second + time.Duration(nanos)).String()
		}
	}
	if d == "" {
		return name
	}
	return name + "(" + d + ")"
}

// nestedName extracts X from "Key:(Name:X...".
func nestedName(text, key string) string {
	re := regexp.MustCompile(`\b` + key + `:\(Name:([^,()]+)`)
	if m := re.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}
