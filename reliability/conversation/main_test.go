// Package conversation_test shows on a real dev server what the conversation
// package promises: budgets named through it hold across continue-as-new and
// across child workflows, as the server recorded the attempts.
package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) { os.Exit(testsuite.RunWithDevServer(m, serverOptions(nil))) }

// serverOptions is the package's dev server with extraArgs. Its client logs
// warnings and errors, but not the SDK's line for every failed attempt:
// the tests fail thousands of attempts on purpose.
func serverOptions(extraArgs []string) testsuite.DevServerOptions {
	handler := quietAttempts{slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
	return testsuite.DevServerOptions{ExtraArgs: extraArgs, ClientOptions: client.Options{Logger: log.NewStructuredLogger(slog.New(handler))}}
}

// quietAttempts drops the SDK's "Activity error." records.
type quietAttempts struct{ slog.Handler }

func (q quietAttempts) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "Activity error." {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietAttempts) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietAttempts{q.Handler.WithAttrs(attrs)}
}

func (q quietAttempts) WithGroup(name string) slog.Handler {
	return quietAttempts{q.Handler.WithGroup(name)}
}

// kitOptions is the kit's configuration of every worker and replay of the
// package. RETRIEVAL calls get many fast attempts (the sequential chains),
// MEMORY calls three fast ones (the fan-outs), MODEL calls many fast ones
// (the sub-agents), and KeyedTool is an effectful tool keyed by its order.
func kitOptions() interceptors.Options {
	retrieval := mustDefault(temporaladk.Retrieval)
	retrieval.Retry.MaxAttempts = chainCallAttempts
	retrieval.Retry.InitialInterval = time.Millisecond
	retrieval.Retry.MaxInterval = 2 * time.Millisecond
	memory := mustDefault(temporaladk.Memory)
	memory.Retry.MaxAttempts = 3
	memory.Retry.InitialInterval = time.Millisecond
	memory.Retry.MaxInterval = 2 * time.Millisecond
	model := mustDefault(temporaladk.Model)
	model.Retry.MaxAttempts = 1000
	model.Retry.InitialInterval = time.Millisecond
	model.Retry.MaxInterval = 2 * time.Millisecond
	// A 10s window: an attempt waits half of it (5s) for a charge's answer,
	// so a loaded machine's slow Update does not turn a first attempt into
	// a kit-fault retry (TemporaladkBudgetUnavailable) that the children's
	// exact attempt counts do not expect; beats every third of it deliver
	// a cancellation within seconds.
	model.Heartbeat = 10 * time.Second
	tool := mustDefault(temporaladk.Tool)
	tool.Retry.MaxAttempts = 3
	tool.Retry.InitialInterval = time.Millisecond
	tool.Retry.MaxInterval = 2 * time.Millisecond
	return interceptors.Options{
		Policies: map[temporaladk.Class]policies.ActivityPolicy{
			temporaladk.Retrieval: retrieval, temporaladk.Memory: memory, temporaladk.Model: model, temporaladk.Tool: tool,
		},
		Activities: map[string]temporaladk.Declaration{
			"KeyedTool": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, Timeout: 10 * time.Second,
				KeyFields: []string{"order"}, Input: KeyedArgs{}},
		},
	}
}

func mustDefault(c temporaladk.Class) policies.ActivityPolicy {
	p, err := policies.Default(c)
	if err != nil {
		panic(err)
	}
	return p
}

// workflows are the package's workflows, for workers and replays alike.
var workflows = []any{AgentChain, FanOutChain, Parent, SubAgent, KeyedChain, AbandoningParent, Orphan, Grandparent, OwnBudgetChild}

// attempts counts the attempts the activities ran, by workflow ID, in this
// process: a cross-check of what the histories say.
type attempts struct {
	mu sync.Mutex
	by map[string]int
}

func (a *attempts) add(workflowID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by == nil {
		a.by = map[string]int{}
	}
	a.by[workflowID]++
}

func (a *attempts) of(workflowIDs ...string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, id := range workflowIDs {
		n += a.by[id]
	}
	return n
}

// ran is every attempt the package's activities ran.
var ran attempts

// Flaky fails every attempt retryably, as a provider that is down.
func Flaky(ctx context.Context) error {
	ran.add(activity.GetInfo(ctx).WorkflowExecution.ID)
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: http.StatusServiceUnavailable, Message: "Service Unavailable"}
}

