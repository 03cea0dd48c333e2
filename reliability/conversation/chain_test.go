package conversation_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// chainCallAttempts is the attempts of one RETRIEVAL call: each call of
// AgentChain spends this many of its budget (chainCallAttempts-1 charge
// Updates) unless the budget refuses it first.
const chainCallAttempts = 150

// ChainRequest configures AgentChain.
type ChainRequest struct {
	// Ceiling is the ceiling of the attempts budget "turns".
	Ceiling int
	// Continue continues the run as new when conversation.ShouldContinueAsNew
	// says so; without it the run goes on until the server refuses its
	// Updates.
	Continue bool
	// UpdateLimit is the server's Updates per run, for
	// conversation.WithUpdateLimit; 0 for the default.
	UpdateLimit int
}

// ChainState is what a run of AgentChain hands the next, besides the
// budget the kit carries.
type ChainState struct {
	// Runs is how many runs came before.
	Runs int
	// Outcomes counts the calls by the type of their error.
	Outcomes map[string]int
}

// ChainResult is how the chain ended.
type ChainResult struct {
	Runs            int
	Spent, Limit    int
	Outcomes        map[string]int
	UpdatesLastRun  int
	UpdatesFirstRun int
}

// AgentChain is a sequential agent: one RETRIEVAL call after the other, each
// failing retryably on every attempt, under the attempts budget "turns", until the
// budget refuses a call. With Continue it continues as new when
// conversation.ShouldContinueAsNew says so.
func AgentChain(ctx workflow.Context, req ChainRequest, state ChainState) (ChainResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: req.Ceiling})
	if err != nil {
		return ChainResult{}, err
	}
	if req.UpdateLimit > 0 {
		if ctx, err = conversation.WithUpdateLimit(ctx, req.UpdateLimit); err != nil {
			return ChainResult{}, err
		}
	}
	if state.Outcomes == nil {
		state.Outcomes = map[string]int{}
	}
	ctx = temporaladk.WithClass(ctx, temporaladk.Retrieval)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for {
		if req.Continue && conversation.ShouldContinueAsNew(ctx) {
			state.Runs++
			return ChainResult{}, conversation.ContinueAsNew(ctx, AgentChain, req, state)
		}
		err := workflow.ExecuteActivity(ctx, Flaky).Get(ctx, nil)
		typ := typeOf(err)
		state.Outcomes[typ]++
		switch typ {
		case temporaladk.TypeBudgetExceeded:
			turns := attemptsOf(ctx)
			return ChainResult{Runs: state.Runs + 1, Spent: int(turns.Spent), Limit: int(turns.Limit), Outcomes: state.Outcomes, UpdatesLastRun: conversation.Updates(ctx)}, nil
		case temporaladk.TypeProvider:
			// The call ran out of attempts; the agent makes the next.
		default:
			return ChainResult{}, err
		}
	}
}

// TestChainSpendsOneCeilingAcrossContinueAsNew runs AgentChain under a
// ceiling of 2,600 attempts, more budgeted retries than one run can charge
// (the server accepts 2,000 Updates per run), continuing as new when
// conversation.ShouldContinueAsNew says so. The attempts the server recorded
// across every run of the chain are the ceiling exactly: the budget carried
// its spending into the next run and was never widened; no call failed for
// want of a charge's answer; every run's history replays.
func TestChainSpendsOneCeilingAcrossContinueAsNew(t *testing.T) {
	began := time.Now()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, 4*time.Minute)

	const ceiling = 2600
	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, AgentChain, ChainRequest{Ceiling: ceiling, Continue: true}, ChainState{})
	require.NoError(t, err)
	firstRun := wr.GetRunID() // Get follows the chain to its last run
	var result ChainResult
	require.NoError(t, wr.Get(ctx, &result))

	runs := chain(ctx, t, c, id, firstRun)
	total, calls := startedAttempts(runs...)
	unavailable := failuresOfType(temporaladk.TypeBudgetUnavailable, runs...)
	perRun := make([]int, len(runs))
	updates := make([]int, len(runs))
	for i, r := range runs {
		perRun[i], _ = startedAttempts(r)
		updates[i] = acceptedUpdates(r)
	}
	t.Logf("figure: ceiling=%d runs=%d attempts recorded=%d (per run %v) calls=%d accepted Updates per run %v attempts run in-process=%d BudgetUnavailable=%d budget spent=%d limit=%d outcomes=%v wall=%v",
		ceiling, len(runs), total, perRun, calls, updates, ran.of(id), unavailable, result.Spent, result.Limit, result.Outcomes, time.Since(began).Round(time.Millisecond))

	assert.GreaterOrEqual(t, len(runs), 2, "the chain continued as new")
	assert.Equal(t, len(runs), result.Runs, "the workflow counted the runs the server recorded")
	assert.Equal(t, ceiling, total, "the attempts across the chain are the ceiling exactly")
	assert.Equal(t, total, ran.of(id), "the attempts recorded are the attempts run")
	assert.Equal(t, ceiling, result.Spent, "the budget in the last run spent the ceiling")
	assert.Equal(t, ceiling, result.Limit, "the ceiling was carried, not widened")
	assert.GreaterOrEqual(t, total-calls, 2500, "at least 2,500 budgeted retries")
	assert.Zero(t, unavailable, "no call failed for want of a charge's answer")
	assert.Equal(t, 1, result.Outcomes[temporaladk.TypeBudgetExceeded], "the chain ends at the budget's refusal")
	for i, n := range updates {
		assert.Less(t, n, conversation.DefaultUpdateLimit, "run %d stayed under the server's Update limit", i)
	}
	replays(ctx, t, c, plugin, runs...)
}

