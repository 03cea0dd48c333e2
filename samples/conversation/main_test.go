package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	failurepb "go.temporal.io/api/failure/v1"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one real dev server among the integration tests, told
// the sample's Update limit as the server the sample starts is; `go test
// -run Unit` starts none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{ExtraArgs: DevServerArgs(DefaultUpdateLimit)}))
}

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-adress", "x:1"}, "flag provided but not defined: -adress"},
		{"no port", []string{"-address", "localhost"}, `-address "localhost" is not host:port`},
		{"bad port", []string{"-address", "localhost:http"}, `port "http" is not a number`},
		{"empty namespace", []string{"-namespace", ""}, "-namespace is empty"},
		{"zero ceiling", []string{"-ceiling", "0"}, "-ceiling is 0: it must be at least 1"},
		{"zero turns", []string{"-turns", "0"}, "-turns is 0: it must be at least 1"},
		{"not a number", []string{"-ceiling", "many"}, "invalid value"},
		{"argument", []string{"now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 2, run(tt.args, &stdout, &stderr))
			assert.Contains(t, stderr.String(), tt.want)
			assert.Empty(t, stdout.String())
		})
	}
}

func TestUnitFlagsParse(t *testing.T) {
	t.Parallel()
	cfg, err := parseFlags([]string{"-address", "localhost:7233", "-namespace", "n", "-history", "h", "-ceiling", "90", "-turns", "20"}, &bytes.Buffer{})
	require.NoError(t, err)
	want := DefaultInput()
	want.Ceiling, want.MaxTurns = 90, 20
	assert.Equal(t, Config{Address: "localhost:7233", Namespace: "n", HistoryDir: "h", Input: &want}, cfg)
	var stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, &bytes.Buffer{}, &stderr), "-h is not an error")
	assert.Contains(t, stderr.String(), "-ceiling")
}

func TestUnitBadInputIsAClearError(t *testing.T) {
	t.Parallel()
	good := DefaultInput()
	good.ID = "c"
	require.NoError(t, good.validate())
	tests := []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"no ID", func(in *Input) { in.ID = "" }, "ID is empty"},
		{"no turns", func(in *Input) { in.MaxTurns = 0 }, "MaxTurns is 0"},
		{"no ceiling", func(in *Input) { in.Ceiling = 0 }, "Ceiling is 0"},
		{"negative pool", func(in *Input) { in.Retries = -1 }, "Retries is -1"},
		{"limit below a turn", func(in *Input) { in.UpdateLimit = maxTurnUpdates }, "UpdateLimit is 4: a turn asks for up to 4 Updates"},
		{"no delegation", func(in *Input) { in.SubAgentEvery = 0 }, "SubAgentEvery is 0"},
		{"run 0", func(in *Input) { in.Run = 0 }, "a chain starts at turn 0, run 1"},
	}
	for _, tt := range tests {
		in := good
		tt.edit(&in)
		err := in.validate()
		require.Error(t, err, tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
	}
	_, err := Run(context.Background(), Config{Input: &Input{}}, io.Discard, io.Discard)
	require.ErrorContains(t, err, "conversation: input: MaxTurns is 0", "Run refuses a bad input before it starts anything")
}

// TestUnitFailedRunKeepsItsDataDirectory: a run that fails after making
// its temporary data directory keeps it, with the worker log, and its
// error says where it is.
func TestUnitFailedRunKeepsItsDataDirectory(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Address: "127.0.0.1:1", Namespace: "default"}, io.Discard, io.Discard)
	require.Error(t, err)
	kept, globErr := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "temporaladk-conversation-*"))
	require.NoError(t, globErr)
	require.Len(t, kept, 1)
	assert.Contains(t, err.Error(), "(its data directory "+kept[0]+" is kept)")
	assert.FileExists(t, filepath.Join(kept[0], "worker.log"))
}

// TestUnitUnrunAttempts pins which failures readAttempts counts as
// attempts that never ran the activity's code.
func TestUnitUnrunAttempts(t *testing.T) {
	t.Parallel()
	app := func(typ string, cause *failurepb.Failure) *failurepb.Failure {
		return &failurepb.Failure{Cause: cause, FailureInfo: &failurepb.Failure_ApplicationFailureInfo{ApplicationFailureInfo: &failurepb.ApplicationFailureInfo{Type: typ}}}
	}
	assert.True(t, unrun(app(temporaladk.TypeBudgetExceeded, nil)), "refused before it ran")
	assert.False(t, unrun(app(temporaladk.TypeBudgetExceeded, app(temporaladk.TypeToolFailure, nil))), "refused the next attempt after it ran and failed")
	assert.True(t, unrun(app(temporaladk.TypeBudgetUnavailable, app("", nil))))
	assert.False(t, unrun(app(temporaladk.TypeProviderUnavailable, nil)))
	assert.False(t, unrun(nil))
}

