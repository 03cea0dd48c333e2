package history

import (
	"path/filepath"
	"testing"
)

// The committed history: Reserve, a 500ms timer, Charge, complete.
var committed = filepath.Join("..", "..", "testsuite", "testdata", "histories", "order_workflow.json")

func TestCommands(t *testing.T) {
	t.Parallel()
	h, err := ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ScheduleActivityTask(Reserve)", "StartTimer(500ms)", "ScheduleActivityTask(Charge)", "CompleteWorkflowExecution"}
	got := Commands(h)
	if i, ok := FirstDivergence(want, got); !ok {
		t.Fatalf("Commands() = %q, want %q (first difference at %d)", got, want, i)
	}
	if WorkflowType(h) != "OrderWorkflow" {
		t.Fatalf("WorkflowType() = %q", WorkflowType(h))
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	h, err := ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "copy.json")
	if err := WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	again, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.GetEvents()) != len(h.GetEvents()) || len(h.GetEvents()) == 0 {
		t.Fatalf("round trip kept %d of %d events", len(again.GetEvents()), len(h.GetEvents()))
	}
}

func TestParseNondeterminism(t *testing.T) {
	t.Parallel()
	h, err := ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	// Messages as the SDK (v1.51.0) words them, attributes shortened.
	tests := []struct {
		name   string
		msg    string
		wantOK bool
		want   Divergence
	}{
		{"mismatch",
			"[TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:5, ActivityType:(Name:Reserve), TaskQueue:(Name:q, Kind:Normal)), replay command is ScheduleActivityTask: (ActivityId:5, ActivityType:(Name:Charge), TaskQueue:(Name:q, Kind:Normal))",
			true, Divergence{CommandIndex: 0, Expected: "ScheduleActivityTask(Reserve)", Actual: "ScheduleActivityTask(Charge)"}},
		{"mismatch on the second activity",
			"[TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:16, ActivityType:(Name:Charge)), replay command is ScheduleActivityTask: (ActivityId:16, ActivityType:(Name:Refund))",
			true, Divergence{CommandIndex: 2, Expected: "ScheduleActivityTask(Charge)", Actual: "ScheduleActivityTask(Refund)"}},
		{"timer against activity",
			"[TMPRL1100] nondeterministic workflow: history event is TimerStarted: (TimerId:11, StartToFireTimeout:(Seconds:0, Nanos:500000000), WorkflowTaskCompletedEventId:10), replay command is StartTimer: (TimerId:11, StartToFireTimeout:(Seconds:2, Nanos:0))",
			true, Divergence{CommandIndex: 1, Expected: "StartTimer(500ms)", Actual: "StartTimer(2s)"}},
		{"missing replay command",
			"[TMPRL1100] nondeterministic workflow: missing replay command for ActivityTaskScheduled: (ActivityId:16, ActivityType:(Name:Charge))",
			true, Divergence{CommandIndex: 2, Expected: "ScheduleActivityTask(Charge)"}},
		{"extra replay command",
			"[TMPRL1100] nondeterministic workflow: extra replay command for ScheduleActivityTask: (ActivityId:17, ActivityType:(Name:Ship))",
			true, Divergence{CommandIndex: -1, Actual: "ScheduleActivityTask(Ship)"}},
		{"position, wrapped in a failure",
			`replay workflow failed with failure: message:"[TMPRL1100] During replay, a matching Timer command was expected in history event position 11. However, the replayed code did not produce that." source:"GoSDK"`,
			true, Divergence{CommandIndex: 1, Expected: "StartTimer(500ms)"}},
		{"position of an unknown kind",
			"[TMPRL1100] During replay, a matching Marker command was expected in history event position 3. However, the replayed code did not produce that.",
			true, Divergence{CommandIndex: -1, Expected: "Marker 3"}},
		{"event not in the history",
			"[TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:99, ActivityType:(Name:Other)), replay command is ScheduleActivityTask: (ActivityId:99, ActivityType:(Name:Charge))",
			true, Divergence{CommandIndex: -1, Expected: "ScheduleActivityTask(Other)", Actual: "ScheduleActivityTask(Charge)"}},
		{"unrecognised TMPRL1100 text", "[TMPRL1100] something new", true, Divergence{CommandIndex: -1}},
		{"not nondeterminism", "unable to find workflow type: OrderWorkflow", false, Divergence{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseNondeterminism(tt.msg, h)
			if ok != tt.wantOK || got != tt.want {
				t.Fatalf("ParseNondeterminism() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestFirstDivergence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		expected, actual []string
		wantIndex        int
		wantOK           bool
	}{
		{"equal", []string{"a", "b"}, []string{"a", "b"}, -1, true},
		{"nil and empty", nil, []string{}, -1, true},
		{"differs", []string{"a", "b"}, []string{"a", "c"}, 1, false},
		{"shorter", []string{"a", "b"}, []string{"a"}, 1, false},
		{"longer", []string{"a"}, []string{"a", "b"}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			i, ok := FirstDivergence(tt.expected, tt.actual)
			if i != tt.wantIndex || ok != tt.wantOK {
				t.Fatalf("FirstDivergence() = %d, %v; want %d, %v", i, ok, tt.wantIndex, tt.wantOK)
			}
		})
	}
}
