package agent_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one real Temporal dev server among the integration tests;
// `go test -run Unit` starts none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// TestIntegrationAgentRun runs the whole sample on a real server and checks
// what its report claims against the history it was read from.
func TestIntegrationAgentRun(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	r, err := agent.Run(ctx, agent.Config{Address: srv.Address(), Namespace: srv.Namespace(), DataDir: t.TempDir()}, &out, io.Discard)
	require.NoError(t, err, out.String())
	in := agent.DefaultInput()

	// MODEL: a 503 retried after a wait drawn inside the activity.
	plan := r.Call("Chat", agent.StepPlan)
	require.NotNil(t, plan)
	require.Len(t, plan.Attempts, 2)
	assert.Equal(t, 900*time.Second, plan.StartToClose)
	assert.Equal(t, 60*time.Second, plan.Heartbeat)
	assert.Equal(t, int32(3), plan.ScheduledMaxAttempts)
	assert.Equal(t, temporaladk.TypeProvider, plan.Attempts[0].ErrorType)
	require.NotNil(t, plan.Attempts[0].Decision)
	d := plan.Attempts[0].Decision
	assert.Equal(t, "jitter", d.Source)
	assert.LessOrEqual(t, d.Wait, time.Second, "full jitter within MODEL's first backoff window")
	assert.False(t, d.Truncated)
	assert.GreaterOrEqual(t, plan.Attempts[1].Scheduled.Sub(plan.Attempts[0].Closed), d.Wait, "the workflow waited the drawn wait")
	assert.Equal(t, "completed", plan.Attempts[1].Outcome)

	// MODEL: a 429 whose Retry-After was honoured.
	answer := r.Call("Chat", agent.StepAnswer)
	require.NotNil(t, answer)
	require.Len(t, answer.Attempts, 2)
	assert.Equal(t, temporaladk.TypeRateLimit, answer.Attempts[0].ErrorType)
	require.NotNil(t, answer.Attempts[0].Decision)
	assert.Equal(t, "retry-after", answer.Attempts[0].Decision.Source)
	assert.Equal(t, in.RetryAfter, answer.Attempts[0].Decision.Wait)
	assert.GreaterOrEqual(t, answer.Attempts[1].Scheduled.Sub(answer.Attempts[0].Closed), in.RetryAfter)

	// MODEL: a stall longer than two heartbeat windows, survived.
	followUp := r.Call("Chat", agent.StepFollowUp)
	require.NotNil(t, followUp)
	require.Len(t, followUp.Attempts, 1, "no heartbeat timeout, no retry")
	assert.Equal(t, in.StallWindow, followUp.Heartbeat, "the caller's window is kept")
	reply, ok := agent.ChatReply(followUp)
	require.True(t, ok)
	assert.Greater(t, reply.FirstToken, 2*in.StallWindow)
	assert.GreaterOrEqual(t, reply.Beats, int64(6), "beats went on through the silence: three per window")

	// MODEL: a dropped stream, retried.
	summary := r.Call("Chat", agent.StepSummary)
	require.NotNil(t, summary)
	require.Len(t, summary.Attempts, 2)
	assert.Equal(t, temporaladk.TypeProviderUnavailable, summary.Attempts[0].ErrorType)

	// TOOL: one ledger effect per booking, though the first one was retried.
	bookings := r.CallsOf("BookSeat")
	require.Len(t, bookings, 2)
	assert.Len(t, bookings[0].Attempts, 2, "the lost confirmation was retried")
	assert.Equal(t, "EFFECTFUL", bookings[0].Idempotency)
	assert.Equal(t, int32(agent.ToolMaxAttempts), bookings[0].ScheduledMaxAttempts, "an effectful tool with a key gets the policy's attempts")
	require.Len(t, r.Ledger, 2)
	for i, b := range bookings {
		assert.NotEmpty(t, b.Key)
		assert.Equal(t, b.Key, r.Ledger[i].Key, "one effect per booking key")
	}
	assert.True(t, r.Result.Bookings[0].Deduplicated)

	// TOOL, read-only, fanned out under the pool.
	seatMaps := r.CallsOf("SeatMap")
	require.Len(t, seatMaps, len(in.Flights))
	total, retried := 0, 0
	for _, c := range seatMaps {
		total += len(c.Attempts)
		if len(c.Attempts) > 1 && c.Completed() != nil {
			retried++
		}
		assert.Equal(t, "READ_ONLY", c.Idempotency)
	}
	assert.Equal(t, len(in.Flights)+in.FanOutPool, total, "the pool caps the retries")
	assert.Equal(t, in.FanOutPool, retried, "read-only calls retried, as far as the pool allows")
	assert.Equal(t, agent.PoolState{Limit: 3, Spent: 3, Refusals: 3}, r.Result.Pool)

	// RETRIEVAL and MEMORY with their class defaults.
	search := r.CallsOf("SearchDocs")
	require.Len(t, search, 1)
	assert.Equal(t, 30*time.Second, search[0].StartToClose)
	save := r.CallsOf("SaveMemory")
	require.Len(t, save, 1)
	assert.Equal(t, 15*time.Second, save[0].StartToClose)

	// The token and cost budgets: every MODEL attempt reserved its cap
	// before it ran and settled with the usage Chat reported, the refusals
	// of the 503 and the 429 at zero; the history, the workflow and the
	// Query agree on what was settled.
	totals := r.SpendTotals()
	attempts := 0
	for _, c := range r.CallsOf("Chat") {
		attempts += len(c.Attempts)
		for _, a := range c.Attempts {
			require.NotNil(t, a.Spend, "%s attempt %d", c.Label, a.Number)
			assert.Equal(t, in.MaxTokens, a.Spend.ReservedTokens)
			assert.Equal(t, agent.ReservationCost(in.MaxTokens, agent.StandInPrice), a.Spend.ReservedCost)
			require.NotNil(t, a.Spend.Usage, "%s attempt %d reported its usage", c.Label, a.Number)
			assert.Equal(t, agent.UsageCost(*a.Spend.Usage, agent.StandInPrice), a.Spend.SettledCost)
		}
	}
	assert.Equal(t, agent.SpendTotals{Attempts: attempts, Reserved: attempts, Settled: attempts,
		ReservedTokens: int64(attempts) * in.MaxTokens, SettledTokens: totals.SettledTokens,
		ReservedCost: spend.Micros(attempts) * agent.ReservationCost(in.MaxTokens, agent.StandInPrice), SettledCost: totals.SettledCost}, totals)
	assert.Zero(t, plan.Attempts[0].Spend.SettledTokens, "the 503 used nothing")
	assert.Zero(t, answer.Attempts[0].Spend.SettledTokens, "the 429 used nothing")
	dropped := summary.Attempts[0].Spend.Usage
	reply, ok = agent.ChatReply(summary)
	require.True(t, ok)
	assert.Positive(t, dropped.OutputTokens, "the dropped stream is charged what it streamed")
	assert.Less(t, dropped.OutputTokens, reply.Tokens, "half an answer")
	tokens, ok := r.Budget("tokens")
	require.True(t, ok, "the Query reports the token budget")
	cost, ok := r.Budget("cost")
	require.True(t, ok, "the Query reports the cost budget")
	assert.Equal(t, in.TokenBudget, tokens.Limit)
	assert.Equal(t, totals.SettledTokens, tokens.Spent)
	assert.Equal(t, int64(totals.SettledCost), cost.Spent)
	assert.Equal(t, int64(in.CostBudget), cost.Limit)
	assert.Zero(t, tokens.Reserved+cost.Reserved)
	assert.Equal(t, r.Result.Tokens.Spent, tokens.Spent, "the workflow reads what the Query reports")
	assert.Equal(t, r.Result.Cost.Spent, cost.Spent)
	require.Len(t, tokens.By, 1)
	assert.Equal(t, spend.Tally{Class: tokens.By[0].Class, Model: tokens.By[0].Model, Spent: tokens.Spent}, tokens.By[0])
	assert.Equal(t, "MODEL", tokens.By[0].Class)
	assert.Equal(t, agent.StandInModel, tokens.By[0].Model)
	assert.Contains(t, out.String(), "Spend, per MODEL call and attempt")
	assert.Contains(t, out.String(), "Budgets Query temporaladk.budgets at the end:")

	// The budget, the history and its replay.
	assert.Equal(t, 22, r.Result.RunBudget.Spent)
	assert.Empty(t, r.Result.RunBudget.Refused)
	assert.NoError(t, r.ReplayErr)
	assert.NoError(t, agent.Replay(r.HistoryPath), "the recorded file replays again")
	assert.Empty(t, r.Failed())
	assert.Contains(t, out.String(), "replayed with the kit's plugin: clean")
	assert.NotContains(t, out.String(), "[FAIL]")
}

