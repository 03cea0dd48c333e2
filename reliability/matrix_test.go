package reliability_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// Think, Lookup and Note fail their first FailFirst attempts with a
// retryable 503, as Flaky does: Think is called tagged MODEL, Lookup gets
// its class from its declaration, Note from the kit's DefaultClass.
func (a *Agent) Think(ctx context.Context, args FlakyArgs) error { return a.Flaky(ctx, args) }

// Lookup is Flaky under another activity type; see Think.
func (a *Agent) Lookup(ctx context.Context, args FlakyArgs) error { return a.Flaky(ctx, args) }

// Note is Flaky under another activity type; see Think.
func (a *Agent) Note(ctx context.Context, args FlakyArgs) error { return a.Flaky(ctx, args) }

// MatrixRequest configures MatrixWorkflow. A zero budget means none.
type MatrixRequest struct {
	RunBudget int
	Pool      int
	FailFirst int
}

// MatrixResult is how each call of MatrixWorkflow ended, and what the
// budgets counted.
type MatrixResult struct {
	Outcomes          []Outcome
	RunSpent, Retries int
}

// MatrixWorkflow makes one call of every kind whose plan the kit's options
// decide: a tagged MODEL call, a read whose class is declared, an untagged
// call (DefaultClass), a read that uses all its attempts, and a last MODEL
// call, each failing FailFirst times first, under the budgets asked for.
// With a RunBudget of 8 the exhausted read's third attempt is refused
// through the charge Update and the last call's first attempt in workflow
// code; with a pool of 2 retries the untagged call's retry and the
// exhausted read's are refused.
func MatrixWorkflow(ctx workflow.Context, req MatrixRequest) (MatrixResult, error) {
	ctx, counts, err := withBudgets(ctx, "matrix", req.RunBudget, req.Pool)
	if err != nil {
		return MatrixResult{}, err
	}
	// The caller sets StartToClose, so that the workflow also runs (and
	// replays) on a worker without the kit.
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	model := temporaladk.WithClass(ctx, temporaladk.Model)
	steps := []struct {
		ctx       workflow.Context
		activity  any
		failFirst int
	}{
		{model, (*Agent).Think, req.FailFirst},
		{ctx, (*Agent).Lookup, req.FailFirst},
		{ctx, (*Agent).Note, req.FailFirst},
		{ctx, (*Agent).Lookup, 10},
		{model, (*Agent).Think, 0},
	}
	var out MatrixResult
	for i, s := range steps {
		err := workflow.ExecuteActivity(s.ctx, s.activity, FlakyArgs{Branch: i, FailFirst: s.failFirst}).Get(ctx, nil)
		out.Outcomes = append(out.Outcomes, outcomeOf(temporaladk.FromApplicationError(err)))
	}
	out.RunSpent, out.Retries = counts()
	return out, nil
}

// matrixOptions is the configuration the upgrade matrix records under:
// kitOptions, with untagged calls MEMORY calls retried 1-5ms apart.
func matrixOptions() interceptors.Options {
	opts := kitOptions()
	memory := mustDefault(temporaladk.Memory)
	memory.Retry.InitialInterval = time.Millisecond
	memory.Retry.MaxInterval = 5 * time.Millisecond
	opts.Policies[temporaladk.Memory] = memory
	opts.DefaultClass = temporaladk.Memory
	return opts
}

