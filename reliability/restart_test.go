package reliability_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestServerRestartMidFanOut stops and starts the dev server on its database
// file while a fan-out runs under a RunBudget. Demand (20 branches, each
// failing twice before it succeeds: 60 attempts) exceeds the budget (45), so
// the ceiling is reached. The run must complete after the restart, and the
// attempts, counted by the activities and by the scheduled events, must
// never exceed the budget.
func TestServerRestartMidFanOut(t *testing.T) {
	t.Parallel()
	srv := startServer(t, filepath.Join(t.TempDir(), "temporal.db"))
	queue := taskQueue(t)
	log := &eventLog{}
	startInProcessWorker(t, srv.Client(), queue, &Agent{emit: log.add})

	const branches, budget = 20, 45
	req := FanOutRequest{Branches: branches, RunBudget: budget, FailFirst: 2, Work: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, FanOutWorkflow, req)
	require.NoError(t, err)

	// Restart while the first round of attempts is in flight.
	waitFor(t, time.Minute, func() bool { return count(log.snapshot(), "started", "Flaky") >= branches })
	desc, err := srv.Client().DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus(), "the fan-out is running at the restart")
	restartAt := time.Now()
	require.NoError(t, srv.Restart(ctx))
	restarted := time.Now()
	before := count(log.snapshot(), "started", "Flaky")

	var result FanOutResult
	require.NoError(t, run.Get(ctx, &result), "the run completes after the restart")
	completed := time.Since(restarted)
	executions := count(log.snapshot(), "started", "Flaky")
	events := history(t, srv.Client(), run)
	scheduledAttempts := len(testsuite.ScheduledActivities(events, "Flaky"))

	assert.Greater(t, executions, before, "attempts were made after the restart")
	assert.LessOrEqual(t, executions, budget, "attempts counted by the activities never exceed the budget")
	assert.Equal(t, branches, scheduledAttempts, "one scheduled event per branch: the retries are the server's")
	duplicates := countDuplicates(log.snapshot())
	assert.Zero(t, duplicates, "no branch's attempt ran twice")
	assert.Equal(t, budget, result.RunSpent, "demand exceeds the budget: it is spent to its ceiling, not past it")
	// A charge granted while its answer was lost to the restart is spent
	// without its attempt running: waste, never an attempt past the ceiling.
	assert.LessOrEqual(t, executions, result.RunSpent, "no attempt ran uncharged")
	settled := 0
	for _, n := range result.Settled {
		settled += n
	}
	assert.Equal(t, branches, settled, "every branch settled")
	assert.Positive(t, result.Settled[temporaladk.TypeBudgetExceeded], "the ceiling refused the attempts past it")
	assertReplays(t, srv.Client(), run)
	figure(t, "budget=%d charged=%d scheduled=%d executed=%d (before restart %d) duplicates=%d restart took=%v restart->completed=%v settled=%v",
		budget, result.RunSpent, scheduledAttempts, executions, before, duplicates,
		restarted.Sub(restartAt).Round(time.Millisecond), completed.Round(time.Millisecond), result.Settled)
}

// countDuplicates counts attempts that ran more than once: two started
// events of one branch with the same kit attempt number.
func countDuplicates(events []Event) int {
	type attempt struct{ branch, n int }
	seen := map[attempt]int{}
	dups := 0
	for _, ev := range events {
		if ev.Kind != "started" {
			continue
		}
		a := attempt{ev.Branch, ev.KitAttempt}
		if seen[a]++; seen[a] > 1 {
			dups++
		}
	}
	return dups
}

// waitFor polls cond every 20ms until it holds, failing the test after
// timeout.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
