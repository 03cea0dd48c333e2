package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The guarantees of the fail-closed matrix, each a FailClosedWorkflow
// scenario.
const (
	gApprovalDeclared = "approval by declaration"
	gApprovalCall     = "approval by approvals.WithApproval"
	gRunBudget        = "RunBudget"
	gTokenBudget      = "token budget"
	gEffectful        = "an effectful undeclared tool's one attempt"
	gNeverRetryable   = "a never-retryable error"
)

var guarantees = []string{gApprovalDeclared, gApprovalCall, gRunBudget, gTokenBudget, gEffectful, gNeverRetryable}

// The matrix's numbers: every call's caller allows callerAttempts; the run
// budget is runBudgetMax attempts; the token budget tokenCeiling tokens,
// each MODEL call capped at tokenCap and reporting tokenCap used, made
// tokenCalls times.
const (
	callerAttempts = 6
	runBudgetMax   = 3
	tokenCeiling   = 300
	tokenCap       = 100
	tokenCalls     = 5
)

// The activity types of the matrix, one per guarantee, so that the
// server's history tells them apart.
const (
	actGated     = "GatedTool"
	actUngated   = "UngatedTool"
	actBudgeted  = "BudgetedCall"
	actMetered   = "MeteredCall"
	actEffectful = "EffectfulTool"
	actGuarded   = "GuardedCall"
)

// FailClosedRequest names the guarantee FailClosedWorkflow exercises.
type FailClosedRequest struct{ Guarantee string }

// FailClosedResult is how each call of the run ended.
type FailClosedResult struct{ Outcomes []Outcome }

// FailClosedWorkflow makes the calls of one guarantee, each under a caller
// retry policy of callerAttempts attempts, and returns how they ended. Its
// calls of a declared activity (GatedTool) and its untagged call
// (GuardedCall) use no kit function in workflow code; the others use the
// kit's workflow-side calls, as a user's code does.
func FailClosedWorkflow(ctx workflow.Context, req FailClosedRequest) (FailClosedResult, error) {
	retry := &temporal.RetryPolicy{InitialInterval: 50 * time.Millisecond, BackoffCoefficient: 1, MaximumInterval: 50 * time.Millisecond, MaximumAttempts: callerAttempts}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second, RetryPolicy: retry})
	var out FailClosedResult
	call := func(ctx workflow.Context, activityType string) {
		err := workflow.ExecuteActivity(ctx, activityType).Get(ctx, nil)
		o := outcomeOf(temporaladk.FromApplicationError(err))
		var app *temporal.ApplicationError
		if o.Type == "untyped" && errors.As(err, &app) {
			o.Type = app.Type()
		}
		out.Outcomes = append(out.Outcomes, o)
	}
	switch req.Guarantee {
	case gApprovalDeclared:
		call(ctx, actGated)
	case gApprovalCall:
		gated, err := approvals.WithApproval(ctx, approvals.Options{Timeout: 2 * time.Second, Approvers: approvals.Approvers{Open: true, Required: 1}})
		if err != nil {
			return out, err
		}
		call(gated, actUngated)
	case gRunBudget:
		budgeted, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "failclosed", Attempts: runBudgetMax})
		if err != nil {
			return out, err
		}
		call(budgeted, actBudgeted)
	case gTokenBudget:
		metered, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model), temporaladk.Budgets{Name: "failclosed", Tokens: tokenCeiling, MaxTokens: tokenCap})
		if err != nil {
			return out, err
		}
		for range tokenCalls {
			call(metered, actMetered)
		}
	case gEffectful:
		call(temporaladk.WithClass(ctx, temporaladk.Tool), actEffectful)
	case gNeverRetryable:
		call(ctx, actGuarded)
	default:
		return out, fmt.Errorf("unknown guarantee %q", req.Guarantee)
	}
	return out, nil
}

// GatedTool, UngatedTool and MeteredCall succeed (MeteredCall reports
// tokenCap tokens used); BudgetedCall and EffectfulTool fail every attempt
// with a retryable 503; GuardedCall with a never-retryable guardrail block.
func (a *Agent) GatedTool(ctx context.Context) error { return a.ran(ctx) }

