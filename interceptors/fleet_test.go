package interceptors_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// errorLog is a log.Logger that hands every Error line to errors, and
// drops the rest.
type errorLog struct{ errors chan string }

func newErrorLog() *errorLog { return &errorLog{errors: make(chan string, 64)} }

func (l *errorLog) Debug(string, ...any) {}
func (l *errorLog) Info(string, ...any)  {}
func (l *errorLog) Warn(string, ...any)  {}
func (l *errorLog) Error(msg string, _ ...any) {
	select {
	case l.errors <- msg:
	default:
	}
}

// next returns the next Error line that contains want, failing the test
// at its context's end.
func (l *errorLog) next(t *testing.T, want string) string {
	t.Helper()
	ctx := testsuite.Context(t)
	for {
		select {
		case msg := <-l.errors:
			if strings.Contains(msg, want) {
				return msg
			}
		case <-ctx.Done():
			t.Fatalf("no Error line containing %q", want)
		}
	}
}

// logged returns the first Error line logged so far that contains want,
// or "".
func (l *errorLog) logged(want string) string {
	for {
		select {
		case msg := <-l.errors:
			if strings.Contains(msg, want) {
				return msg
			}
		default:
			return ""
		}
	}
}

// fleetMetrics records the last value of each gauge and the sum of each
// counter, by name and tags.
type fleetMetrics struct {
	mu     *sync.Mutex
	tags   map[string]string
	values map[string]float64
}

func newFleetMetrics() *fleetMetrics {
	return &fleetMetrics{mu: &sync.Mutex{}, tags: map[string]string{}, values: map[string]float64{}}
}

func (m *fleetMetrics) WithTags(tags map[string]string) client.MetricsHandler {
	merged := map[string]string{}
	for k, v := range m.tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	return &fleetMetrics{mu: m.mu, tags: merged, values: m.values}
}

func (m *fleetMetrics) key(name string) string {
	return fmt.Sprintf("%s%v", name, m.tags)
}

func (m *fleetMetrics) Counter(name string) client.MetricsCounter {
	return counterFunc(func(d int64) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.values[m.key(name)] += float64(d)
	})
}

func (m *fleetMetrics) Gauge(name string) client.MetricsGauge {
	return gaugeFunc(func(v float64) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.values[m.key(name)] = v
	})
}

func (m *fleetMetrics) Timer(string) client.MetricsTimer { return timerFunc(func(time.Duration) {}) }

func (m *fleetMetrics) value(name string, tags map[string]string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.values[fmt.Sprintf("%s%v", name, tags)]
}

// pollers is a FleetOptions.Client that answers every DescribeTaskQueue
// with the same pollers, and counts the calls.
type pollers struct {
	mu         sync.Mutex
	identities []string
	asked      []string
	// read, if not nil, gets a value for each call, when it has room.
	read chan struct{}
}

func (p *pollers) DescribeTaskQueue(_ context.Context, queue string, typ enumspb.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, queue+"/"+typ.String())
	if p.read != nil {
		select {
		case p.read <- struct{}{}:
		default:
		}
	}
	var out []*taskqueuepb.PollerInfo
	for _, id := range p.identities {
		out = append(out, &taskqueuepb.PollerInfo{Identity: id})
	}
	return &workflowservice.DescribeTaskQueueResponse{Pollers: out}, nil
}

// TestUnitFleetOptionsAreChecked: Fleet is whole or unset, and its
// interval is not negative; each mistake is named.
func TestUnitFleetOptionsAreChecked(t *testing.T) {
	t.Parallel()
	c, l, m := &pollers{}, newErrorLog(), client.MetricsNopHandler
	tests := []struct {
		fleet interceptors.FleetOptions
		want  string
	}{
		{interceptors.FleetOptions{Client: c, Logger: l}, "Options.Fleet.MetricsHandler is not set"},
		{interceptors.FleetOptions{Client: c, MetricsHandler: m}, "Options.Fleet.Logger is not set"},
		{interceptors.FleetOptions{Logger: l, MetricsHandler: m}, "Options.Fleet.Client is not set"},
		{interceptors.FleetOptions{Client: (*pollers)(nil), Logger: l, MetricsHandler: m}, "Options.Fleet.Client is not set"},
		{interceptors.FleetOptions{Interval: time.Second}, "Options.Fleet.Interval is set but Options.Fleet.Client is not"},
		{interceptors.FleetOptions{Client: c, Logger: l, MetricsHandler: m, Interval: -time.Second}, "Options.Fleet.Interval is -1s"},
	}
	for _, tt := range tests {
		_, err := interceptors.NewPlugin(interceptors.Options{Fleet: tt.fleet})
		require.Error(t, err, tt.want)
		assert.Contains(t, err.Error(), tt.want)
	}
	_, err := interceptors.NewPlugin(interceptors.Options{Fleet: interceptors.FleetOptions{Client: c, Logger: l, MetricsHandler: m}})
	assert.NoError(t, err, "a whole Fleet")
}

