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
// saw both calls blocked by the guardrail, and returns their calls and the
// workflow task identities of their histories.
func runGuarded(t *testing.T, c client.Client, queue string, n int, req GuardedRequest) ([]activityCall, map[string]int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runs := make([]client.WorkflowRun, n)
	for i := range runs {
		var err error
		runs[i], err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, i), TaskQueue: queue}, GuardedWorkflow, req)
		require.NoError(t, err)
	}
	var calls []activityCall
	identities := map[string]int{}
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
		assert.Zero(t, failed, "%s: no workflow task failed", run.GetID())
		assert.Empty(t, timedOut, "%s: no workflow task timed out", run.GetID())
	}
	require.Len(t, calls, 2*n, "two calls per workflow")
	return calls, identities
}

// TestMixedFleetNeverRetriesANeverRetryableError runs a rolling deploy: one
// worker process with the kit and one without on one task queue, and
// workflows whose calls a guardrail blocks under retry policies that allow
// many attempts. Read from the server's history, every call the kit could
// see ran exactly once, whichever worker ran the workflow task, and the kit
// worker's metric shows the mixed fleet.
//
// Phase "activities on the kit": the plain worker runs workflow tasks only,
// so every attempt runs on the kit worker, the case the kit promises. Phase
// "activities anywhere": the plain worker runs activities too; a call the
// kit never sees (workflow task and attempt both on the plain worker) is
// Temporal's to retry, and the test shows that any attempt the kit ran, or
// any call a kit workflow task scheduled (tagged, or untagged: its retry
// policy carries the never-retryable types too), was the call's last.
func TestMixedFleetNeverRetriesANeverRetryableError(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	const n = 24

	// Phase 1: every activity runs on the kit worker.
	queue := taskQueue(t) + "-activities-on-kit"
	kit := startRoleProcess(t, srv, queue, roleKit)
	plain := startRoleProcess(t, srv, queue, rolePlainWorkflows)
	calls, identities := runGuarded(t, srv.Client(), queue, n, GuardedRequest{})
	scheduledByPlain := map[string]int{}
	untaggedByKit := 0
	for _, c := range calls {
		assert.Equal(t, int32(1), c.Attempt, "%s %s (scheduled by %s, ran on %s) ran exactly once", c.Workflow, c.Activity, c.ScheduledBy, c.StartedBy)
		assert.True(t, c.Failed, "%s %s failed", c.Workflow, c.Activity)
		assert.Equal(t, temporaladk.TypeGuardrailViolation, c.FailureType)
		assert.True(t, c.NonRetryable, "%s %s: the kit marked the failure non-retryable", c.Workflow, c.Activity)
		assert.Equal(t, kit.identity, c.StartedBy, "the plain worker runs no activity in this phase")
		if c.ScheduledBy == plain.identity {
			scheduledByPlain[c.Activity]++
		}
		if c.ScheduledBy == kit.identity && c.Activity == "GuardUntagged" {
			untaggedByKit++
		}
	}
	assert.Positive(t, identities[kit.identity], "some workflow tasks ran on the kit worker: %v", identities)
	assert.Positive(t, identities[plain.identity], "some workflow tasks ran on the plain worker: %v", identities)
	require.Positive(t, scheduledByPlain["GuardTagged"], "some tagged calls were scheduled by the plain worker")
	counts := kit.metrics()
	unplannedTagged := sumMetric(counts, interceptors.MetricUnplannedCalls, map[string]string{"workflow_type": "GuardedWorkflow", "activity_type": "GuardTagged"})
	unplannedUntagged := sumMetric(counts, interceptors.MetricUnplannedCalls, map[string]string{"workflow_type": "GuardedWorkflow", "activity_type": "GuardUntagged"})
	assert.Equal(t, int64(scheduledByPlain["GuardTagged"]), unplannedTagged,
		"the kit worker counts exactly the tagged calls whose workflow task ran on the plain worker")
	assert.Equal(t, int64(scheduledByPlain["GuardUntagged"]), unplannedUntagged,
		"and exactly the untagged ones: an untagged call a kit worker scheduled carries the header")

	// Phase 2: the plain worker runs activities too.
	queue2 := taskQueue(t) + "-activities-anywhere"
	kit2 := startRoleProcess(t, srv, queue2, roleKit)
	plain2 := startRoleProcess(t, srv, queue2, rolePlain)
	calls2, identities2 := runGuarded(t, srv.Client(), queue2, n, GuardedRequest{UntaggedPolicy: true})
	kitAttempts := map[string][]int{} // workflow/activity → the attempts the kit worker ran
	for _, ev := range kit2.drain() {
		if ev.Kind == "started" {
			kitAttempts[ev.Workflow+"/"+ev.Activity] = append(kitAttempts[ev.Workflow+"/"+ev.Activity], ev.Attempt)
		}
	}
	plainAttempts := map[string][]int{}
	for _, ev := range plain2.drain() {
		if ev.Kind == "started" {
			plainAttempts[ev.Workflow+"/"+ev.Activity] = append(plainAttempts[ev.Workflow+"/"+ev.Activity], ev.Attempt)
		}
	}
	var kitScheduledTagged, kitScheduledUntagged, ranOnKit, extraAttempts int
	retried := map[string]int{} // by activity type
	for _, c := range calls2 {
		key := c.Workflow + "/" + c.Activity
		assert.True(t, c.Failed, "%s failed", key)
		assert.Equal(t, temporaladk.TypeGuardrailViolation, c.FailureType)
		if c.ScheduledBy == kit2.identity {
			if c.Activity == "GuardTagged" {
				kitScheduledTagged++
			} else {
				kitScheduledUntagged++
			}
			assert.Equal(t, int32(1), c.Attempt, "%s: scheduled by the kit, it ran exactly once (on %s)", key, c.StartedBy)
		}
		for _, a := range kitAttempts[key] {
			ranOnKit++
			assert.Equal(t, int(c.Attempt), a, "%s: the attempt the kit ran (%d) was the call's last (%d)", key, a, c.Attempt)
		}
		if c.Attempt > 1 {
			retried[c.Activity]++
			extraAttempts += int(c.Attempt) - 1
			for _, a := range plainAttempts[key] {
				assert.LessOrEqual(t, a, int(c.Attempt))
			}
			assert.Len(t, plainAttempts[key], int(c.Attempt)-len(kitAttempts[key]), "%s: every earlier attempt ran on the plain worker", key)
			assert.Equal(t, plain2.identity, c.ScheduledBy, "%s: a retried call was scheduled by the plain worker", key)
		}
	}
	assert.Positive(t, identities2[kit2.identity], "some workflow tasks ran on the kit worker: %v", identities2)
	assert.Positive(t, identities2[plain2.identity], "some workflow tasks ran on the plain worker: %v", identities2)
	assert.Positive(t, kitScheduledTagged, "some tagged calls were scheduled by the kit worker")
	assert.Positive(t, kitScheduledUntagged, "some untagged calls were scheduled by the kit worker")
	assert.Positive(t, ranOnKit, "some attempts ran on the kit worker")

	figure(t, "phase 1 (activities on the kit worker): workflows=%d calls=%d retried=0 (every call attempt 1, asserted) workflow tasks kit/plain=%d/%d tagged calls scheduled by plain=%d unplanned metric GuardTagged=%d GuardUntagged=%d (untagged calls the kit worker scheduled, not counted: %d); "+
		"phase 2 (activities anywhere): calls=%d scheduled by kit tagged/untagged=%d/%d (all attempt 1) attempts run on kit=%d (all final) retried, all scheduled by the plain worker: tagged=%d untagged=%d (%d extra attempts) workflow tasks kit/plain=%d/%d",
		n, len(calls), identities[kit.identity], identities[plain.identity], scheduledByPlain["GuardTagged"], unplannedTagged, unplannedUntagged, untaggedByKit,
		len(calls2), kitScheduledTagged, kitScheduledUntagged, ranOnKit, retried["GuardTagged"], retried["GuardUntagged"], extraAttempts, identities2[kit2.identity], identities2[plain2.identity])
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
	UsePool   bool
	Fetch     FetchArgs
}

