package reliability_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// countingMetrics is a client.MetricsHandler that counts every counter
// increment by name and tags, for a worker process to report.
type countingMetrics struct {
	tags   map[string]string
	mu     *sync.Mutex
	counts map[string]*countedMetric
}

// countedMetric is one counter with its tags and its count.
type countedMetric struct {
	Name  string
	Tags  map[string]string
	Count int64
}

func newCountingMetrics() *countingMetrics {
	return &countingMetrics{tags: map[string]string{}, mu: &sync.Mutex{}, counts: map[string]*countedMetric{}}
}

// WithTags returns a handler that counts into the same counters with tags
// added.
func (h *countingMetrics) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	maps.Copy(merged, tags)
	return &countingMetrics{tags: merged, mu: h.mu, counts: h.counts}
}

// Counter returns the counter name with the handler's tags.
func (h *countingMetrics) Counter(name string) client.MetricsCounter {
	var key strings.Builder
	key.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(h.tags)) {
		fmt.Fprintf(&key, ",%s=%s", k, h.tags[k])
	}
	tags := maps.Clone(h.tags)
	return counterFunc(func(n int64) {
		h.mu.Lock()
		defer h.mu.Unlock()
		c, ok := h.counts[key.String()]
		if !ok {
			c = &countedMetric{Name: name, Tags: tags}
			h.counts[key.String()] = c
		}
		c.Count += n
	})
}

// Gauge returns a gauge that records nothing.
func (h *countingMetrics) Gauge(string) client.MetricsGauge {
	return client.MetricsNopHandler.Gauge("")
}

// Timer returns a timer that records nothing.
func (h *countingMetrics) Timer(string) client.MetricsTimer {
	return client.MetricsNopHandler.Timer("")
}

// snapshot returns the counters counted so far.
func (h *countingMetrics) snapshot() []countedMetric {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []countedMetric
	for _, c := range h.counts {
		out = append(out, *c)
	}
	return out
}

type counterFunc func(int64)

// Inc adds n.
func (f counterFunc) Inc(n int64) { f(n) }

// sumMetric adds up the counters named name whose tags hold every pair of
// want.
func sumMetric(counts []countedMetric, name string, want map[string]string) int64 {
	var n int64
	for _, c := range counts {
		if c.Name != name {
			continue
		}
		match := true
		for k, v := range want {
			if c.Tags[k] != v {
				match = false
			}
		}
		if match {
			n += c.Count
		}
	}
	return n
}

// GuardArgs is the input of the guarded calls.
type GuardArgs struct {
	Call string
}

// GuardTagged and GuardUntagged are calls a guardrail blocks: each attempt
// returns a never-retryable *temporaladk.GuardrailViolationError. Two
// activity types, so that the kit's metrics tell the calls apart.
func (a *Agent) GuardTagged(ctx context.Context, args GuardArgs) error { return a.guard(ctx, args) }

// GuardUntagged is GuardTagged, called without a class tag.
func (a *Agent) GuardUntagged(ctx context.Context, args GuardArgs) error { return a.guard(ctx, args) }

func (a *Agent) guard(ctx context.Context, args GuardArgs) error {
	a.event(ctx, "started", Event{})
	return &temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "the input names a person (" + args.Call + ")"}
}

// GuardedRequest configures GuardedWorkflow.
type GuardedRequest struct {
	// UntaggedPolicy gives the untagged call a retry policy of 9 attempts
	// 100-200ms apart; without it the call has no policy (the server's
	// default: unlimited attempts from 1s apart).
	UntaggedPolicy bool
}

// GuardedResult is how the two guarded calls ended.
type GuardedResult struct {
	Tagged, Untagged Outcome
}

// GuardedWorkflow calls GuardTagged as a MODEL call under a retry policy of
// its own that allows 9 attempts, then GuardUntagged without a tag. It does
// the same whichever worker runs it.
func GuardedWorkflow(ctx workflow.Context, req GuardedRequest) (GuardedResult, error) {
	nine := &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 200 * time.Millisecond, MaximumAttempts: 9}
	tagged := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second, RetryPolicy: nine})
	var out GuardedResult
	out.Tagged = outcomeOf(temporaladk.FromApplicationError(
		workflow.ExecuteActivity(temporaladk.WithClass(tagged, temporaladk.Model), (*Agent).GuardTagged, GuardArgs{Call: "tagged"}).Get(ctx, nil)))
	untagged := workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}
	if req.UntaggedPolicy {
		untagged.RetryPolicy = nine
	}
	out.Untagged = outcomeOf(temporaladk.FromApplicationError(
		workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, untagged), (*Agent).GuardUntagged, GuardArgs{Call: "untagged"}).Get(ctx, nil)))
	return out, nil
}