// TestUnitPluginMarksTheWorkerIdentity: the worker's identity ends with
// IdentityMark, once; an unset one is the SDK's default client identity,
// marked.
func TestUnitPluginMarksTheWorkerIdentity(t *testing.T) {
	t.Parallel()
	kit := newKit(t, interceptors.Options{})
	host, err := os.Hostname()
	require.NoError(t, err)
	for given, want := range map[string]string{
		"w":                             "w" + interceptors.IdentityMark,
		"w" + interceptors.IdentityMark: "w" + interceptors.IdentityMark,
		"":                              fmt.Sprintf("%d@%s@%s", os.Getpid(), host, interceptors.IdentityMark),
	} {
		opts := worker.Options{Identity: given}
		require.NoError(t, kit.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerInstanceKey: "k-" + given, TaskQueue: "q", WorkerOptions: &opts}))
		assert.Equal(t, want, opts.Identity, "given %q", given)
	}
}

// TestUnitFleetReportsPlainPollers: a started worker reads its queue's
// pollers at once, for workflow and activity tasks, and reports each
// identity without the mark, by an Error line naming it and the queue and
// by the gauge; the kit's own poller is not reported. After the worker
// stops, no read follows.
func TestUnitFleetReportsPlainPollers(t *testing.T) {
	t.Parallel()
	c := &pollers{identities: []string{"kit-1" + interceptors.IdentityMark, "plain-7"}}
	l, m := newErrorLog(), newFleetMetrics()
	kit := newKit(t, interceptors.Options{Fleet: interceptors.FleetOptions{Client: c, Logger: l, MetricsHandler: m, Interval: time.Hour}})
	opts := worker.Options{Identity: "kit-1"}
	key := "worker-1"
	require.NoError(t, kit.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerInstanceKey: key, TaskQueue: "agents", WorkerOptions: &opts}))
	started := false
	require.NoError(t, kit.StartWorker(context.Background(), worker.PluginStartWorkerOptions{WorkerInstanceKey: key},
		func(context.Context, worker.PluginStartWorkerOptions) error { started = true; return nil }))
	assert.True(t, started, "the worker starts")

	msg := l.next(t, `"plain-7"`)
	assert.Contains(t, msg, `task queue "agents" is polled by 1 worker(s) without the kit`)
	assert.NotContains(t, msg, "kit-1", "the kit's own poller is not reported")
	assert.Equal(t, 1.0, m.value(observe.MetricPlainPollers, map[string]string{"task_queue": "agents"}))

	kit.StopWorker(context.Background(), worker.PluginStopWorkerOptions{WorkerInstanceKey: key}, func(context.Context, worker.PluginStopWorkerOptions) {})
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Equal(t, []string{"agents/Workflow", "agents/Activity"}, c.asked,
		"one read at the start, for both task types; the hour's interval never came")
}

// TestUnitFleetReadsEveryInterval: the worker reads its queue's pollers
// again every Interval until it stops (fleet_internal_test.go holds the
// default).
func TestUnitFleetReadsEveryInterval(t *testing.T) {
	t.Parallel()
	c := &pollers{identities: []string{"plain-7"}, read: make(chan struct{}, 16)}
	kit := newKit(t, interceptors.Options{Fleet: interceptors.FleetOptions{Client: c, Logger: newErrorLog(), MetricsHandler: newFleetMetrics(), Interval: time.Millisecond}})
	opts := worker.Options{}
	require.NoError(t, kit.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerInstanceKey: "w", TaskQueue: "agents", WorkerOptions: &opts}))
	require.NoError(t, kit.StartWorker(context.Background(), worker.PluginStartWorkerOptions{WorkerInstanceKey: "w"},
		func(context.Context, worker.PluginStartWorkerOptions) error { return nil }))
	for range 6 { // three reads, two task types each
		select {
		case <-c.read:
		case <-testsuite.Context(t).Done():
			t.Fatal("the worker did not read its queue three times")
		}
	}
	kit.StopWorker(context.Background(), worker.PluginStopWorkerOptions{WorkerInstanceKey: "w"}, func(context.Context, worker.PluginStopWorkerOptions) {})
}

