package reliability_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestLiveDeployMidRetry deploys new kit options while budgeted calls wait
// on the server for their retry: a worker process with kitOptions runs the
// first attempts, which fail with a rate limit asking for a few seconds;
// while every retry is pending the process is SIGKILLed and a process with
// kitOptionsB (other attempts and intervals, Fetch's declaration changed,
// Summarize's dropped) takes over. Every workflow must complete with the
// result its budget allows, with no workflow task failure, and no attempt
// past its budget.
func TestLiveDeployMidRetry(t *testing.T) {
	t.Parallel()
	runLiveDeploy(t, roleKitB)
}

// TestLiveDeployDroppingADeclarationKeepsPendingRetries guards a bug the
// live deploy found, fixed in interceptors: the deploy of
// TestLiveDeployMidRetry, where the new options also drop Fetch's
// declaration, the only source of its class (no tag, no DefaultClass).
// Before the fix, the new worker, replaying the run, did not plan the call
// and so opened no budgeted call: its charge handler answered the retry's
// charge with "this run made no budgeted call call-1", and the call ran out
// of attempts without running. The budget on the call's context now decides
// what is charged, whatever the options say: every workflow ends as its
// budget allows.
func TestLiveDeployDroppingADeclarationKeepsPendingRetries(t *testing.T) {
	t.Parallel()
	runLiveDeploy(t, roleKitDropped)
}