// activityCall is one activity call read from a server's history.
type activityCall struct {
	Workflow string
	Activity string
	// ScheduledBy is the identity of the worker whose workflow task
	// scheduled the call.
	ScheduledBy string
	// Attempt and StartedBy are the attempt number and worker identity of
	// the call's last attempt (the server records only the last one).
	Attempt   int32
	StartedBy string
	// Failed is true when the call ended in ActivityTaskFailed, with
	// FailureType its ApplicationError type and NonRetryable its flag.
	Failed       bool
	FailureType  string
	NonRetryable bool
}

// activityCalls reads every activity call of a run's history.
func activityCalls(workflowID string, events []*historypb.HistoryEvent) []activityCall {
	taskBy := map[int64]string{}
	byScheduled := map[int64]*activityCall{}
	var order []int64
	for _, e := range events {
		switch {
		case e.GetWorkflowTaskCompletedEventAttributes() != nil:
			taskBy[e.GetEventId()] = e.GetWorkflowTaskCompletedEventAttributes().GetIdentity()
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			a := e.GetActivityTaskScheduledEventAttributes()
			byScheduled[e.GetEventId()] = &activityCall{Workflow: workflowID, Activity: a.GetActivityType().GetName(), ScheduledBy: taskBy[a.GetWorkflowTaskCompletedEventId()]}
			order = append(order, e.GetEventId())
		case e.GetActivityTaskStartedEventAttributes() != nil:
			a := e.GetActivityTaskStartedEventAttributes()
			if c := byScheduled[a.GetScheduledEventId()]; c != nil {
				c.Attempt, c.StartedBy = a.GetAttempt(), a.GetIdentity()
			}
		case e.GetActivityTaskFailedEventAttributes() != nil:
			a := e.GetActivityTaskFailedEventAttributes()
			if c := byScheduled[a.GetScheduledEventId()]; c != nil {
				c.Failed = true
				c.FailureType = a.GetFailure().GetApplicationFailureInfo().GetType()
				c.NonRetryable = a.GetFailure().GetApplicationFailureInfo().GetNonRetryable()
			}
		}
	}
	out := make([]activityCall, 0, len(order))
	for _, id := range order {
		out = append(out, *byScheduled[id])
	}
	return out
}

// workflowTaskIdentities counts a history's completed workflow tasks by the
// identity of the worker that completed them.
func workflowTaskIdentities(events []*historypb.HistoryEvent, into map[string]int) {
	for _, e := range events {
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			into[a.GetIdentity()]++
		}
	}
}

// workflowTaskFaults counts WorkflowTaskFailed and WorkflowTaskTimedOut
// events, the timeouts by type.
func workflowTaskFaults(events []*historypb.HistoryEvent) (failed int, timedOut map[string]int) {
	timedOut = map[string]int{}
	for _, e := range events {
		if e.GetWorkflowTaskFailedEventAttributes() != nil {
			failed++
		}
		if a := e.GetWorkflowTaskTimedOutEventAttributes(); a != nil {
			timedOut[a.GetTimeoutType().String()]++
		}
	}
	return failed, timedOut
}

// runGuarded starts n GuardedWorkflows on queue, waits for them, checks each
// saw both calls blocked by the guardrail, and returns their calls, the
// workflow task identities of their histories and how many workflow tasks
// failed (GuardedWorkflow calls the kit: its task fails on a worker without
// it, naming the kit, and runs again on one with it).
func runGuarded(t *testing.T, c client.Client, queue string, n int, req GuardedRequest) ([]activityCall, map[string]int, int) {
	t.Helper()
	// A workflow task the plain worker fails waits for the server's retry
	// backoff, which grows with each failed attempt (up to 10 minutes by
	// default on a production server): the runs get that long.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runs := make([]client.WorkflowRun, n)
	for i := range runs {
		var err error
		runs[i], err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, i), TaskQueue: queue}, GuardedWorkflow, req)
		require.NoError(t, err)
	}
	var calls []activityCall
	identities := map[string]int{}
	failedTasks := 0
	for _, run := range runs {
		var res GuardedResult
		require.NoError(t, run.Get(ctx, &res))
		want := Outcome{Type: temporaladk.TypeGuardrailViolation}
		assert.Equal(t, want.Type, res.Tagged.Type, "%s: the tagged call ends blocked: %s", run.GetID(), res.Tagged.Message)
		assert.Equal(t, want.Type, res.Untagged.Type, "%s: the untagged call ends blocked: %s", run.GetID(), res.Untagged.Message)
		events := history(t, c, run)
		calls = append(calls, activityCalls(run.GetID(), events)...)
		workflowTaskIdentities(events, identities)
		failed, timedOut := workflowTaskFaults(events)
		failedTasks += failed
		for _, e := range events {
			if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
				assert.Contains(t, a.GetFailure().GetMessage(), "temporaladk.WithClass: this workflow runs without the kit's interceptor", "%s: a failed task names the missing kit", run.GetID())
			}
		}
		assert.Empty(t, timedOut, "%s: no workflow task timed out", run.GetID())
	}
	require.Len(t, calls, 2*n, "two calls per workflow")
	return calls, identities, failedTasks
}