// FleetGatedTool is an activity a test declares RequiresApproval; it counts
// its runs.
type FleetGatedTool struct{ ran chan string }

// Run is the tool.
func (g *FleetGatedTool) Run(ctx context.Context) (string, error) {
	g.ran <- activity.GetInfo(ctx).WorkflowExecution.RunID
	return "done", nil
}

// FleetGatedWorkflow calls the tool by name, no kit function in its code,
// and then waits for the signal "go".
func FleetGatedWorkflow(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	var out string
	if err := workflow.ExecuteActivity(ctx, "Run").Get(ctx, &out); err != nil {
		return "", err
	}
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
	return out, nil
}

// gatedKitOptions declares Run RequiresApproval, open to anyone.
func gatedKitOptions(fleet interceptors.FleetOptions) interceptors.Options {
	return interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"Run": {Class: temporaladk.Tool, RequiresApproval: true}},
		Approvals:  approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"Run": {Open: true, Required: 1}}},
		Fleet:      fleet,
	}
}

// TestIntegrationMixedQueueIsReported: on the dev server, a worker with the
// kit (activities only) and a plain one (workflows only) on one task
// queue. The kit worker reports the plain worker's identity and the queue,
// and its refusal of the gated call the plain worker scheduled carries
// that identity, as the server recorded the failure.
func TestIntegrationMixedQueueIsReported(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue := "tq-" + t.Name()
	l, m := newErrorLog(), newFleetMetrics()
	kit := newKit(t, gatedKitOptions(interceptors.FleetOptions{Client: c, Logger: l, MetricsHandler: m, Interval: 200 * time.Millisecond}))
	tool := &FleetGatedTool{ran: make(chan string, 4)}
	kw := worker.New(c, queue, worker.Options{Identity: "kit-activities", DisableWorkflowWorker: true, Plugins: []worker.Plugin{kit}})
	kw.RegisterActivity(tool)
	require.NoError(t, kw.Start())
	t.Cleanup(kw.Stop)
	pw := worker.New(c, queue, worker.Options{Identity: "plain-workflows", LocalActivityWorkerOnly: true})
	pw.RegisterWorkflow(FleetGatedWorkflow)
	require.NoError(t, pw.Start())
	t.Cleanup(pw.Stop)

	msg := l.next(t, `"plain-workflows"`)
	assert.Contains(t, msg, fmt.Sprintf("task queue %q", queue))
	assert.NotContains(t, msg, "kit-activities")
	assert.Equal(t, 1.0, m.value(observe.MetricPlainPollers, map[string]string{"task_queue": queue}))

	ctx := testsuite.Context(t)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, FleetGatedWorkflow)
	require.NoError(t, err)
	err = testsuite.WorkflowResult(ctx, t, c, run, nil)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "the call fails: %v", err)
	assert.Equal(t, temporaladk.TypeApprovalNotGranted, app.Type())
	assert.Contains(t, app.Error(), `the kit's worker saw pollers without the kit: task queue "`+queue+`": "plain-workflows"`,
		"the refusal names the worker without the kit")
	assert.Empty(t, tool.ran, "the tool did not run")
	failed := 0
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
			failed++
			assert.Contains(t, a.GetFailure().GetMessage(), `"plain-workflows"`, "as the server recorded it")
		}
	}
	assert.Equal(t, 1, failed)
}