// TestIntegrationAgentRunAgainstAnotherEndpoint points the MODEL calls at an
// endpoint the sample did not start, as -model-url does: no faults are asked
// of it, the MODEL checks are skipped rather than failed, and the rest holds.
// Run without a data directory, the temporary one it makes is gone at the
// end.
func TestIntegrationAgentRunAgainstAnotherEndpoint(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	endpoint, err := standin.Start(standin.Options{})
	require.NoError(t, err)
	defer endpoint.Close()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	r, err := agent.Run(ctx, agent.Config{Address: srv.Address(), Namespace: srv.Namespace(), ModelURL: endpoint.URL()}, &out, io.Discard)
	require.NoError(t, err, out.String())
	left, err := filepath.Glob(filepath.Join(tmp, "temporaladk-agent-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the temporary data directory is removed when the run succeeds")
	assert.False(t, r.StandIn)
	assert.False(t, r.Input.ModelFaults, "a real endpoint is asked for no faults")
	for _, step := range []string{agent.StepPlan, agent.StepAnswer, agent.StepFollowUp, agent.StepSummary} {
		c := r.Call("Chat", step)
		require.NotNil(t, c, step)
		assert.Len(t, c.Attempts, 1, "%s: no fault, no retry", step)
	}
	assert.Equal(t, 4, endpoint.Requests())
	skipped := 0
	for _, c := range r.Checks {
		if c.Skipped {
			skipped++
		}
	}
	assert.Equal(t, 4, skipped, "the four MODEL fault checks")
	assert.Empty(t, r.Failed())
	assert.Contains(t, out.String(), "[skip] 429 Retry-After honoured")
}

// TestUnitFailedRunKeepsItsDataDirectory: a run that fails after making
// its temporary data directory keeps it, with the worker log, and its
// error says where it is.
func TestUnitFailedRunKeepsItsDataDirectory(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := agent.Run(ctx, agent.Config{Address: "127.0.0.1:1", Namespace: "default"}, io.Discard, io.Discard)
	require.Error(t, err)
	kept, globErr := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "temporaladk-agent-*"))
	require.NoError(t, globErr)
	require.Len(t, kept, 1)
	assert.Contains(t, err.Error(), "(its data directory "+kept[0]+" is kept)")
	assert.FileExists(t, filepath.Join(kept[0], "worker.log"))
}
