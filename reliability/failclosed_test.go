package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
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
		gated, err := approvals.WithApproval(ctx, approvals.Options{Timeout: 2 * time.Second})
		if err != nil {
			return out, err
		}
		call(gated, actUngated)
	case gRunBudget:
		b, err := temporaladk.NewRunBudget(runBudgetMax)
		if err != nil {
			return out, err
		}
		call(temporaladk.WithRunBudget(ctx, b), actBudgeted)
	case gTokenBudget:
		tokens, err := spend.NewTokenBudget(tokenCeiling)
		if err != nil {
			return out, err
		}
		metered := spend.WithMaxTokens(spend.WithTokenBudget(temporaladk.WithClass(ctx, temporaladk.Model), tokens), tokenCap)
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
func (a *Agent) GatedTool(ctx context.Context) error { a.event(ctx, "started", Event{}); return nil }

// UngatedTool is GatedTool without a declaration.
func (a *Agent) UngatedTool(ctx context.Context) error { a.event(ctx, "started", Event{}); return nil }

// BudgetedCall fails every attempt retryably.
func (a *Agent) BudgetedCall(ctx context.Context) error {
	a.event(ctx, "started", Event{})
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "unavailable"}
}

// MeteredCall reports tokenCap tokens and succeeds.
func (a *Agent) MeteredCall(ctx context.Context) error {
	a.event(ctx, "started", Event{})
	_, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: tokenCap / 2, OutputTokens: tokenCap / 2})
	return err
}

// EffectfulTool fails every attempt retryably.
func (a *Agent) EffectfulTool(ctx context.Context) error {
	a.event(ctx, "started", Event{})
	return &temporaladk.ProviderError{Provider: "stand-in", StatusCode: 503, Message: "unavailable"}
}

// GuardedCall is blocked by a guardrail every attempt.
func (a *Agent) GuardedCall(ctx context.Context) error {
	a.event(ctx, "started", Event{})
	return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "blocked"}
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
}

// cell is what the matrix saw of one guarantee on one fleet.
type cell struct {
	Holds, FailedClosed, NoKitCode, Unenforced int
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
func TestFailClosedMatrix(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	fleets := []fleet{
		{name: "the kit on every worker", roles: []processRole{roleKit}, runs: 1, kitWorkflows: true},
		{name: "workflow worker without the kit", roles: []processRole{rolePlainWorkflows, roleKitActivities}, runs: 1, plainWorkflows: true},
		{name: "activity worker without the kit", roles: []processRole{roleKitWorkflows, rolePlainActivities}, runs: 1, kitWorkflows: true},
		{name: "no kit at all", roles: []processRole{rolePlain}, runs: 1, plainWorkflows: true},
		{name: "the kit's plugin twice", roles: []processRole{roleKitTwicePlugin}, runs: 1, kitWorkflows: true},
		{name: "the plugin and Interceptors", roles: []processRole{roleKitTwiceMixed}, runs: 1, kitWorkflows: true},
		{name: "one queue, a kit and a plain worker, sticky off", roles: []processRole{roleKit, rolePlain}, stickyOff: true, runs: 8, kitWorkflows: true, plainWorkflows: true},
	}
	table := map[string]map[string]*cell{}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			queue := taskQueue(t)
			var env []string
			if f.stickyOff {
				env = append(env, stickyOffEnv+"=1")
			}
			procs := map[string]processRole{}
			for _, role := range f.roles {
				p := startRoleProcess(t, srv, queue, role, env...)
				procs[p.identity] = role
			}
			table[f.name] = map[string]*cell{}
			// Every guarantee's runs start at once and are judged after:
			// the fleet serves them together, as it would an agent's.
			runs := map[string][]client.WorkflowRun{}
			for _, g := range guarantees {
				runs[g] = startMatrixCell(t, srv.Client(), queue, f, g)
			}
			for _, g := range guarantees {
				c := &cell{Messages: map[string]bool{}}
				table[f.name][g] = c
				judgeMatrixCell(t, srv.Client(), f, g, runs[g], procs, c)
			}
		})
	}

	// The kit given as two different interceptors is refused as the worker
	// is built: no worker runs with two kits.
	one, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	other, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	refused := func() (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		worker.New(srv.Client(), taskQueue(t)+"-two-kits", worker.Options{Plugins: []worker.Plugin{one, other}})
		return ""
	}()
	assert.Contains(t, refused, interceptors.ErrRegisteredTwice.Error(), "two kits on one worker are refused as it is built")

	var unenforced int
	for _, f := range fleets {
		for _, g := range guarantees {
			c := table[f.name][g]
			unenforced += c.Unenforced
			figure(t, "cell %q × %q: holds=%d failed-closed=%d no-kit-code=%d unenforced=%d messages=%q",
				g, f.name, c.Holds, c.FailedClosed, c.NoKitCode, c.Unenforced, slices.Sorted(maps.Keys(c.Messages)))
		}
	}
	figure(t, "two different kits on one worker: refused at worker.New: %q", refused)
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