// TestIntegrationUngatedCallIsReported: a plain worker runs a workflow that
// schedules a tool the kit declares RequiresApproval, and the tool, then
// stops; a worker with the kit continues the run, replaying that call,
// which its history shows scheduled without the kit's gate. The kit worker
// reports the call (an Error line naming the run and the tool, the
// counter) once, and the run completes as recorded.
//
// Not parallel: the workers of one process share the SDK's sticky cache,
// so a kit worker in this process would continue the plain worker's
// cached run without replaying it (in a fleet they are two processes).
// The cache is purged once the plain worker has stopped, which the SDK
// allows only while no worker runs: no parallel test has started then.
func TestIntegrationUngatedCallIsReported(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue := "tq-" + t.Name()
	tool := &FleetGatedTool{ran: make(chan string, 4)}
	// Its sticky queue is given up a second after it stops, not five.
	pw := worker.New(c, queue, worker.Options{Identity: "plain", StickyScheduleToStartTimeout: time.Second})
	pw.RegisterWorkflow(FleetGatedWorkflow)
	pw.RegisterActivity(tool)
	require.NoError(t, pw.Start())

	ctx := testsuite.Context(t)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, FleetGatedWorkflow)
	require.NoError(t, err)
	awaitEvent(t, c, run, enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
	pw.Stop()
	worker.PurgeStickyWorkflowCache()
	assert.Equal(t, run.GetRunID(), <-tool.ran, "the tool ran unapproved on the plain worker")

	l, m := newErrorLog(), newFleetMetrics()
	kit := newKit(t, gatedKitOptions(interceptors.FleetOptions{Client: c, Logger: l, MetricsHandler: m, Interval: time.Hour}))
	kw := worker.New(c, queue, worker.Options{Identity: "kit", Plugins: []worker.Plugin{kit}})
	kw.RegisterWorkflow(FleetGatedWorkflow)
	kw.RegisterActivity(tool)
	require.NoError(t, kw.Start())
	t.Cleanup(kw.Stop)
	// The task after the call's completion may still be in the plain
	// worker's hands (Stop does not wait for it): a signal sent before it
	// completes would come back to the plain worker with its completion, as
	// the task that follows it. So the signal waits for that task's end,
	// whichever worker completes it.
	awaitEvents(t, c, run, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 2)
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "go", nil))
	var out string
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &out), "the run goes on as recorded")
	assert.Equal(t, "done", out)

	// Which worker completed which workflow task, as the server recorded
	// it: the kit worker completed one after the plain worker scheduled
	// the call, so it replayed that scheduling.
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var completedBy []string
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			completedBy = append(completedBy, a.GetIdentity())
		}
	}
	require.Equal(t, "plain", completedBy[0], "the plain worker scheduled the call")
	require.Contains(t, completedBy, "kit"+interceptors.IdentityMark, "the kit worker continued the run")
	// The report is logged while the kit worker replays, before it
	// completes its task, so before the run's result: it is here already.
	msg := l.logged("without the kit's approval gate")
	require.NotEmpty(t, msg, "the kit worker reported the ungated call; workflow tasks completed by %v", completedBy)
	assert.Contains(t, msg, run.GetRunID())
	assert.Contains(t, msg, "scheduled activity Run, declared RequiresApproval on this worker")
	assert.Equal(t, 1.0, m.value(observe.MetricUngatedCalls, map[string]string{"workflow_type": "FleetGatedWorkflow", "activity_type": "Run"}))
	assert.Empty(t, tool.ran, "nothing ran again")
}

// TestIntegrationTwoKitsRefusedAtStart: two kits on one worker, also built
// from equal options, make worker.Start return an error naming the
// mistake and the fix, and nothing polls the queue; the replayer's
// construction returns it too.
func TestIntegrationTwoKitsRefusedAtStart(t *testing.T) {
	t.Parallel()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue := "tq-" + t.Name()
	one, other := newKit(t, interceptors.Options{}), newKit(t, interceptors.Options{})
	w := worker.New(c, queue, worker.Options{Identity: "two-kits", Plugins: []worker.Plugin{one, other}})
	w.RegisterWorkflow(FleetGatedWorkflow)
	err := w.Start()
	require.ErrorIs(t, err, interceptors.ErrRegisteredTwice)
	assert.Contains(t, err.Error(), "build the plugin once and give that one value to the worker")
	t.Cleanup(w.Stop)
	for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
		resp, err := c.DescribeTaskQueue(testsuite.Context(t), queue, typ)
		require.NoError(t, err)
		assert.Empty(t, resp.GetPollers(), "nothing polls %v", typ)
	}

	_, err = worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{one, other}})
	require.ErrorIs(t, err, interceptors.ErrRegisteredTwice, "the replayer")

	// The same plugin twice applies once: the worker starts.
	w2 := worker.New(c, queue+"-once", worker.Options{Plugins: []worker.Plugin{one, one}})
	w2.RegisterWorkflow(FleetGatedWorkflow)
	require.NoError(t, w2.Start())
	w2.Stop()
}

// awaitEvent waits, on a long poll of run's history, until an event of typ
// is recorded.
func awaitEvent(t *testing.T, c client.Client, run client.WorkflowRun, typ enumspb.EventType) {
	t.Helper()
	awaitEvents(t, c, run, typ, 1)
}

// awaitEvents waits until the run's history holds n events of type typ.
func awaitEvents(t *testing.T, c client.Client, run client.WorkflowRun, typ enumspb.EventType, n int) {
	t.Helper()
	it := c.GetWorkflowHistory(testsuite.Context(t), run.GetID(), run.GetRunID(), true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if e.GetEventType() == typ {
			if n--; n == 0 {
				return
			}
		}
	}
	t.Fatalf("the run closed with fewer %v events than awaited", typ)
}