// UngatedTool is GatedTool without a declaration.
func (a *Agent) UngatedTool(ctx context.Context) error { return a.ran(ctx) }

// BudgetedCall fails every attempt retryably.
func (a *Agent) BudgetedCall(ctx context.Context) error {
	if err := a.ran(ctx); err != nil {
		return err
	}
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "unavailable"}
}

// MeteredCall reports tokenCap tokens and succeeds.
func (a *Agent) MeteredCall(ctx context.Context) error {
	if err := a.ran(ctx); err != nil {
		return err
	}
	_, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: tokenCap / 2, OutputTokens: tokenCap / 2})
	return err
}

// EffectfulTool fails every attempt retryably.
func (a *Agent) EffectfulTool(ctx context.Context) error {
	if err := a.ran(ctx); err != nil {
		return err
	}
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "unavailable"}
}

// GuardedCall is blocked by a guardrail every attempt.
func (a *Agent) GuardedCall(ctx context.Context) error {
	if err := a.ran(ctx); err != nil {
		return err
	}
	return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "blocked"}
}

// ran appends a line naming the activity, its workflow and attempt to the
// process's ledger file and syncs it, before the activity does anything
// else: the ledger is what the "provider" saw, however many workers ran
// the attempts.
func (a *Agent) ran(ctx context.Context) error {
	info := activity.GetInfo(ctx)
	f, err := os.OpenFile(a.ledger, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %s %d\n", info.ActivityType.Name, info.WorkflowExecution.ID, info.Attempt); err != nil {
		return err
	}
	return f.Sync()
}

// ledgerRuns reads a ledger file that ran wrote: how many times each
// activity ran, by workflow ID and activity type.
func ledgerRuns(t *testing.T, path string) map[string]map[string]int {
	t.Helper()
	out := map[string]map[string]int{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		require.Len(t, fields, 3, "ledger line %q", line)
		if out[fields[1]] == nil {
			out[fields[1]] = map[string]int{}
		}
		out[fields[1]][fields[0]]++
	}
	return out
}

// fleet is a misconfiguration of the matrix: the worker processes that
// serve its task queue, and how many workflows each guarantee runs on it.
type fleet struct {
	name  string
	roles []processRole
	// stickyOff turns the processes' sticky caches off.
	stickyOff bool
	runs      int
	// kitWorkflows says whether a worker with the kit runs workflow tasks;
	// plainWorkflows whether one without does.
	kitWorkflows, plainWorkflows bool
	// report gives the kit's processes interceptors.Options.Fleet: each
	// must report every plain process of the queue, and every gated call a
	// plain process scheduled in a run a kit process continued.
	report bool
}

// cell is what the matrix saw of one guarantee on one fleet.
type cell struct {
	Holds, FailedClosed, NoKitCode, Unenforced int
	// Ungated counts the runs a kit worker continued after a plain one
	// scheduled their gated call, and UngatedReported those the kit
	// worker reported (fleet.report).
	Ungated, UngatedReported int
	// NamedPlain counts the refusals (4) that name a plain process, and
	// NamedAs is the end of one that does, as the server recorded it.
	NamedPlain int
	NamedAs    string
	// Messages are the fail-closed messages, as the server recorded them.
	Messages map[string]bool
}

