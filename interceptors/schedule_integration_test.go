package interceptors_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// DeadlineWorkflow calls Fail with a jitter window far wider than what is
// left of the workflow's own execution deadline, and no ScheduleToClose.
func DeadlineWorkflow(ctx workflow.Context, scenario string) (runResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Second})
	var out runResult
	out.addErr(workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), (*Activities).Fail, scenario, "provider").Get(ctx, nil))
	return out, nil
}

// TestIntegrationWaitCutToTheWorkflowDeadline: without ScheduleToClose, the
// wait is cut to what is left of the workflow's own execution deadline,
// which the kit writes into the call's ScheduleToClose.
func TestIntegrationWaitCutToTheWorkflowDeadline(t *testing.T) {
	t.Parallel()
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval = 50 * time.Second
	retrieval.Retry.MaxInterval = 60 * time.Second
	r := startWorker(t, interceptors.Options{Policies: policiesOf(retrieval), Random: func() float64 { return 0.9 }})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.taskQueue, TaskQueue: r.taskQueue, WorkflowExecutionTimeout: 20 * time.Second}, DeadlineWorkflow, "deadline")
	require.NoError(t, err)
	var got runResult
	require.NoError(t, run.Get(ctx, &got))
	events := r.history(ctx, run)
	scheduled := testsuite.ScheduledActivities(events, "")
	require.Len(t, scheduled, 1)
	// The workflow set no ScheduleToClose; the kit set it to what was left
	// of the workflow's deadline, as the server recorded it.
	stc := scheduled[0].GetScheduleToCloseTimeout().AsDuration()
	assert.Greater(t, stc, 15*time.Second, "the workflow's deadline, as what was left of it")
	assert.LessOrEqual(t, stc, 20*time.Second)
	require.Len(t, got.Decisions, 1)
	d := got.Decisions[0]
	assert.Equal(t, 45*time.Second, d.Requested, "0.9 of the 50s window")
	assert.True(t, d.Truncated, "cut to the workflow's deadline")
	assert.True(t, d.Final)
	assert.Less(t, d.Wait, 20*time.Second)
	assert.Len(t, r.acts.log.get("deadline"), 1)
}

// PriorityEcho returns the priority its task was dispatched with, as the
// worker reads it from activity.Info.
func PriorityEcho(ctx context.Context, call string) (temporal.Priority, error) {
	return activity.GetInfo(ctx).Priority, nil
}

// PriorityWorkflow makes, for each tenant, a MODEL, a TOOL and a RETRIEVAL
// call, a MODEL call whose caller set its own priority, and an untagged
// call with none; then one MODEL call with no tenant. It returns what each
// activity read from its info, in call order.
func PriorityWorkflow(ctx workflow.Context, tenants []string) ([]temporal.Priority, error) {
	base := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var out []temporal.Priority
	call := func(ctx workflow.Context, name string) error {
		var p temporal.Priority
		if err := workflow.ExecuteActivity(ctx, PriorityEcho, name).Get(ctx, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}
	for _, tenant := range tenants {
		ctx := temporaladk.WithTenant(base, tenant)
		for _, c := range []temporaladk.Class{temporaladk.Model, temporaladk.Tool, temporaladk.Retrieval} {
			if err := call(temporaladk.WithClass(ctx, c), tenant+"/"+c.Lower()); err != nil {
				return out, err
			}
		}
		callers := workflow.WithPriority(ctx, temporal.Priority{PriorityKey: 1, FairnessKey: "vip"})
		if err := call(temporaladk.WithClass(callers, temporaladk.Model), tenant+"/callers"); err != nil {
			return out, err
		}
		if err := call(ctx, tenant+"/untagged"); err != nil {
			return out, err
		}
	}
	return out, call(temporaladk.WithClass(base, temporaladk.Model), "no tenant")
}

// priorityPolicies puts MODEL calls below TOOL calls, with a weight for
// MODEL and a fairness key for RETRIEVAL calls that have no tenant.
func priorityPolicies(t *testing.T) map[temporaladk.Class]policies.ActivityPolicy {
	t.Helper()
	out := map[temporaladk.Class]policies.ActivityPolicy{}
	for c, p := range map[temporaladk.Class]temporal.Priority{
		temporaladk.Model:     {PriorityKey: 4, FairnessWeight: 2},
		temporaladk.Tool:      {PriorityKey: 2},
		temporaladk.Retrieval: {FairnessKey: "reads"},
	} {
		pol, err := policies.Default(c)
		require.NoError(t, err)
		pol.Priority = p
		out[c] = pol
	}
	return out
}

// TestIntegrationPriorityInHistory reads each call's priority back from the
// ActivityTaskScheduled events the dev server recorded: the class's
// priority key, the tenant as fairness key, the caller's own fields over
// both, and nothing at all on a call the kit does not plan. The history
// replays with the plugin.
func TestIntegrationPriorityInHistory(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t)
	opts := interceptors.Options{Policies: priorityPolicies(t)}
	queue := "tq-" + t.Name()
	w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{newKit(t, opts)}})
	w.RegisterWorkflow(PriorityWorkflow)
	w.RegisterActivity(PriorityEcho)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tenants := []string{"acme", "globex"}
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue}, PriorityWorkflow, tenants)
	require.NoError(t, err)
	var seen []temporal.Priority
	require.NoError(t, run.Get(ctx, &seen))
	h, err := testsuite.WorkflowHistory(ctx, srv.Client(), run.GetID(), run.GetRunID())
	require.NoError(t, err)
	scheduled := testsuite.ScheduledActivities(h.GetEvents(), "")

	type want struct {
		key    int32
		fair   string
		weight float32
	}
	var wants []want
	for _, tenant := range tenants {
		wants = append(wants,
			want{4, tenant, 2}, // MODEL: its class's key and weight, the tenant's share
			want{2, tenant, 0}, // TOOL: dispatched before MODEL
			want{0, tenant, 0}, // RETRIEVAL: the tenant over the class's fairness key
			want{1, "vip", 2},  // the caller's key and fairness key win; the weight it left is MODEL's
			want{0, "", 0},     // untagged: left alone
		)
	}
	wants = append(wants, want{4, "", 2}) // MODEL with no tenant: no fairness key
	require.Len(t, scheduled, len(wants))
	require.Len(t, seen, len(wants))
	for i, w := range wants {
		a := scheduled[i]
		name := fmt.Sprintf("call %d (%s)", i, a.GetActivityType().GetName())
		p := a.GetPriority()
		assert.Equal(t, w.key, p.GetPriorityKey(), name)
		assert.Equal(t, w.fair, p.GetFairnessKey(), name)
		assert.Equal(t, w.weight, p.GetFairnessWeight(), name)
		if w == (want{}) {
			assert.Nil(t, p, "%s: a call the kit does not plan carries no priority", name)
		}
		assert.Equal(t, temporal.Priority{PriorityKey: int(w.key), FairnessKey: w.fair, FairnessWeight: w.weight}, seen[i], "%s: the worker is handed what the history holds", name)
		t.Logf("FIGURE %s: priority_key=%d fairness_key=%q fairness_weight=%v", name, p.GetPriorityKey(), p.GetFairnessKey(), p.GetFairnessWeight())
	}

	plugin, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}})
	require.NoError(t, err)
	replayer.RegisterWorkflow(PriorityWorkflow)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, &historypb.History{Events: h.GetEvents()}), "the history replays with the kit")
}