// DeployResult is what DeployWorkflow saw.
type DeployResult struct {
	// Fetch is how Fetch ended, FetchAttempt the attempt that succeeded.
	Fetch        Outcome
	FetchAttempt int
	Summary      string
	// RunSpent is what the RunBudget charged; FirstAttempts and Retries
	// what the pool counted.
	RunSpent, FirstAttempts, Retries int
}

// DeployWorkflow calls Fetch under the budgets the request asks for and,
// when it succeeds, Summarize.
func DeployWorkflow(ctx workflow.Context, req DeployRequest) (DeployResult, error) {
	ctx, counts, err := withBudgets(ctx, req.RunBudget, req.Pool, req.UsePool)
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
	out.RunSpent, out.FirstAttempts, out.Retries = counts()
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
	kit, err := interceptors.New(kitOptions())
	require.NoError(t, err)
	w := worker.New(c, queue, kit.WorkerOptions(worker.Options{}))
	registerWorkflows(w)
	w.RegisterActivity(&Agent{emit: func(Event) {}})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, GuardedWorkflow, GuardedRequest{UntaggedPolicy: true})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	unplanned := sumMetric(counts.snapshot(), interceptors.MetricUnplannedCalls, nil)
	assert.Zero(t, unplanned, "every worker runs the kit: no call is a mixed fleet's, yet %d were counted", unplanned)
}