// TestFailClosedMatrix runs every guarantee on every misconfigured fleet,
// on a dev server, and reads from the server's history what each run did:
// the attempts the server recorded, the failures' types, the workflow task
// failures. Each cell holds, or fails closed with a message that names the
// mistake; a cell with a run in which the guarantee was silently not
// enforced fails the test. The one exception, counted apart: a call in
// which no code of the kit ran at all (scheduled by a workflow task of a
// worker without the kit and run on one without it, the workflow code
// calling no kit function).
//
// A workflow task that fails is retried by the server with a growing
// backoff (its history.workflowTaskRetryMaxInterval, 10 minutes by
// default, caps it): the test's server caps it at 1s, so that a mixed
// fleet's runs reach the kit worker within the test's time. The server
// retries a failed task the same way with either cap.
func TestFailClosedMatrix(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t, testsuite.DevServerOptions{
		ClientOptions: client.Options{Logger: quietLogger()},
		ExtraArgs:     []string{"--dynamic-config-value", `history.workflowTaskRetryMaxInterval="1s"`},
	})
	fleets := []fleet{
		{name: "the kit on every worker", roles: []processRole{roleKit}, runs: 1, kitWorkflows: true},
		{name: "workflow worker without the kit", roles: []processRole{rolePlainWorkflows, roleKitActivities}, runs: 1, plainWorkflows: true},
		{name: "activity worker without the kit", roles: []processRole{roleKitWorkflows, rolePlainActivities}, runs: 1, kitWorkflows: true},
		{name: "no kit at all", roles: []processRole{rolePlain}, runs: 1, plainWorkflows: true},
		{name: "the kit's plugin twice", roles: []processRole{roleKitTwicePlugin}, runs: 1, kitWorkflows: true},
		{name: "the plugin on the client and the worker", roles: []processRole{roleKitTwiceMixed}, runs: 1, kitWorkflows: true},
		{name: "one queue, a kit and a plain worker, sticky off", roles: []processRole{roleKit, rolePlain}, stickyOff: true, runs: 8, kitWorkflows: true, plainWorkflows: true, report: true},
	}
	table := map[string]map[string]*cell{}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			queue := taskQueue(t)
			ledger := filepath.Join(t.TempDir(), "ledger")
			env := []string{ledgerEnv + "=" + ledger}
			if f.stickyOff {
				env = append(env, stickyOffEnv+"=1")
			}
			if f.report {
				env = append(env, fleetEnv+"=1")
			}
			procs := map[string]processRole{}
			var kitProcs []*workerProcess
			var plainIDs []string
			for _, role := range f.roles {
				p := startRoleProcess(t, srv, queue, role, env...)
				procs[p.identity] = role
				if _, withKit, _ := role.kit(); withKit {
					kitProcs = append(kitProcs, p)
				} else {
					plainIDs = append(plainIDs, p.identity)
				}
			}
			table[f.name] = map[string]*cell{}
			// A kit process that reports reads the plain processes on its
			// queue before the runs start, so that each of its refusals
			// can name them.
			var reports []string
			if f.report {
				for _, p := range kitProcs {
					for _, plain := range plainIDs {
						reports = append(reports, p.nextReport(time.Minute, fmt.Sprintf("task queue %q", queue), fmt.Sprintf("%q", plain)))
					}
				}
			}
			// Every guarantee's runs start at once and are judged after:
			// the fleet serves them together, as it would an agent's.
			runs := map[string][]client.WorkflowRun{}
			for _, g := range guarantees {
				runs[g] = startMatrixCell(t, srv.Client(), queue, f, g)
			}
			done := map[string][]finishedRun{}
			for _, g := range guarantees {
				done[g] = awaitMatrixCell(t, srv.Client(), f, g, runs[g])
			}
			// Every run has ended: the ledger holds every attempt that ran,
			// and the kit's processes have printed every report of them.
			ran := ledgerRuns(t, ledger)
			if f.report {
				for _, p := range kitProcs {
					p.sync()
					reports = append(reports, p.reportsSoFar()...)
				}
				figure(t, "fleet reports by the kit's processes: %d, first %q", len(reports), reports[0])
			}
			for _, g := range guarantees {
				c := &cell{Messages: map[string]bool{}}
				table[f.name][g] = c
				for _, r := range done[g] {
					judgeRun(t, g, procs, r, ran[r.id], c)
					if f.report && g == gApprovalDeclared {
						judgeUngated(t, procs, r, reports, plainIDs, c)
					}
				}
				if f.report && g == gApprovalDeclared {
					assert.Equal(t, c.FailedClosed, c.NamedPlain, "every refusal of a call a plain process scheduled names the plain process")
				}
			}
		})
	}

	// Two kits, built from the same options, on one worker: worker.Start
	// returns the refusal, and nothing polls.
	one, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	other, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	twoKits := taskQueue(t) + "-two-kits"
	w := worker.New(srv.Client(), twoKits, worker.Options{Plugins: []worker.Plugin{one, other}})
	registerWorkflows(w)
	startErr := w.Start()
	require.ErrorIs(t, startErr, interceptors.ErrRegisteredTwice, "two kits on one worker are refused as it starts")
	refused := startErr.Error()
	w.Stop()
	for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
		resp, err := srv.Client().DescribeTaskQueue(context.Background(), twoKits, typ)
		require.NoError(t, err)
		assert.Empty(t, resp.GetPollers(), "nothing polls %v", typ)
	}

	var unenforced int
	for _, f := range fleets {
		for _, g := range guarantees {
			c := table[f.name][g]
			if c == nil {
				continue // the fleet's subtest failed before this cell
			}
			unenforced += c.Unenforced
			figure(t, "cell %q × %q: holds=%d failed-closed=%d no-kit-code=%d unenforced=%d ungated=%d reported=%d refusals-naming-plain=%d messages=%q",
				g, f.name, c.Holds, c.FailedClosed, c.NoKitCode, c.Unenforced, c.Ungated, c.UngatedReported, c.NamedPlain, slices.Sorted(maps.Keys(c.Messages)))
			if c.NamedAs != "" {
				figure(t, "cell %q × %q: a refusal names the plain worker: %q", g, f.name, c.NamedAs)
			}
		}
	}
	figure(t, "two kits from equal options on one worker: worker.Start returned %q; pollers 0", refused)
	assert.Zero(t, unenforced, "no cell where a guarantee was silently not enforced")
}

