package agent_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/testsuite"
)

// unitEnv is the SDK's test environment with the kit registered as the
// sample's worker has it, and the sample's activities against a stand-in.
func unitEnv(t *testing.T) (*testsuite.KitTestEnvironment, *agent.Activities) {
	t.Helper()
	env, acts, _ := unitEnvWithModel(t)
	return env, acts
}

// unitEnvWithModel is unitEnv with the stand-in it serves the MODEL calls
// from, to count the requests it received.
func unitEnvWithModel(t *testing.T) (*testsuite.KitTestEnvironment, *agent.Activities, *standin.Server) {
	t.Helper()
	opts, err := agent.KitOptions()
	require.NoError(t, err)
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, opts)
	require.NoError(t, err)
	model, err := standin.Start(standin.Options{TokenDelay: time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { model.Close() })
	dir := t.TempDir()
	memory, err := agent.NewMemoryStore(filepath.Join(dir, "memory"))
	require.NoError(t, err)
	acts := &agent.Activities{
		Model:  chat.Client{BaseURL: model.URL()},
		Ledger: agent.NewLedger(filepath.Join(dir, "ledger.jsonl")),
		Memory: memory,
	}
	env.RegisterWorkflow(agent.AgentWorkflow)
	env.RegisterActivity(acts)
	return env, acts, model
}

func TestUnitAgentWorkflowAppliesEveryClass(t *testing.T) {
	env, acts := unitEnv(t)
	in := agent.DefaultInput()
	in.Stall = 50 * time.Millisecond // the stall itself is the integration test's
	env.ExecuteWorkflow(agent.AgentWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res agent.Result
	require.NoError(t, env.GetWorkflowResult(&res))

	chats := env.Recorder.CallsOf("Chat")
	require.Len(t, chats, 4, "four MODEL calls, each scheduled once; three are retried by the server (503, 429, dropped stream)")
	assert.Equal(t, 900*time.Second, chats[0].Options.StartToCloseTimeout, "MODEL default")
	assert.Equal(t, 60*time.Second, chats[0].Options.HeartbeatTimeout, "MODEL default")
	assert.Equal(t, "model: Chat", chats[0].Options.Summary)
	var followUp *testsuite.AppliedCall
	for i := range chats {
		if chats[i].Options.HeartbeatTimeout == in.StallWindow {
			followUp = &chats[i]
		}
	}
	require.NotNil(t, followUp, "the follow-up keeps the heartbeat window its caller set")
	assert.Equal(t, in.Stall+30*time.Second, followUp.Options.StartToCloseTimeout)
	for _, c := range env.Recorder.Calls() {
		assert.Greater(t, c.MaxAttempts(), int32(1), "%s: under the RunBudget the call keeps its retries on the server", c.ActivityType)
	}

	seatMaps := env.Recorder.CallsOf("SeatMap")
	assert.Len(t, seatMaps, len(in.Flights), "one schedule per branch; the pool's three retries are the server's")
	assert.Equal(t, 60*time.Second, seatMaps[0].Options.StartToCloseTimeout, "TOOL default")
	assert.Zero(t, seatMaps[0].Options.HeartbeatTimeout, "TOOL has no heartbeat")
	assert.Equal(t, agent.PoolState{Limit: 3, Spent: 3, Refusals: 3}, res.Pool)

	assert.Len(t, env.Recorder.CallsOf("BookSeat"), 2, "one schedule per booking; the first is retried by the server")
	require.Len(t, res.Bookings, 2)
	assert.True(t, res.Bookings[0].Deduplicated, "the retry landed on the first booking")
	assert.Equal(t, 2, res.Bookings[0].Attempt)
	assert.NotEmpty(t, res.Bookings[0].Key)
	assert.NotEqual(t, res.Bookings[0].Key, res.Bookings[1].Key, "one key per booking")
	entries, err := acts.Ledger.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, 2, "one effect per booking")

	assert.Len(t, env.Recorder.CallsOf("SearchDocs"), 1)
	assert.Equal(t, 30*time.Second, env.Recorder.CallsOf("SearchDocs")[0].Options.StartToCloseTimeout, "RETRIEVAL default")
	require.Len(t, env.Recorder.CallsOf("SaveMemory"), 1)
	assert.Equal(t, 15*time.Second, env.Recorder.CallsOf("SaveMemory")[0].Options.StartToCloseTimeout, "MEMORY default")
	assert.Equal(t, 0, res.MemoryRead)
	assert.Equal(t, 3, res.MemoryStored)
	// Every first attempt and every retry is charged: the three MODEL
	// retries, the pool's three and the first booking's.
	assert.Equal(t, agent.BudgetState{Limit: 40, Spent: len(env.Recorder.Calls()) + 3 + in.FanOutPool + 1}, res.RunBudget)
	assert.NotEmpty(t, res.Answer)
	assert.Len(t, res.Hits, 3)
	// The token and cost budgets: every reservation settled, none left.
	assert.Equal(t, in.TokenBudget, res.Tokens.Limit)
	assert.Equal(t, int64(in.CostBudget), res.Cost.Limit)
	assert.Zero(t, res.Tokens.Reserved, "every attempt settled")
	assert.Zero(t, res.Cost.Reserved, "every attempt settled")
	assert.Positive(t, res.Tokens.Spent)
	assert.Positive(t, res.Cost.Spent)
	assert.Equal(t, res.Tokens.Limit-res.Tokens.Spent, res.Tokens.Remaining)
	assert.Equal(t, res.Cost.Limit-res.Cost.Spent, res.Cost.Remaining)
	assert.Empty(t, res.Tokens.Refused)
	assert.Empty(t, res.Cost.Refused)
}

func TestUnitRunBudgetRefusesPastItsCeiling(t *testing.T) {
	env, acts := unitEnv(t)
	in := agent.DefaultInput()
	in.Stall = 50 * time.Millisecond
	in.RunBudget = 5 // memory, search, plan twice, then one seat map: the rest is refused
	env.ExecuteWorkflow(agent.AgentWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.Error(t, err, "no seat map came back, so there is nothing to book")
	assert.Len(t, env.Recorder.Calls(), 4, "memory, search, the plan (its retry charged on the server's schedule) and one seat map; a call the ceiling refuses is never scheduled")
	entries, lerr := acts.Ledger.Entries()
	require.NoError(t, lerr)
	assert.Empty(t, entries, "nothing was booked")
}
