package testsuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestCompareCommands(t *testing.T) {
	t.Parallel()
	abc := []string{"ScheduleActivityTask(A)", "StartTimer(1s)", "CompleteWorkflowExecution"}
	tests := []struct {
		name     string
		expected []string
		actual   []string
		wantOK   bool
		want     testsuite.CommandDiff
	}{
		{"equal", abc, abc, true, testsuite.CommandDiff{Index: -1}},
		{"both empty", nil, nil, true, testsuite.CommandDiff{Index: -1}},
		{"first differs", abc, []string{"ScheduleActivityTask(B)", "StartTimer(1s)", "CompleteWorkflowExecution"}, false,
			testsuite.CommandDiff{Index: 0, Expected: "ScheduleActivityTask(A)", Actual: "ScheduleActivityTask(B)"}},
		{"middle differs", abc, []string{"ScheduleActivityTask(A)", "StartTimer(2s)", "CompleteWorkflowExecution"}, false,
			testsuite.CommandDiff{Index: 1, Expected: "StartTimer(1s)", Actual: "StartTimer(2s)"}},
		{"actual stops short", abc, abc[:1], false,
			testsuite.CommandDiff{Index: 1, Expected: "StartTimer(1s)", Actual: ""}},
		{"actual empty", abc, nil, false,
			testsuite.CommandDiff{Index: 0, Expected: "ScheduleActivityTask(A)", Actual: ""}},
		{"actual asks for more", abc[:2], abc, false,
			testsuite.CommandDiff{Index: 2, Expected: "", Actual: "CompleteWorkflowExecution"}},
		{"expected empty", nil, abc[:1], false,
			testsuite.CommandDiff{Index: 0, Expected: "", Actual: "ScheduleActivityTask(A)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := testsuite.CompareCommands(tt.expected, tt.actual)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCommandDiffString(t *testing.T) {
	t.Parallel()
	d := testsuite.CommandDiff{Index: 1, Expected: "StartTimer(1s)"}
	assert.Equal(t, "command 1: expected StartTimer(1s), actual nothing", d.String())
}

func TestNondeterminismErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  testsuite.NondeterminismError
		want string
	}{
		{"both", testsuite.NondeterminismError{Workflow: "W", Source: "w.json", CommandIndex: 2, Expected: "StartTimer(1s)", Actual: "ScheduleActivityTask(A)"},
			`nondeterminism: workflow "W" in w.json at command 2: history has StartTimer(1s), replay produced ScheduleActivityTask(A)`},
		{"not reproduced", testsuite.NondeterminismError{Workflow: "W", Source: "w.json", CommandIndex: 1, Expected: "StartTimer(1s)"},
			`nondeterminism: workflow "W" in w.json at command 1: history has StartTimer(1s), replay did not produce it`},
		{"extra, index unknown", testsuite.NondeterminismError{Workflow: "W", Source: "w.json", CommandIndex: -1, Actual: "StartTimer(1s)"},
			`nondeterminism: workflow "W" in w.json: history has nothing, replay produced StartTimer(1s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}