// runLiveDeploy is the deploy of TestLiveDeployMidRetry, with a worker in
// role after taking over.
func runLiveDeploy(t *testing.T, after processRole) {
	srv := startServer(t, "")
	queue := taskQueue(t)
	gate := filepath.Join(t.TempDir(), "gate")
	before := startRoleProcess(t, srv, queue, roleKit, gateEnv+"="+gate)

	const retryAfter = 4 * time.Second
	fetch := FetchArgs{FailFirst: 2, RetryAfter: retryAfter}
	type deployCase struct {
		req  DeployRequest
		want DeployResult
	}
	// Fetch fails twice and succeeds at attempt 3; Summarize is one more
	// attempt. A RunBudget of 5 and a pool of 5 retries allow it; a
	// RunBudget of 2 refuses attempt 3.
	succeeded := DeployResult{FetchAttempt: 3, Summary: "summary of attempt 3"}
	withRun := succeeded
	withRun.RunSpent = 4
	withPool := succeeded
	withPool.Retries = 2
	cases := []deployCase{
		{DeployRequest{RunBudget: 5, Fetch: fetch}, withRun},
		{DeployRequest{RunBudget: 5, Fetch: fetch}, withRun},
		{DeployRequest{Pool: 5, Fetch: fetch}, withPool},
		{DeployRequest{Pool: 5, Fetch: fetch}, withPool},
		{DeployRequest{RunBudget: 2, Fetch: fetch}, DeployResult{Fetch: Outcome{Type: temporaladk.TypeBudgetExceeded}, RunSpent: 2}},
		{DeployRequest{RunBudget: 2, Fetch: fetch}, DeployResult{Fetch: Outcome{Type: temporaladk.TypeBudgetExceeded}, RunSpent: 2}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	runs := make([]client.WorkflowRun, len(cases))
	for i, tc := range cases {
		var err error
		runs[i], err = srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, i), TaskQueue: queue}, DeployWorkflow, tc.req)
		require.NoError(t, err)
	}
	// Every first attempt is running; then they all fail at once.
	ranBefore, ranAfter := map[string][]int{}, map[string][]int{}
	for range cases {
		ev := before.next("started", time.Minute)
		ranBefore[ev.Workflow] = append(ranBefore[ev.Workflow], ev.Attempt)
	}
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	// Kill once the server holds every retry, pending its Retry-After.
	var pendingAtKill int
	waitFor(t, time.Minute, func() bool {
		pendingAtKill = 0
		for _, run := range runs {
			if retryPending(t, srv.Client(), run) {
				pendingAtKill++
			}
		}
		return pendingAtKill == len(runs)
	})
	killedAt := time.Now()
	before.kill()
	next := startRoleProcess(t, srv, queue, after)

	var refusedOnlyAfterDeploy, failedResults int
	for i, run := range runs {
		var got DeployResult
		require.NoError(t, run.Get(ctx, &got), "%s completes after the deploy", run.GetID())
		want := cases[i].want
		if want.Fetch.Type != "" {
			assert.Equal(t, want.Fetch.Type, got.Fetch.Type, "%s: %s", run.GetID(), got.Fetch.Message)
			assert.Contains(t, got.Fetch.Message, "attempts", "%s: the RunBudget refused attempt 3", run.GetID())
			if got.Fetch.Type == want.Fetch.Type {
				refusedOnlyAfterDeploy++
			}
			got.Fetch = Outcome{Type: got.Fetch.Type}
		}
		if !assert.Equal(t, want, got, "%s: the result its budget allows", run.GetID()) {
			failedResults++
		}
	}
	completed := time.Since(killedAt)

	// What each process ran, from the activities' own reports.
	beforeEvents, afterEvents := before.drain(), next.drain()
	for _, ev := range beforeEvents {
		if ev.Kind == "started" && ev.Activity == "Fetch" {
			ranBefore[ev.Workflow] = append(ranBefore[ev.Workflow], ev.Attempt)
		}
	}
	for _, ev := range afterEvents {
		if ev.Kind == "started" && ev.Activity == "Fetch" {
			ranAfter[ev.Workflow] = append(ranAfter[ev.Workflow], ev.Attempt)
		}
	}
	var failedTasks, stickyTimeouts, scheduledFetches, executions, chargeUpdates int
	timeouts := map[string]int{}
	histories := filepath.Join(t.TempDir(), "histories")
	for i, run := range runs {
		id := run.GetID()
		assert.Equal(t, []int{1}, ranBefore[id], "%s: the first worker ran attempt 1 only", id)
		wantAfter := []int{2, 3}
		if cases[i].want.Fetch.Type != "" {
			wantAfter = []int{2} // attempt 3 refused by the budget, not run
		}
		assert.Equal(t, wantAfter, ranAfter[id], "%s: the new worker ran the retries, each once, none past the budget", id)
		executions += len(ranBefore[id]) + len(ranAfter[id])
		if cases[i].req.RunBudget > 0 {
			assert.LessOrEqual(t, len(ranBefore[id])+len(ranAfter[id]), cases[i].req.RunBudget, "%s: no attempt past the RunBudget", id)
		}

		events := history(t, srv.Client(), run)
		failed, timedOut := workflowTaskFaults(events)
		failedTasks += failed
		for k, v := range timedOut {
			timeouts[k] += v
		}
		assert.Zero(t, failed, "%s: no workflow task failed", id)
		// The killed worker's sticky queue: the server gives a task queued
		// there up after StickyScheduleToStartTimeout and moves it to the
		// task queue, recording a ScheduleToStart timeout. That is Temporal
		// noticing a dead worker, with or without the kit; any other
		// timeout is a fault.
		sticky := stickyScheduleToStartTimeouts(events)
		stickyTimeouts += sticky
		assert.Equal(t, sticky, timedOut[enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START.String()], "%s: every ScheduleToStart timeout is of a task on the dead worker's sticky queue", id)
		assert.LessOrEqual(t, sticky, 1, "%s: at most one task waited on the dead worker's sticky queue", id)
		delete(timedOut, enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START.String())
		assert.Empty(t, timedOut, "%s: no workflow task timed out otherwise", id)
		// The charges, as history holds them: attempt 2 charged by the first
		// worker when attempt 1 failed (asked again by the new worker, the
		// same Update), attempt 3 by the new worker: granted, or refused by
		// a RunBudget of 2.
		wantCharges := []charge{{"call-1", 2, true}, {"call-1", 3, true}}
		if cases[i].want.Fetch.Type != "" {
			wantCharges[1].Granted = false
		}
		got := charges(t, events)
		assert.Equal(t, wantCharges, got, "%s: each retry charged once, before it ran", id)
		chargeUpdates += len(got)
		fetches := testsuite.ScheduledActivities(events, "Fetch")
		scheduledFetches += len(fetches)
		assert.Len(t, fetches, 1, "%s: one scheduled event for the call, its retries the server's", id)
		require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), id, run.GetRunID(), filepath.Join(histories, id+".json")))
	}
	// The histories replay under either configuration.
	afterOpts, _, err := after.kit()
	require.NoError(t, err)
	for name, opts := range map[string]interceptors.Options{"before": kitOptions(), "after": afterOpts} {
		plugin, err := interceptors.NewPlugin(opts)
		require.NoError(t, err)
		assert.NoError(t, testsuite.ReplayDir(histories, testsuite.ReplayOptions{Workflows: replayWorkflows(), Plugins: []worker.Plugin{plugin}}),
			"the histories replay with the options %s the deploy", name)
	}
	figure(t, "workflows=%d retry pending at the kill=%d (Retry-After %v) completed with the expected result=%d (refused by RunBudget 2 at attempt 3: %d) Fetch executions=%d scheduled=%d charge Updates=%d WorkflowTaskFailed=%d WorkflowTaskTimedOut=%v (of which on the dead worker's sticky queue: %d) kill->all completed=%v",
		len(runs), pendingAtKill, retryAfter, len(runs)-failedResults, refusedOnlyAfterDeploy, executions, scheduledFetches, chargeUpdates, failedTasks, timeouts, stickyTimeouts, completed.Round(time.Millisecond))
}