// judgeMatrixCell waits for the runs of guarantee g and sorts each into out
// by what the server recorded.
func judgeMatrixCell(t *testing.T, c client.Client, f fleet, g string, runs []client.WorkflowRun, procs map[string]processRole, out *cell) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, run := range runs {
		if !f.kitWorkflows && usesKitCalls(g) {
			// No worker with the kit runs workflow tasks: the task fails
			// until one does. Read the recorded failure, then end the run.
			msg := awaitWorkflowTaskFailure(t, c, run)
			require.NoError(t, c.TerminateWorkflow(ctx, run.GetID(), run.GetRunID(), "fail-closed matrix: no worker with the kit"))
			assert.Contains(t, msg, "without the kit's interceptor", "%s: the task failure names the missing kit", g)
			assert.Contains(t, msg, "interceptors.NewPlugin", "%s: and the fix", g)
			out.FailedClosed++
			out.Messages[firstSentence(msg)] = true
			continue
		}
		var res FailClosedResult
		require.NoError(t, run.Get(ctx, &res), "%s: %s", g, run.GetID())
		events := history(t, c, run)
		judgeRun(t, g, procs, res, events, out)
	}
}

// usesKitCalls reports whether g's workflow code calls a kit function.
func usesKitCalls(g string) bool { return g != gApprovalDeclared && g != gNeverRetryable }

// judgeRun sorts one completed run of guarantee g into out, from its
// history: the attempts of each call as the server recorded them, the
// failure types, and which workers scheduled and ran the calls.
func judgeRun(t *testing.T, g string, procs map[string]processRole, res FailClosedResult, events []*historypb.HistoryEvent, out *cell) {
	t.Helper()
	calls := activityCalls("", events)
	plain := func(identity string) bool {
		role, ok := procs[identity]
		return ok && (role == rolePlain || role == rolePlainWorkflows || role == rolePlainActivities)
	}
	// noKitCode: the call was scheduled by a workflow task without the kit
	// and its last attempt ran without it (so did every attempt: a kit
	// worker would have ended a blocked call at its first attempt).
	noKitCode := func(c activityCall) bool { return plain(c.ScheduledBy) && plain(c.StartedBy) }
	switch g {
	case gApprovalDeclared, gApprovalCall:
		// The tool never runs without an approval; none is given, so the
		// call ends denied (timed out) in workflow code, or refused where
		// it arrives without a grant.
		require.Len(t, res.Outcomes, 1)
		o := res.Outcomes[0]
		switch {
		case len(calls) == 0 && o.Type == temporaladk.TypeApprovalDenied:
			out.Holds++
		case len(calls) == 1 && noKitCode(calls[0]):
			out.NoKitCode++
		case len(calls) == 1 && calls[0].Failed && calls[0].NonRetryable && calls[0].StartedBy != "" && !plain(calls[0].StartedBy):
			out.FailedClosed++
			out.Messages[firstSentence(o.Message)] = true
		default:
			out.Unenforced++
			t.Errorf("%s: the gated tool ran unapproved or ended unexpectedly: calls %+v outcome %+v", g, calls, o)
		}
	case gRunBudget:
		require.Len(t, res.Outcomes, 1)
		require.Len(t, calls, 1)
		if calls[0].Attempt <= runBudgetMax {
			out.Holds++
			if res.Outcomes[0].Type == temporaladk.TypeBudgetExceeded {
				out.Messages[firstSentence(res.Outcomes[0].Message)] = true
			}
		} else {
			out.Unenforced++
			t.Errorf("%s: %d attempts under a budget of %d", g, calls[0].Attempt, runBudgetMax)
		}
	case gTokenBudget:
		// Each call that ran spent tokenCap: the ceiling holds while the
		// attempts that ran, all of them counted, stay within it.
		ran, refused, failedClosed := 0, 0, 0
		for _, c := range calls {
			if c.StartedBy != "" && !c.Failed {
				ran += int(c.Attempt)
			}
		}
		for _, o := range res.Outcomes {
			switch o.Type {
			case temporaladk.TypeBudgetExceeded:
				refused++
			case interceptors.TypeMisconfigured:
				failedClosed++
				out.Messages[firstSentence(o.Message)] = true
			}
		}
		switch {
		case ran*tokenCap > tokenCeiling:
			out.Unenforced++
			t.Errorf("%s: %d attempts ran, %d tokens, past the ceiling of %d", g, ran, ran*tokenCap, tokenCeiling)
		case failedClosed > 0:
			out.FailedClosed++
		default:
			assert.Equal(t, tokenCeiling/tokenCap, ran, "%s: the calls that fit ran", g)
			assert.Equal(t, tokenCalls-tokenCeiling/tokenCap, refused, "%s: the rest were refused", g)
			out.Holds++
		}
	case gEffectful:
		require.Len(t, calls, 1)
		switch {
		case calls[0].Attempt == 1:
			out.Holds++
		case noKitCode(calls[0]):
			out.NoKitCode++
		default:
			out.Unenforced++
			t.Errorf("%s: %d attempts of an effectful tool", g, calls[0].Attempt)
		}
	case gNeverRetryable:
		require.Len(t, calls, 1)
		switch {
		case calls[0].Attempt == 1 && calls[0].FailureType == temporaladk.TypeGuardrailViolation:
			out.Holds++
		case noKitCode(calls[0]):
			out.NoKitCode++
		case plain(calls[0].ScheduledBy) && calls[0].NonRetryable && !plain(calls[0].StartedBy):
			// Scheduled without the kit (its retry policy has no kit
			// types) and retried after an attempt on the plain worker:
			// that retry was decided where no kit code ran, and the first
			// attempt the kit ran ended the call.
			out.NoKitCode++
		default:
			out.Unenforced++
			t.Errorf("%s: %d attempts of a guardrail block", g, calls[0].Attempt)
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