// TestUnitChecksCatchBrokenChains feeds the report's checks chains that
// break each property, and asserts that the check says so.
func TestUnitChecksCatchBrokenChains(t *testing.T) {
	t.Parallel()
	in := DefaultInput()
	healthy := func() *Report {
		child := ChildRecord{WorkflowID: "c/subagent-4", Delegation: "child-1", Attempts: 4, Charged: 4, OwnerChecked: true}
		return &Report{
			Input:  in,
			Result: Result{Spent: 30, Limit: in.Ceiling, StoppedBy: "turns"},
			Runs: []*RunRecord{
				{Number: 1, StartLimit: in.Ceiling, FirstAttempts: 6, RetryCharges: 1, ChildCharges: 4, OwnAttempts: 7, Updates: 36, ContinuedAsNew: true, CarriedSpent: 11, Children: []ChildRecord{child}},
				{Number: 2, StartLimit: in.Ceiling, StartSpent: 11, FirstAttempts: 8, RetryCharges: 2, OwnAttempts: 10, Updates: 37, ContinuedAsNew: true, CarriedSpent: 21},
				{Number: 3, StartLimit: in.Ceiling, StartSpent: 21, FirstAttempts: 8, RetryCharges: 1, OwnAttempts: 9, Updates: 3, Result: &Result{Spent: 30}},
			},
		}
	}
	r := healthy()
	r.evaluate()
	require.Empty(t, r.Failed(), "the healthy chain passes")

	tests := []struct {
		check string
		edit  func(*Report)
	}{
		{"continued as new on its own at least twice", func(r *Report) { r.Runs = r.Runs[1:] }},
		{"each hand-over carried the budget as its run left it", func(r *Report) { r.Runs[1].StartSpent = 10 }},
		{"the last run's budget is what its history charged", func(r *Report) { r.Runs[2].Result.Spent = 29 }},
		{"every attempt that ran was charged, once", func(r *Report) { r.Runs[1].OwnAttempts = 11 }},
		{"the total never passed the ceiling", func(r *Report) { r.Result.Limit = in.Ceiling + 1 }},
		{"sub-agents charged to the parent, every attempt", func(r *Report) { r.Runs[0].Children[0].Charged = 3 }},
		{"sub-agents charged to the parent, every attempt", func(r *Report) { r.Runs[0].Children[0].OwnerChecked = false }},
		{"budgeted retries happened", func(r *Report) {
			for _, run := range r.Runs {
				run.OwnAttempts -= run.RetryCharges
				run.RetryCharges = 0
			}
			r.Runs[2].Result.Spent, r.Result.Spent = 26, 26
			r.Runs[1].StartSpent, r.Runs[0].CarriedSpent = 10, 10
			r.Runs[2].StartSpent, r.Runs[1].CarriedSpent = 18, 18
		}},
		{"each run continued as new before its Update limit", func(r *Report) { r.Runs[0].Updates = 20 }},
		{"each run continued as new before its Update limit", func(r *Report) { r.Runs[1].OutOfUpdates = 1 }},
		{"replay of every recorded history clean", func(r *Report) { r.ReplayErr = assert.AnError }},
	}
	for _, tt := range tests {
		r := healthy()
		tt.edit(r)
		r.evaluate()
		var failed []string
		for _, c := range r.Failed() {
			failed = append(failed, c.Name)
		}
		assert.Contains(t, failed, tt.check)
	}
}

// recorded lists the histories testsuite.RecordFamily wrote under dir, in
// its order (each run, then its sub-agents, then the next run): the
// chain's runs, run-N.json, and the sub-agents', run-N.child-J-SubAgent.run-1.json.
func recorded(t *testing.T, dir string) (files, runs, subagents []string) {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "run-*.json"))
	require.NoError(t, err)
	place := func(f string) (run, child int) {
		base := filepath.Base(f)
		if strings.Contains(base, ".child-") {
			_, err := fmt.Sscanf(base, "run-%d.child-%d-SubAgent.run-1.json", &run, &child)
			require.NoError(t, err, base)
			return run, child
		}
		_, err := fmt.Sscanf(base, "run-%d.json", &run)
		require.NoError(t, err, base)
		return run, 0
	}
	slices.SortFunc(all, func(a, b string) int {
		ra, ca := place(a)
		rb, cb := place(b)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(ca, cb))
	})
	for _, f := range all {
		if _, child := place(f); child > 0 {
			subagents = append(subagents, f)
		} else {
			runs = append(runs, f)
		}
	}
	return all, runs, subagents
}

// TestReplayRecordedHistories replays every run of the chain and every
// sub-agent committed under testdata/histories with the current code and
// the worker's options: a change that would break a running conversation
// fails here. After a deliberate change, record them again with
// `go run ./samples/conversation -history samples/conversation/testdata/histories`.
func TestReplayRecordedHistories(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "histories")
	_, runs, subagents := recorded(t, dir)
	require.GreaterOrEqual(t, len(runs), 3, "a chain of at least three runs is recorded")
	require.NotEmpty(t, subagents)
	require.NoError(t, ReplayDir(dir))
}