// startMatrixCell starts f.runs workflows of guarantee g on queue.
func startMatrixCell(t *testing.T, c client.Client, queue string, f fleet, g string) []client.WorkflowRun {
	t.Helper()
	var runs []client.WorkflowRun
	for i := range f.runs {
		id := fmt.Sprintf("%s-%s-%d", queue, strings.ReplaceAll(g, " ", "-"), i)
		run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: queue}, FailClosedWorkflow, FailClosedRequest{Guarantee: g})
		require.NoError(t, err)
		runs = append(runs, run)
	}
	return runs
}

// finishedRun is one run of the matrix as it ended: its result and
// history, or the workflow task failure that kept it from running.
type finishedRun struct {
	id         string
	res        FailClosedResult
	events     []*historypb.HistoryEvent
	taskFailed string
}

// awaitMatrixCell waits for the runs of guarantee g to end. A run that no
// worker with the kit can run (its code calls the kit) is ended once its
// first workflow task failure is recorded.
func awaitMatrixCell(t *testing.T, c client.Client, f fleet, g string, runs []client.WorkflowRun) []finishedRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out []finishedRun
	for _, run := range runs {
		r := finishedRun{id: run.GetID()}
		if !f.kitWorkflows && usesKitCalls(g) {
			r.taskFailed = awaitWorkflowTaskFailure(t, c, run)
			require.NoError(t, c.TerminateWorkflow(ctx, run.GetID(), run.GetRunID(), "fail-closed matrix: no worker with the kit"))
		} else {
			require.NoError(t, run.Get(ctx, &r.res), "%s: %s", g, run.GetID())
			r.events = history(t, c, run)
		}
		out = append(out, r)
	}
	return out
}

// plainWorkflows reports whether a process without the kit takes the
// queue's workflow tasks.
func plainWorkflows(procs map[string]processRole) bool {
	for _, role := range procs {
		if role == rolePlain || role == rolePlainWorkflows {
			return true
		}
	}
	return false
}

// usesKitCalls reports whether g's workflow code calls a kit function.
func usesKitCalls(g string) bool { return g != gApprovalDeclared && g != gNeverRetryable }