// TestUpgradeMatrixReplays records histories on a real dev server under
// matrixOptions, with budgets (an attempt budget, a retry budget) and server retries
// with drawn waits, and without, then replays them with the kit's plugin
// built from changed options: attempts up and down, a declaration dropped
// or changed, policies retuned, DefaultClass unset or changed; and, for the
// histories without a budget, with the kit removed. Each must replay
// cleanly: a config change or the kit's removal never breaks a history.
func TestUpgradeMatrixReplays(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	queue := taskQueue(t)
	kit, err := interceptors.NewPlugin(matrixOptions())
	require.NoError(t, err)
	w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{kit}})
	registerWorkflows(w)
	log := &eventLog{}
	w.RegisterActivity(&Agent{emit: log.add})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	dir := t.TempDir()
	budgeted, unbudgeted := filepath.Join(dir, "budgeted"), filepath.Join(dir, "unbudgeted")
	recordings := []struct {
		name     string
		dir      string
		workflow any
		req      any
	}{
		{"run-budget", budgeted, MatrixWorkflow, MatrixRequest{RunBudget: 8, FailFirst: 1}},
		{"attempt-budget", budgeted, MatrixWorkflow, MatrixRequest{Pool: 2, FailFirst: 1}},
		{"fanout-run-budget", budgeted, FanOutWorkflow, FanOutRequest{Branches: 4, RunBudget: 9, FailFirst: 2}},
		{"no-budget", unbudgeted, MatrixWorkflow, MatrixRequest{FailFirst: 1}},
		{"fanout-no-budget", unbudgeted, FanOutWorkflow, FanOutRequest{Branches: 4, FailFirst: 2}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runs := make([]client.WorkflowRun, len(recordings))
	for i, r := range recordings {
		runs[i], err = srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue + "-" + r.name, TaskQueue: queue}, r.workflow, r.req)
		require.NoError(t, err)
	}
	var events, charges, retried int
	for i, r := range recordings {
		require.NoError(t, runs[i].Get(ctx, nil), r.name)
		h := history(t, srv.Client(), runs[i])
		events += len(h)
		for _, e := range h {
			if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == wire.ChargeUpdateName {
				charges++
			}
			if a := e.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
				retried++
			}
		}
		require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), runs[i].GetID(), runs[i].GetRunID(), filepath.Join(r.dir, r.name+".json")))
	}
	// The recordings hold what the matrix is about: retries the server
	// drove, and charges recorded in history.
	require.Positive(t, retried, "the recorded calls were retried")
	require.Positive(t, charges, "the budgeted histories hold charge Updates")

	with := func(change func(*interceptors.Options)) []worker.Plugin {
		opts := matrixOptions()
		change(&opts)
		plugin, err := interceptors.NewPlugin(opts)
		require.NoError(t, err)
		return []worker.Plugin{plugin}
	}
	setAttempts := func(c temporaladk.Class, n int) func(*interceptors.Options) {
		return func(o *interceptors.Options) {
			p := o.Policies[c]
			if _, ok := o.Policies[c]; !ok {
				p = mustDefault(c)
			}
			p.Retry.MaxAttempts = n
			o.Policies[c] = p
		}
	}
	cases := []struct {
		name    string
		plugins []worker.Plugin
		dirs    []string
	}{
		{"unchanged", with(func(*interceptors.Options) {}), []string{budgeted, unbudgeted}},
		{"MODEL MaxAttempts up", with(setAttempts(temporaladk.Model, 10)), []string{budgeted, unbudgeted}},
		{"MODEL MaxAttempts down", with(setAttempts(temporaladk.Model, 1)), []string{budgeted, unbudgeted}},
		{"RETRIEVAL MaxAttempts up", with(setAttempts(temporaladk.Retrieval, 10)), []string{budgeted, unbudgeted}},
		{"RETRIEVAL MaxAttempts down", with(setAttempts(temporaladk.Retrieval, 1)), []string{budgeted, unbudgeted}},
		{"Lookup declaration dropped", with(func(o *interceptors.Options) { delete(o.Activities, "Lookup") }), []string{budgeted, unbudgeted}},
		{"Lookup class changed to MODEL", with(func(o *interceptors.Options) {
			o.Activities["Lookup"] = temporaladk.Declaration{Class: temporaladk.Model, Idempotency: temporaladk.ReadOnly, Timeout: 10 * time.Second}
		}), []string{budgeted, unbudgeted}},
		{"Lookup idempotency changed to EFFECTFUL", with(func(o *interceptors.Options) {
			o.Activities["Lookup"] = temporaladk.Declaration{Class: temporaladk.Retrieval, Idempotency: temporaladk.Effectful, Timeout: 10 * time.Second}
		}), []string{budgeted, unbudgeted}},
		{"policies retuned (intervals, StartToClose, timeout)", with(func(o *interceptors.Options) {
			for c, p := range o.Policies {
				p.Retry.InitialInterval *= 7
				p.Retry.MaxInterval *= 9
				p.StartToClose *= 2
				o.Policies[c] = p
			}
			d := o.Activities["Lookup"]
			d.Timeout = time.Minute
			o.Activities["Lookup"] = d
		}), []string{budgeted, unbudgeted}},
		{"DefaultClass unset", with(func(o *interceptors.Options) { o.DefaultClass = "" }), []string{budgeted, unbudgeted}},
		{"DefaultClass changed to TOOL", with(func(o *interceptors.Options) { o.DefaultClass = temporaladk.Tool }), []string{budgeted, unbudgeted}},
	}
	replays := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range tc.dirs {
				require.NoError(t, testsuite.ReplayDir(d, testsuite.ReplayOptions{Workflows: replayWorkflows(), Plugins: tc.plugins}),
					"%s replays with %s", filepath.Base(d), tc.name)
				replays++
			}
		})
	}
	// A replayer without the kit meets workflow code that calls the kit: the
	// replay fails, and its error names the kit and the fix, never the SDK's
	// nondeterminism alone.
	replayErr := testsuite.ReplayDir(unbudgeted, testsuite.ReplayOptions{Workflows: replayWorkflows()})
	require.Error(t, replayErr, "a replay without the kit is refused")
	require.Contains(t, replayErr.Error(), "without the kit's interceptor")
	require.Contains(t, replayErr.Error(), "interceptors.NewPlugin")
	figure(t, "histories=%d (budgeted 3, without budget 2 (the fan-outs 4 branches); %d events, %d retried calls, %d charge Updates) configurations=%d replays of a history directory=%d all clean=%v; without the kit: %q",
		len(recordings), events, retried, charges, len(cases), replays, !t.Failed(), firstSentence(replayErr.Error()))
}