// dispatchLog records the order in which PriorityOrder's calls start.
type dispatchLog struct {
	mu    sync.Mutex
	order []string
}

// Start records call.
func (d *dispatchLog) Start(ctx context.Context, call string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.order = append(d.order, call)
	return nil
}

func (d *dispatchLog) calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.order)
}

// PriorityOrderWorkflow schedules n MODEL and n TOOL calls, interleaved, all
// at once, and waits for them.
func PriorityOrderWorkflow(ctx workflow.Context, n int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var fs []workflow.Future
	for i := range n {
		for _, c := range []temporaladk.Class{temporaladk.Model, temporaladk.Tool} {
			fs = append(fs, workflow.ExecuteActivity(temporaladk.WithClass(ctx, c), (*dispatchLog).Start, fmt.Sprintf("%s-%d", c.Lower(), i)))
		}
	}
	for _, f := range fs {
		if err := f.Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// TestIntegrationPriorityOrdersTheBacklog: on a dev server started with
// matching.useNewMatcher=true, a backlog of MODEL and TOOL calls is
// dispatched TOOL first, as the class priorities say. The backlog is built
// with no activity worker polling, and read one task at a time.
func TestIntegrationPriorityOrdersTheBacklog(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t, testsuite.DevServerOptions{ExtraArgs: []string{"--dynamic-config-value", "matching.useNewMatcher=true"}})
	c := srv.Client()
	kit := newKit(t, interceptors.Options{Policies: priorityPolicies(t)})
	queue := "tq-order"
	wf := worker.New(c, queue, worker.Options{LocalActivityWorkerOnly: true, Plugins: []worker.Plugin{kit}})
	wf.RegisterWorkflow(PriorityOrderWorkflow)
	require.NoError(t, wf.Start())
	t.Cleanup(wf.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 5
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, PriorityOrderWorkflow, n)
	require.NoError(t, err)
	// The backlog is complete once matching holds every call's task: a
	// call the run recorded may still be on its way to matching, and a
	// poller waiting when it arrives takes it at once, ahead of its
	// priority (a sync match). So the wait is on the task queue's backlog,
	// not on the run's pending activities.
	for {
		desc, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
			Namespace:     srv.Namespace(),
			TaskQueue:     &taskqueuepb.TaskQueue{Name: queue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
			TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
			ReportStats:   true,
		})
		require.NoError(t, err)
		if desc.GetStats().GetApproximateBacklogCount() >= 2*n {
			break
		}
		require.NoError(t, ctx.Err(), "the calls never all reached the task queue's backlog")
		time.Sleep(50 * time.Millisecond)
	}
	d := &dispatchLog{}
	acts := worker.New(c, queue, worker.Options{DisableWorkflowWorker: true, MaxConcurrentActivityExecutionSize: 1, Plugins: []worker.Plugin{kit}})
	acts.RegisterActivity(d)
	require.NoError(t, acts.Start())
	t.Cleanup(acts.Stop)
	require.NoError(t, run.Get(ctx, nil))

	order := d.calls()
	t.Logf("FIGURE dispatch order of a backlog of %d MODEL (key 4) and %d TOOL (key 2) calls: %v", n, n, order)
	require.Len(t, order, 2*n)
	for i, call := range order {
		want := "tool-"
		if i >= n {
			want = "model-"
		}
		assert.True(t, strings.HasPrefix(call, want), "dispatch %d is %s, want a %s call", i, call, want)
	}
}