// TestUnitReportFromTheRecordedHistories reads the report from the
// committed recording, as Run reads it from the one it has just made: the
// chain's three runs with their sub-agents, and every check but the replay
// (which TestReplayRecordedHistories makes) holds.
func TestUnitReportFromTheRecordedHistories(t *testing.T) {
	t.Parallel()
	files, runs, subagents := recorded(t, filepath.Join("testdata", "histories"))
	h, err := readHistory(runs[0])
	require.NoError(t, err)
	workflowID := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	chain, err := ReadChain(workflowID, files)
	require.NoError(t, err)
	require.Len(t, chain, len(runs))
	children := 0
	for _, r := range chain {
		children += len(r.Children)
	}
	assert.Equal(t, len(subagents), children)
	last := chain[len(chain)-1]
	require.NotNil(t, last.Result)
	r := &Report{Input: chain[0].Input, Runs: chain, Result: *last.Result}
	r.evaluate()
	assert.Empty(t, r.Failed())

	_, err = ReadChain(workflowID, runs)
	assert.ErrorContains(t, err, "is not among the recorded histories", "a recording without its sub-agents")
	_, err = ReadChain(workflowID, nil)
	assert.EqualError(t, err, "conversation: no history was recorded")
}

// TestIntegrationConversation runs the whole sample on a real dev server
// and checks the properties it reports against the chain it read back, and
// that the temporary data directory it made is gone at the end.
func TestIntegrationConversation(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	r, err := Run(ctx, Config{Address: srv.Address(), Namespace: srv.Namespace(), HistoryDir: filepath.Join(t.TempDir(), "histories")}, &out, io.Discard)
	require.NoError(t, err, out.String())
	left, err := filepath.Glob(filepath.Join(tmp, "temporaladk-conversation-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the temporary data directory is removed when the run succeeds")
	in := DefaultInput()

	require.GreaterOrEqual(t, len(r.Runs), 3, "the conversation continued as new at least twice")
	attempts, children := 0, 0
	for i, run := range r.Runs {
		attempts += run.Attempts()
		assert.LessOrEqual(t, run.Updates, in.UpdateLimit, "run %d stayed within the server's Update limit", run.Number)
		assert.Zero(t, run.OutOfUpdates, "run %d", run.Number)
		if i > 0 {
			prev := r.Runs[i-1]
			assert.True(t, prev.ContinuedAsNew)
			assert.Equal(t, prev.EndSpent(), run.StartSpent, "run %d began where run %d left the budget", run.Number, prev.Number)
			assert.GreaterOrEqual(t, prev.Updates, (in.UpdateLimit*9+9)/10, "run %d continued as new near the limit", prev.Number)
		}
		for _, c := range run.Children {
			children++
			var turn int
			_, err := fmt.Sscanf(filepath.Base(c.WorkflowID), "subagent-%d", &turn)
			require.NoError(t, err, c.WorkflowID)
			assert.Zero(t, turn%in.SubAgentEvery, "%s: every %d-th turn is a sub-agent's", c.WorkflowID, in.SubAgentEvery)
			assert.True(t, c.OwnerChecked, "%s names run %d's ledger", c.WorkflowID, run.Number)
			assert.Positive(t, c.Attempts)
			assert.Equal(t, c.Attempts, c.Charged, "%s: every attempt charged to the parent", c.WorkflowID)
		}
	}
	assert.Positive(t, children)
	last := r.Runs[len(r.Runs)-1]
	require.NotNil(t, last.Result)
	assert.Equal(t, r.Result, *last.Result)
	assert.Equal(t, last.EndSpent(), r.Result.Spent, "the spent reported is the one the histories charged")
	assert.Equal(t, attempts, r.Result.Spent, "every attempt that ran was charged once")
	assert.LessOrEqual(t, attempts, in.Ceiling)
	assert.Equal(t, in.Ceiling, r.Result.Limit, "the ceiling was never widened")
	assert.Equal(t, "budget", r.Result.StoppedBy, "the conversation went on until the ceiling refused")
	assert.Equal(t, in.Ceiling, r.Result.Spent)

	// Every run and every sub-agent is recorded.
	_, runs, subagents := recorded(t, r.HistoryDir)
	assert.Len(t, runs, len(r.Runs))
	assert.Len(t, subagents, children)
	assert.Positive(t, r.Totals().Retries)
	assert.NoError(t, r.ReplayErr)
	assert.Empty(t, r.Failed())
	for _, fact := range []string{
		"[ok  ] continued as new on its own at least twice",
		"[ok  ] every attempt that ran was charged, once",
		"[ok  ] the total never passed the ceiling",
		"[ok  ] sub-agents charged to the parent, every attempt",
	} {
		assert.Contains(t, out.String(), fact)
	}
	assert.False(t, strings.Contains(out.String(), "FAIL"), out.String())
}
