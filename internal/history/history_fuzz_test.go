package history

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadFile feeds any bytes to the history loader: a malformed file is an
// error, never a panic, and whatever loads can be listed, named, written and
// read back to the same commands.
func FuzzReadFile(f *testing.F) {
	good, err := os.ReadFile(committed)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{
		good, good[:len(good)/2], nil, []byte("{}"), []byte(`{"events":[]}`), []byte(`{"events":5}`),
		[]byte(`{"events":[{"eventId":"1","eventType":"TimerStarted","timerStartedEventAttributes":{"startToFireTimeout":"-1s"}}]}`),
		[]byte(`{"events":[{"eventId":"1","eventType":"WorkflowExecutionStarted"}]}`),
		[]byte(`{"events":[{"eventId":"x","eventType":"NoSuchEvent"}]}`),
		[]byte{0xff, 0xfe, 0x00},
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "history.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadFile(path)
		if err != nil {
			if h != nil {
				t.Fatalf("ReadFile returned a history with the error %v", err)
			}
			return
		}
		cmds := Commands(h)
		_ = WorkflowType(h)
		ParseNondeterminism("[TMPRL1100] nondeterministic workflow: missing replay command for TimerStarted: (TimerId:1)", h)
		again := filepath.Join(dir, "again.json")
		if err := WriteFile(again, h); err != nil {
			t.Fatalf("a history that loads does not write: %v", err)
		}
		back, err := ReadFile(again)
		if err != nil {
			t.Fatalf("a written history does not load: %v", err)
		}
		if i, ok := FirstDivergence(cmds, Commands(back)); !ok {
			t.Fatalf("commands changed at %d after a write and a read", i)
		}
	})
}

// FuzzParseNondeterminism feeds any message to the explanation of a
// nondeterminism failure, against the committed history: no panic, and an
// index it returns points at a command of the history.
func FuzzParseNondeterminism(f *testing.F) {
	h, err := ReadFile(committed)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"",
		"[TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:5, ActivityType:(Name:Charge)), replay command is ScheduleActivityTask: (ActivityId:5, ActivityType:(Name:Refund))",
		"[TMPRL1100] nondeterministic workflow: missing replay command for TimerStarted: (TimerId:3, StartToFireTimeout:(Seconds:0, Nanos:500000000))",
		"[TMPRL1100] nondeterministic workflow: extra replay command for StartTimer: (TimerId:9)",
		"[TMPRL1100] During replay, a matching Timer command was expected in history event position 7. However, the replayed code did not produce that.",
		"wrapped: [TMPRL1100] nondeterministic workflow: history event is :\nsecond line",
	} {
		f.Add(seed)
	}
	commands := Commands(h)
	f.Fuzz(func(t *testing.T, msg string) {
		d, ok := ParseNondeterminism(msg, h)
		if !ok {
			return
		}
		if d.CommandIndex < -1 || d.CommandIndex >= len(commands) {
			t.Fatalf("CommandIndex %d outside the history's %d commands", d.CommandIndex, len(commands))
		}
		if d.CommandIndex >= 0 && d.Expected != commands[d.CommandIndex] {
			t.Fatalf("Expected %q is not command %d, %q", d.Expected, d.CommandIndex, commands[d.CommandIndex])
		}
	})
}