// started starts a kit worker of the package's workflows and activities on
// its own task queue of c, stopped at the end of the test, and returns the
// queue and the plugin (for replays).
func started(t *testing.T, c client.Client) (string, worker.Plugin) {
	t.Helper()
	plugin, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	queue := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	for _, wf := range workflows {
		w.RegisterWorkflow(wf)
	}
	w.RegisterActivity(Flaky)
	w.RegisterActivity(SubAgentCall)
	w.RegisterActivity(OrphanCall)
	w.RegisterActivityWithOptions(KeyedTool, activity.RegisterOptions{Name: "KeyedTool"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return queue, plugin
}

// run is one closed workflow run and its history.
type run struct {
	workflowID, runID string
	events            []*historypb.HistoryEvent
}

// readHistory reads a closed run's history with client.GetWorkflowHistory.
func readHistory(ctx context.Context, t *testing.T, c client.Client, workflowID, runID string) run {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, workflowID, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	out := run{workflowID: workflowID, runID: runID}
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		out.events = append(out.events, e)
	}
	require.NotEmpty(t, out.events, "workflow %s run %s has a history", workflowID, runID)
	return out
}

// chain reads every run of the chain that begins with (workflowID, runID)
// (an empty runID: the workflow ID's latest run),
// following each run's WorkflowExecutionContinuedAsNew event.
func chain(ctx context.Context, t *testing.T, c client.Client, workflowID, runID string) []run {
	t.Helper()
	var runs []run
	for {
		r := readHistory(ctx, t, c, workflowID, runID)
		runs = append(runs, r)
		a := r.events[len(r.events)-1].GetWorkflowExecutionContinuedAsNewEventAttributes()
		if a == nil {
			return runs
		}
		runID = a.GetNewExecutionRunId()
	}
}

// budgetOf returns the budget of kind (spend.KindAttempts, ...) attached to
// ctx, as temporaladk.BudgetsOf reports it; the zero State when there is
// none.
func budgetOf(ctx workflow.Context, kind string) spend.State {
	for _, s := range temporaladk.BudgetsOf(ctx) {
		if s.Kind == kind {
			return s
		}
	}
	return spend.State{}
}

// attemptsOf returns the attempts budget attached to ctx.
func attemptsOf(ctx workflow.Context) spend.State { return budgetOf(ctx, spend.KindAttempts) }

// startedAttempts sums the attempts of the runs' activities
// (testsuite.StartedAttempts: each call's last attempt) and counts the calls.
func startedAttempts(runs ...run) (attempts, calls int) {
	for _, r := range runs {
		for _, attempt := range testsuite.StartedAttempts(r.events) {
			attempts += int(attempt)
			calls++
		}
	}
	return attempts, calls
}

// retries sums the retries of the runs' activities: the attempts after the
// first of each call.
func retries(runs ...run) int {
	n := 0
	for _, r := range runs {
		for _, attempt := range testsuite.StartedAttempts(r.events) {
			if attempt > 1 {
				n += int(attempt) - 1
			}
		}
	}
	return n
}

// failuresOfType counts the runs' activity calls whose failure (or a cause of
// it) is an ApplicationError of type typ.
func failuresOfType(typ string, runs ...run) int {
	n := 0
	for _, r := range runs {
		for _, e := range r.events {
			if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
				for f := a.GetFailure(); f != nil; f = f.GetCause() {
					if f.GetApplicationFailureInfo().GetType() == typ {
						n++
						break
					}
				}
			}
		}
	}
	return n
}

// acceptedUpdates counts the runs' accepted Updates.
func acceptedUpdates(r run) int {
	n := 0
	for _, e := range r.events {
		if e.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil {
			n++
		}
	}
	return n
}

// replays records every run into a temporary directory and replays them all
// with the kit's plugin: the workflows' decisions, the budgets' included,
// are the same on replay.
func replays(ctx context.Context, t *testing.T, c client.Client, plugin worker.Plugin, runs ...run) {
	t.Helper()
	dir := t.TempDir()
	for i, r := range runs {
		require.NoError(t, testsuite.RecordHistory(ctx, c, r.workflowID, r.runID, filepath.Join(dir, fmt.Sprintf("%03d.json", i))))
	}
	opts := testsuite.ReplayOptions{Plugins: []worker.Plugin{plugin}}
	for _, wf := range workflows {
		opts.Workflows = append(opts.Workflows, testsuite.ReplayWorkflow{Func: wf})
	}
	require.NoError(t, testsuite.ReplayDir(dir, opts), "every run's history replays")
}

// typeOf is the kit type of a call's error: its ApplicationError's type, or
// a *temporaladk.BudgetExceededError's (a first attempt refused in workflow
// code), or "" for none.
func typeOf(err error) string {
	if err == nil {
		return ""
	}
	var refused *temporaladk.BudgetExceededError
	if errors.As(err, &refused) {
		return temporaladk.TypeBudgetExceeded
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type()
	}
	return "untyped: " + err.Error()
}

// timeout bounds each test's waits.
func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