// judgeRun sorts one run of guarantee g into out: from the ledger, how many
// times each activity of the run ran (ran, by activity type), and from the
// server's history, which workers scheduled and ran its calls and how they
// ended.
func judgeRun(t *testing.T, g string, procs map[string]processRole, r finishedRun, ran map[string]int, out *cell) {
	t.Helper()
	if r.taskFailed != "" {
		// The workflow code calls the kit and no worker with it runs
		// workflow tasks: nothing ran, and the recorded failure names the
		// kit and the fix.
		assert.Contains(t, r.taskFailed, "without the kit's interceptor", "%s: the task failure names the missing kit", g)
		assert.Contains(t, r.taskFailed, "interceptors.NewPlugin", "%s: and the fix", g)
		assert.Empty(t, ran, "%s: nothing ran", g)
		out.FailedClosed++
		out.Messages[firstSentence(r.taskFailed)] = true
		return
	}
	calls := activityCalls("", r.events)
	plain := func(identity string) bool {
		role, ok := procs[identity]
		return ok && (role == rolePlain || role == rolePlainWorkflows || role == rolePlainActivities)
	}
	// noKitCode: the call was scheduled by a workflow task without the kit
	// (its retry policy and header hold nothing of the kit's) and its last
	// attempt ran without the kit.
	noKitCode := func(c activityCall) bool { return plain(c.ScheduledBy) && plain(c.StartedBy) }
	unenforced := func(format string, args ...any) {
		out.Unenforced++
		t.Errorf("%s: "+format, append([]any{g}, args...)...)
	}
	outcomes := r.res.Outcomes
	switch g {
	case gApprovalDeclared, gApprovalCall:
		// The tool never runs without an approval; none is given, so the
		// call ends denied (timed out) in workflow code, or refused where
		// it arrives without a grant.
		require.Len(t, outcomes, 1)
		o, n := outcomes[0], ran[actGated]+ran[actUngated]
		switch {
		case n == 0 && len(calls) == 0 && o.Type == temporaladk.TypeApprovalDenied:
			out.Holds++
		case n == 0 && len(calls) == 1 && calls[0].Failed && calls[0].NonRetryable:
			out.FailedClosed++
			out.Messages[firstSentence(o.Message)] = true
			for identity := range procs {
				if plain(identity) && strings.Contains(o.Message, fmt.Sprintf("%q", identity)) {
					out.NamedPlain++
					if k := strings.Index(o.Message, "[the kit's worker saw"); k >= 0 {
						out.NamedAs = o.Message[k:]
					}
					break
				}
			}
		case len(calls) == 1 && noKitCode(calls[0]):
			out.NoKitCode++
		default:
			unenforced("the gated tool ran %d times unapproved: calls %+v outcome %+v", n, calls, o)
		}
	case gRunBudget:
		require.Len(t, outcomes, 1)
		if n := ran[actBudgeted]; n > runBudgetMax {
			unenforced("%d attempts ran under a budget of %d", n, runBudgetMax)
			return
		}
		out.Holds++
		if outcomes[0].Type == temporaladk.TypeBudgetExceeded {
			out.Messages[firstSentence(outcomes[0].Message)] = true
		}
	case gTokenBudget:
		// Each attempt that ran spent tokenCap: the ceiling holds while
		// the attempts that ran, every one counted, stay within it.
		refused, failedClosed := 0, 0
		for _, o := range outcomes {
			switch o.Type {
			case temporaladk.TypeBudgetExceeded:
				refused++
			case temporaladk.TypeMisconfigured:
				failedClosed++
				out.Messages[firstSentence(o.Message)] = true
			}
		}
		// The attempts whose reservation the run granted, as its charge
		// Updates recorded them: each reserved tokenCap, spent whether or
		// not the attempt ran (an attempt that did not learn of its grant
		// in time fails before the user's code, and the ledger counts its
		// whole reservation spent when the call's next attempt is charged).
		granted := map[string]bool{}
		for _, ch := range charges(t, r.events) {
			if ch.Granted {
				granted[fmt.Sprintf("%s/%d", ch.Call, ch.Attempt)] = true
			}
		}
		n, grants := ran[actMetered], len(granted)
		switch {
		case n*tokenCap > tokenCeiling:
			unenforced("%d attempts ran, %d tokens, past the ceiling of %d: calls %+v outcomes %+v", n, n*tokenCap, tokenCeiling, calls, outcomes)
		case grants*tokenCap > tokenCeiling:
			unenforced("the run granted %d reservations of %d tokens, past the ceiling of %d", grants, tokenCap, tokenCeiling)
		case failedClosed > 0:
			// An attempt ran on a worker without the kit, unmetered, and
			// the run's next call was refused, naming it.
			out.FailedClosed++
		case n > grants:
			unenforced("%d attempts ran and the run granted %d reservations: an attempt ran without one, and no call was refused for it", n, grants)
		case plainWorkflows(procs):
			// A process without the kit takes workflow tasks too, and fails
			// each that runs the kit's workflow code: the charge Updates
			// wait for a kit process, and an attempt can fail waiting for
			// its answer, its grant spent unused. The grants still fill
			// the ceiling, and the calls that did not run were refused.
			assert.Equal(t, tokenCeiling/tokenCap, grants, "%s: the reservations that fit were granted", g)
			assert.Equal(t, tokenCalls-n, refused, "%s: the calls that did not run were refused", g)
			out.Holds++
		default:
			assert.Equal(t, tokenCeiling/tokenCap, n, "%s: the calls that fit ran", g)
			assert.Equal(t, n, grants, "%s: no attempt was granted a reservation and did not run", g)
			assert.Equal(t, tokenCalls-tokenCeiling/tokenCap, refused, "%s: the rest were refused", g)
			out.Holds++
		}
	case gEffectful, gNeverRetryable:
		require.Len(t, calls, 1)
		act := actEffectful
		if g == gNeverRetryable {
			act = actGuarded
		}
		switch n := ran[act]; {
		case n == 1:
			out.Holds++
		case noKitCode(calls[0]):
			out.NoKitCode++
		case g == gNeverRetryable && plain(calls[0].ScheduledBy) && calls[0].NonRetryable:
			// Scheduled without the kit (its retry policy has no kit
			// types) and retried after an attempt on the plain worker:
			// that retry was decided where no kit code ran, and the first
			// attempt the kit ran ended the call.
			out.NoKitCode++
		default:
			unenforced("%d attempts ran: calls %+v", n, calls)
		}
	}
}