// TestMixedFleetNeverRetriesANeverRetryableError runs a rolling deploy: one
// worker process with the kit and one without on one task queue, and
// workflows whose calls a guardrail blocks under retry policies that allow
// many attempts. GuardedWorkflow tags a call (temporaladk.WithClass), so a
// workflow task the plain worker takes fails, naming the kit, and runs
// again on the kit worker: read from the server's history, every call was
// scheduled by the kit worker, and ran exactly once, whichever worker ran
// its attempt.
//
// Phase "activities on the kit": the plain worker runs workflow tasks only.
// Phase "activities anywhere": the plain worker runs activities too; the
// retry policy the kit wrote carries the never-retryable types, so the
// server ends the call after its first attempt on either worker.
func TestMixedFleetNeverRetriesANeverRetryableError(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	const n = 24
	phase := func(name string, plainRole processRole, req GuardedRequest) (calls []activityCall, identities map[string]int, failedTasks, ranOnPlain int, kit *workerProcess) {
		queue := taskQueue(t) + "-" + name
		kit = startRoleProcess(t, srv, queue, roleKit)
		plain := startRoleProcess(t, srv, queue, plainRole)
		calls, identities, failedTasks = runGuarded(t, srv.Client(), queue, n, req)
		for _, c := range calls {
			assert.Equal(t, int32(1), c.Attempt, "%s %s (scheduled by %s, ran on %s) ran exactly once", c.Workflow, c.Activity, c.ScheduledBy, c.StartedBy)
			assert.True(t, c.Failed, "%s %s failed", c.Workflow, c.Activity)
			assert.Equal(t, temporaladk.TypeGuardrailViolation, c.FailureType)
			assert.Equal(t, kit.identity, c.ScheduledBy, "%s %s: only the kit worker schedules calls of workflow code that calls the kit", c.Workflow, c.Activity)
			if c.StartedBy == plain.identity {
				ranOnPlain++
			}
		}
		assert.Zero(t, identities[plain.identity], "the plain worker completed no workflow task: %v", identities)
		return calls, identities, failedTasks, ranOnPlain, kit
	}

	calls, identities, failed, _, kit := phase("activities-on-kit", rolePlainWorkflows, GuardedRequest{})
	for _, c := range calls {
		assert.True(t, c.NonRetryable, "%s %s: the kit marked the failure non-retryable", c.Workflow, c.Activity)
		assert.Equal(t, kit.identity, c.StartedBy, "the plain worker runs no activity in this phase")
	}
	counts := kit.metrics()
	unplanned := sumMetric(counts, observe.MetricUnplannedCalls, map[string]string{"workflow_type": "GuardedWorkflow"})
	assert.Zero(t, unplanned, "no call arrives without the kit's header")

	calls2, identities2, failed2, ranOnPlain2, kit2 := phase("activities-anywhere", rolePlain, GuardedRequest{UntaggedPolicy: true})

	figure(t, "phase 1 (activities on the kit worker): workflows=%d calls=%d retried=0 (every call attempt 1, asserted) workflow tasks completed kit=%d failed on the plain worker, naming the kit=%d unplanned metric=%d; "+
		"phase 2 (activities anywhere): calls=%d (all attempt 1, all scheduled by the kit worker) attempts run on the plain worker=%d workflow tasks completed kit=%d failed on the plain worker=%d",
		n, len(calls), identities[kit.identity], failed, unplanned, len(calls2), ranOnPlain2, identities2[kit2.identity], failed2)
}