// TestChainWithoutContinuingFailsAtOnceOutOfUpdates runs AgentChain without
// continuing as new on a dev server of its own that accepts 300 Updates per
// run (--dynamic-config-value history.maxTotalUpdates=300): the run's
// budgeted retries need more. The server refuses the 301st charge Update and
// the call, then the run, fail at once with
// temporaladk.TypeRunOutOfUpdates, within seconds of the last accepted
// charge as the server stamped them; no call failed for want of a charge's
// answer.
func TestChainWithoutContinuingFailsAtOnceOutOfUpdates(t *testing.T) {
	began := time.Now()
	const limit = 300
	srv := testsuite.DevServerFor(t, serverOptions([]string{"--dynamic-config-value", fmt.Sprintf("history.maxTotalUpdates=%d", limit)}))
	t.Logf("figure: a dev server of its own started in %v", time.Since(began).Round(time.Millisecond))
	outOfUpdates(t, srv, limit)
}

// outOfUpdates runs AgentChain without continuing on srv, which accepts
// limit Updates per run, and checks how the run fails.
func outOfUpdates(t *testing.T, srv *testsuite.DevServer, limit int) {
	began := time.Now()
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, 4*time.Minute)

	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, AgentChain, ChainRequest{Ceiling: 10 * limit}, ChainState{})
	require.NoError(t, err)
	firstRun := wr.GetRunID()
	err = wr.Get(ctx, nil)
	require.Error(t, err, "the run fails")
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "the failure is an ApplicationError: %v", err)

	r := readHistory(ctx, t, c, id, firstRun)
	last := r.events[len(r.events)-1]
	failed := last.GetWorkflowExecutionFailedEventAttributes()
	require.NotNil(t, failed, "the run's last event is its failure: %v", last.GetEventType())
	var types []string
	for f := failed.GetFailure(); f != nil; f = f.GetCause() {
		if typ := f.GetApplicationFailureInfo().GetType(); typ != "" {
			types = append(types, typ)
		}
	}
	var lastAccepted time.Time
	for _, e := range r.events {
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == wire.ChargeUpdateName {
			lastAccepted = e.GetEventTime().AsTime()
		}
	}
	require.False(t, lastAccepted.IsZero(), "the run accepted charge Updates")
	gap := last.GetEventTime().AsTime().Sub(lastAccepted)
	total, calls := startedAttempts(r)
	unavailable := failuresOfType(temporaladk.TypeBudgetUnavailable, r)
	t.Logf("figure: maxTotalUpdates=%d accepted Updates=%d attempts recorded=%d calls=%d failure types=%v last accepted charge → run failed=%v BudgetUnavailable=%d wall=%v",
		limit, acceptedUpdates(r), total, calls, types, gap.Round(time.Millisecond), unavailable, time.Since(began).Round(time.Millisecond))

	assert.Contains(t, types, temporaladk.TypeRunOutOfUpdates, "the run fails out of Updates")
	assert.Equal(t, temporaladk.TypeRunOutOfUpdates, app.Type(), "the client sees the type")
	assert.Equal(t, limit, acceptedUpdates(r), "the server accepted its limit of Updates, no more")
	assert.Less(t, gap, 20*time.Second, "the run fails within seconds of its last charge")
	assert.Zero(t, unavailable, "no call failed for want of a charge's answer")
	replays(ctx, t, c, plugin, r)
}