// judgeUngated checks that a kit process reported run r's gated call when
// a plain process scheduled it and a kit process then completed a
// workflow task of the run: replaying the run, the kit met the call
// without its approval gate.
func judgeUngated(t *testing.T, procs map[string]processRole, r finishedRun, reports, plainIDs []string, out *cell) {
	t.Helper()
	taskBy := map[int64]string{}
	scheduledAt := int64(0)
	for _, e := range r.events {
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			taskBy[e.GetEventId()] = a.GetIdentity()
			if _, kit := procs[a.GetIdentity()]; kit && !slices.Contains(plainIDs, a.GetIdentity()) && scheduledAt > 0 && e.GetEventId() > scheduledAt {
				out.Ungated++
				if slices.ContainsFunc(reports, func(msg string) bool {
					return containsAll(msg, []string{r.id, "scheduled activity " + actGated, "without the kit's approval gate"})
				}) {
					out.UngatedReported++
				} else {
					t.Errorf("%s: a kit process continued the run after a plain one scheduled %s, and did not report it: reports %q", r.id, actGated, reports)
				}
				return
			}
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == actGated &&
			slices.Contains(plainIDs, taskBy[a.GetWorkflowTaskCompletedEventId()]) {
			scheduledAt = e.GetEventId()
		}
	}
}

// awaitWorkflowTaskFailure waits for run's first WorkflowTaskFailed event
// and returns its failure message.
func awaitWorkflowTaskFailure(t *testing.T, c client.Client, run client.WorkflowRun) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		iter := c.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for iter.HasNext() {
			e, err := iter.Next()
			require.NoError(t, err)
			if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
				return a.GetFailure().GetMessage()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	desc, err := c.DescribeWorkflowExecution(context.Background(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	t.Fatalf("%s: no workflow task failure recorded within a minute (status %v)", run.GetID(), desc.GetWorkflowExecutionInfo().GetStatus())
	return ""
}

// firstSentence is msg cut to 240 bytes, for the table.
func firstSentence(msg string) string {
	if len(msg) > 240 {
		msg = msg[:240] + "…"
	}
	return msg
}