// kitOptionsB is kitOptions after a deploy that changed them: MODEL and
// RETRIEVAL attempts and intervals retuned, Fetch's declaration changed,
// Summarize's dropped (its calls are tagged MODEL).
func kitOptionsB() interceptors.Options {
	opts := kitOptions()
	model := opts.Policies[temporaladk.Model]
	model.Retry.MaxAttempts = 5
	model.Retry.InitialInterval = 50 * time.Millisecond
	model.Retry.MaxInterval = time.Second
	model.StartToClose = 5 * time.Minute
	retrieval := opts.Policies[temporaladk.Retrieval]
	retrieval.Retry.MaxAttempts = 6
	retrieval.Retry.InitialInterval = 20 * time.Millisecond
	retrieval.Retry.MaxInterval = 50 * time.Millisecond
	opts.Policies[temporaladk.Model] = model
	opts.Policies[temporaladk.Retrieval] = retrieval
	opts.Activities["Fetch"] = temporaladk.Declaration{Class: temporaladk.Retrieval, Idempotency: temporaladk.Idempotent, Timeout: 30 * time.Second}
	delete(opts.Activities, "Summarize")
	return opts
}

// kitOptionsDropped is kitOptionsB without Fetch's declaration: Fetch,
// called untagged, is then not the kit's to plan.
func kitOptionsDropped() interceptors.Options {
	opts := kitOptionsB()
	delete(opts.Activities, "Fetch")
	return opts
}

// FetchArgs configures Fetch.
type FetchArgs struct {
	// FailFirst is how many attempts fail with a rate limit asking for
	// RetryAfter.
	FailFirst  int
	RetryAfter time.Duration
}

// Fetch is a read whose class comes from its declaration. Its first attempt
// waits for the gate file, if its worker has one, so that every workflow's
// first attempt fails at once; its first FailFirst attempts fail with a
// rate limit that asks for RetryAfter; the next returns its attempt number.
func (a *Agent) Fetch(ctx context.Context, args FetchArgs) (int, error) {
	a.event(ctx, "started", Event{})
	attempt := int(activity.GetInfo(ctx).Attempt)
	if attempt == 1 && a.gate != "" {
		for {
			if _, err := os.Stat(a.gate); err == nil {
				break
			}
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
	}
	if attempt <= args.FailFirst {
		return 0, &temporaladk.RateLimitError{Provider: "stand-in", RetryAfter: args.RetryAfter, Message: "Too Many Requests"}
	}
	return attempt, nil
}

// Summarize is a MODEL call that succeeds at once.
func (a *Agent) Summarize(ctx context.Context, attempt int) (string, error) {
	a.event(ctx, "started", Event{})
	return fmt.Sprintf("summary of attempt %d", attempt), nil
}

// DeployRequest configures DeployWorkflow. A zero budget means none.
type DeployRequest struct {
	RunBudget int
	Pool      int
	Fetch     FetchArgs
}

// DeployResult is what DeployWorkflow saw.
type DeployResult struct {
	// Fetch is how Fetch ended, FetchAttempt the attempt that succeeded.
	Fetch        Outcome
	FetchAttempt int
	Summary      string
	// RunSpent is what the attempts budget charged, Retries what the pool
	// counted.
	RunSpent, Retries int
}

// DeployWorkflow calls Fetch under the budgets the request asks for and,
// when it succeeds, Summarize.
func DeployWorkflow(ctx workflow.Context, req DeployRequest) (DeployResult, error) {
	ctx, counts, err := withBudgets(ctx, "deploy", req.RunBudget, req.Pool)
	if err != nil {
		return DeployResult{}, err
	}
	var out DeployResult
	ferr := workflow.ExecuteActivity(ctx, (*Agent).Fetch, req.Fetch).Get(ctx, &out.FetchAttempt)
	out.Fetch = outcomeOf(temporaladk.FromApplicationError(ferr))
	if ferr == nil {
		err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), (*Agent).Summarize, out.FetchAttempt).Get(ctx, &out.Summary)
		if err != nil {
			return out, err
		}
	}
	out.RunSpent, out.Retries = counts()
	return out, nil
}

// TestUnplannedMetricCountsOnlyAMixedFleet guards a bug the mixed fleet
// test found, fixed in interceptors: MetricUnplannedCalls says "non-zero
// means a mixed fleet", but a call the kit's workflow side left alone
// (untagged, undeclared, no DefaultClass) carried no header either, and was
// counted on a fleet where every worker runs the kit. Every call a kit
// worker schedules now carries the header (one it leaves alone with no
// class): on an all-kit fleet the metric stays at zero.
func TestUnplannedMetricCountsOnlyAMixedFleet(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	queue := taskQueue(t)
	counts := newCountingMetrics()
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quietLogger(), MetricsHandler: counts})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	registerWorkflows(w)
	w.RegisterActivity(&Agent{emit: func(Event) {}})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, GuardedWorkflow, GuardedRequest{UntaggedPolicy: true})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	unplanned := sumMetric(counts.snapshot(), observe.MetricUnplannedCalls, nil)
	assert.Zero(t, unplanned, "every worker runs the kit: no call is a mixed fleet's, yet %d were counted", unplanned)
}