// TestBudgetedReplayIsIndependentOfOptions guards a bug the upgrade matrix
// found, fixed in interceptors: whether a call was charged to a budget was
// decided at replay time from the kit's current options (was the call
// planned: tag, declared class, DefaultClass), and nothing in history
// remembered it; now the budget on the call's context decides alone. Before the fix, a history recorded where an untagged
// call was charged (DefaultClass set) replayed, after DefaultClass is unset,
// with that call uncharged: the RunBudget has one attempt more, the last
// call's first attempt, refused when recorded, is granted on replay, and the
// replay schedules an activity the history does not hold (TMPRL1100). The
// other direction (DefaultClass set after recording without it) charges a
// call that was not, and refuses the last call's first attempt, which was
// scheduled when recorded.
//
// Both directions now replay cleanly.
func TestBudgetedReplayIsIndependentOfOptions(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	record := func(name string, opts interceptors.Options) string {
		queue := taskQueue(t) + "-" + name
		kit, err := interceptors.NewPlugin(opts)
		require.NoError(t, err)
		w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{kit}})
		registerWorkflows(w)
		w.RegisterActivity(&Agent{emit: func(Event) {}})
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
		run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, MatrixWorkflow, MatrixRequest{RunBudget: 8, FailFirst: 1})
		require.NoError(t, err)
		require.NoError(t, run.Get(ctx, nil))
		path := filepath.Join(dir, name+".json")
		require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), run.GetID(), run.GetRunID(), path))
		return path
	}
	withDefault := record("with-default-class", matrixOptions())
	withoutDefault := record("without-default-class", kitOptions())
	cases := []struct {
		name    string
		history string
		change  func(*interceptors.Options)
	}{
		{"recorded with DefaultClass, replayed with it unset", withDefault, func(o *interceptors.Options) { o.DefaultClass = "" }},
		{"recorded without DefaultClass, replayed with it set", withoutDefault, func(o *interceptors.Options) { o.DefaultClass = temporaladk.Memory }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := kitOptions()
			if tc.history == withDefault {
				opts = matrixOptions()
			}
			tc.change(&opts)
			plugin, err := interceptors.NewPlugin(opts)
			require.NoError(t, err)
			require.NoError(t, testsuite.ReplayFile(tc.history, testsuite.ReplayOptions{Workflows: replayWorkflows(), Plugins: []worker.Plugin{plugin}}))
		})
	}
}