// charge is one charge Update of a history: the call and attempt it asked
// for, and whether it was granted.
type charge struct {
	Call    string
	Attempt int
	Granted bool
}

// charges reads the charges of a history's charge Updates, in the order
// they were accepted, with their outcomes.
func charges(t *testing.T, events []*historypb.HistoryEvent) []charge {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	var out []charge
	first := map[string]int{}
	for _, e := range events {
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == wire.ChargeUpdateName {
			var reqs []wire.ChargeRequest
			require.NoError(t, dc.FromPayloads(a.GetAcceptedRequest().GetInput().GetArgs(), &reqs))
			first[a.GetAcceptedRequest().GetMeta().GetUpdateId()] = len(out)
			for _, req := range reqs {
				out = append(out, charge{Call: req.Call, Attempt: req.Attempt})
			}
		}
		if a := e.GetWorkflowExecutionUpdateCompletedEventAttributes(); a != nil {
			i, ok := first[a.GetMeta().GetUpdateId()]
			if !ok {
				continue
			}
			var res []wire.ChargeResult
			require.NoError(t, dc.FromPayloads(a.GetOutcome().GetSuccess(), &res))
			for j, r := range res {
				out[i+j].Granted = r.Granted
			}
		}
	}
	return out
}

// retryPending reports whether the run's Fetch waits on the server for its
// second attempt.
func retryPending(t *testing.T, c client.Client, run client.WorkflowRun) bool {
	t.Helper()
	desc, err := c.DescribeWorkflowExecution(context.Background(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() == "Fetch" && pa.GetAttempt() == 2 && pa.GetState() == enumspb.PENDING_ACTIVITY_STATE_SCHEDULED {
			return true
		}
	}
	return false
}

// stickyScheduleToStartTimeouts counts the workflow tasks that timed out
// ScheduleToStart on a sticky queue.
func stickyScheduleToStartTimeouts(events []*historypb.HistoryEvent) int {
	onSticky := map[int64]bool{}
	n := 0
	for _, e := range events {
		if a := e.GetWorkflowTaskScheduledEventAttributes(); a != nil {
			onSticky[e.GetEventId()] = a.GetTaskQueue().GetKind() == enumspb.TASK_QUEUE_KIND_STICKY
		}
		if a := e.GetWorkflowTaskTimedOutEventAttributes(); a != nil &&
			a.GetTimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START && onSticky[a.GetScheduledEventId()] {
			n++
		}
	}
	return n
}

// replayWorkflows is workflowFuncs as testsuite.ReplayWorkflows.
func replayWorkflows() []testsuite.ReplayWorkflow {
	var out []testsuite.ReplayWorkflow
	for _, f := range workflowFuncs {
		out = append(out, testsuite.ReplayWorkflow{Func: f})
	}
	return out
}
