package payloads_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/proxy"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/history"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

var queueSeq atomic.Int64

func queue(name string) string {
	return fmt.Sprintf("%s-%d-%d", name, time.Now().UnixNano(), queueSeq.Add(1))
}

// agentTaskTimeout is the workflow task timeout of the tests' long runs. A
// worker that misses its sticky cache (on a busy machine the sticky task can
// wait past its 5 s schedule-to-start timeout) replays the whole run in one
// workflow task, and the replay encodes every model input the run scheduled
// again: the whole conversation, every turn. For the 100-turn stored run that
// is about 250 MB of JSON, about 16 s under the race detector on an idle
// 2-core machine, past the 10 s default: an attempt times out and the next
// replays from the start again, on a loaded machine without end. The
// server's largest timeout leaves room for the load.
const agentTaskTimeout = 2 * time.Minute

// startOptions starts a test's run on q with the workflow ID id and
// agentTaskTimeout.
func startOptions(q, id string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{TaskQueue: q, ID: id, WorkflowTaskTimeout: agentTaskTimeout}
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(testWriter{}, &slog.HandlerOptions{Level: slog.LevelError + 8})))
}

type testWriter struct{}

func (testWriter) Write(p []byte) (int, error) { return len(p), nil }

// loopback is the tests' connection to their dev server: uncompressed, as
// the dev server's own client is (testsuite.DevServerOptions.ClientOptions).
// The SDK's default, gzip, compresses the plain run's model inputs (up to
// 2 MiB a request) in the worker and again in the server, for nothing on
// loopback: under the race detector it was a fifth of the package's CPU.
var loopback = client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{}}

// dial connects to the shared dev server, through store when it is not nil.
func dial(t testing.TB, store *payloads.Store) client.Client {
	t.Helper()
	srv := testsuite.DevServerFor(t)
	// A page of the plain run's history (its model inputs inline, tens of
	// MB) can take a loaded machine under the race detector longer than the
	// SDK's 10 s RPC timeout to serve and decode.
	opts := client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quietLogger(), RPCTimeout: 2 * time.Minute, ConnectionOptions: loopback}
	if store != nil {
		var err error
		opts, err = store.ClientOptions(opts)
		require.NoError(t, err)
	}
	c, err := client.Dial(opts)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func startWorker(t testing.TB, c client.Client, taskQueue string) worker.Worker {
	t.Helper()
	w := worker.New(c, taskQueue, kitWorkerOptions(t))
	w.RegisterWorkflow(Agent)
	w.RegisterWorkflow(LogAgent)
	w.RegisterActivity(Search)
	w.RegisterActivity(Model)
	w.RegisterActivity(LogModel)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return w
}

// kitWorkerOptions are a worker's options with the kit's plugin: Agent
// counts its history through the conversation package, which refuses to run
// without the kit's interceptor.
func kitWorkerOptions(t testing.TB) worker.Options {
	t.Helper()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	return worker.Options{Plugins: []worker.Plugin{kit}}
}

func newDirStore(t testing.TB, dir string, cacheBytes int64) (*payloads.Store, *payloads.DirBucket) {
	t.Helper()
	b, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	s, err := payloads.NewStore(payloads.Options{Bucket: b, CacheBytes: cacheBytes})
	require.NoError(t, err)
	return s, b
}

func bucketSize(t testing.TB, b payloads.Bucket) int64 {
	t.Helper()
	var n int64
	require.NoError(t, b.List(context.Background(), "", func(o payloads.Object) error {
		n += o.Size
		return nil
	}))
	return n
}

// completed counts the activities of a type the run completed, from its
// history as the server holds it.
func completed(t testing.TB, h *historypb.History, activityType string) int {
	t.Helper()
	scheduled := map[int64]string{}
	n := 0
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] == activityType {
			n++
		}
	}
	return n
}

// sdkClaims counts the SDK's external storage references in h.
func sdkClaims(t testing.TB, h *historypb.History) int {
	t.Helper()
	n := 0
	for _, e := range h.GetEvents() {
		require.NoError(t, proxy.VisitPayloads(context.Background(), e, proxy.VisitPayloadsOptions{
			Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
				for _, p := range ps {
					if string(p.GetMetadata()["messageType"]) == "temporal.api.sdk.v1.ExternalStorageReference" {
						n++
					}
				}
				return ps, nil
			},
		}))
	}
	return n
}

func lastEvent(h *historypb.History) *historypb.HistoryEvent {
	return h.GetEvents()[len(h.GetEvents())-1]
}

// TestPlainRunIsTerminatedAtTurn42 is the run the store exists for: inline,
// the model's input passes the server's 2 MiB payload limit at turn 42.
func TestPlainRunIsTerminatedAtTurn42(t *testing.T) {
	t.Parallel()
	ctx := testsuite.Context(t)
	c := dial(t, nil)
	q := queue("plain")
	startWorker(t, c, q)
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), Agent, AgentInput{Turns: 60, ToolBytes: 50_000})
	require.NoError(t, err)
	require.Error(t, testsuite.WorkflowResult(ctx, t, c, run, nil))
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	last := lastEvent(h)
	reason := last.GetWorkflowExecutionTerminatedEventAttributes().GetReason()
	t.Logf("plain run: %d turns, then %v: %v", completed(t, h, "Model"), last.GetEventType(), reason)
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, last.GetEventType())
	require.Contains(t, reason, "Input exceeds size limit")
	// 41 turns done; the model call of turn 42 is never scheduled.
	require.Equal(t, 41, completed(t, h, "Model"))
	require.Equal(t, 42, completed(t, h, "Search"))
}

// TestStoredConversationPassesTurn42 runs the same agent with the store for
// 100 turns and checks the per-turn properties the 1,000-turn benchmark
// checks: history per turn, stored bytes against the conversation, bytes
// read against bytes decoded, and a replay of the history. At turn
// takeOver the worker is deployed again, as a fleet's workers are: the new
// one replays the whole run in one workflow task (agentTaskTimeout) and
// carries it to the end.
func TestStoredConversationPassesTurn42(t *testing.T) {
	t.Parallel()
	const turns, toolBytes, takeOver = 100, 50_000, 90
	ctx := testsuite.Context(t)
	// A cache far smaller than the conversation, so that reads reach the
	// bucket and the bound on them means something.
	store, bucket := newDirStore(t, t.TempDir(), 4<<20)
	c := dial(t, store)
	q := queue("stored")
	// The store's counters at the start of every turn (its Search call), so
	// that reads are bounded turn by turn, not only in sum.
	var mu sync.Mutex
	var marks []payloads.Stats
	deploy := make(chan struct{}, 1)
	newWorker := func(identity string) worker.Worker {
		opts := kitWorkerOptions(t)
		opts.Identity = identity
		// Stop lets the Search in flight report its result.
		opts.WorkerStopTimeout = time.Minute
		w := worker.New(c, q, opts)
		w.RegisterWorkflow(Agent)
		w.RegisterActivity(Model)
		w.RegisterActivityWithOptions(func(ctx context.Context, turn, size int) (string, error) {
			mu.Lock()
			marks = append(marks, store.Stats())
			mu.Unlock()
			if turn == takeOver {
				select { // once, whatever the attempt
				case deploy <- struct{}{}:
				default:
				}
			}
			return Search(ctx, turn, size)
		}, activity.RegisterOptions{Name: "Search"})
		require.NoError(t, w.Start())
		return w
	}
	first := newWorker("before the deploy")
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), Agent, AgentInput{Turns: turns, ToolBytes: toolBytes})
	require.NoError(t, err)
	select {
	case <-deploy:
	case <-ctx.Done():
		// The wait has ended: this fails the test with what the run's
		// workflow tasks did, or returns how the run ended.
		t.Fatalf("turn %d not reached: the run ended with %v", takeOver, testsuite.WorkflowResult(ctx, t, c, run, nil))
	}
	first.Stop()
	defer newWorker("after the deploy").Stop()
	var res AgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &res))
	require.Equal(t, turns, res.Turns)
	// As the server recorded it: each worker completed workflow tasks, the
	// new one the last, and no task the new worker started, its replay
	// included, outlasted agentTaskTimeout. A task the old worker started
	// may have: one its last poll took as it stopped, which the server gives
	// to another worker only once it times out, as in any deploy.
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	tasks := map[string]int{}
	last := ""
	var takeOverTask time.Duration // the new worker's first task: the replay
	type startedTask struct {
		at       time.Time
		identity string
	}
	started := map[int64]startedTask{}
	lost := 0
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowTaskStartedEventAttributes(); a != nil {
			started[e.GetEventId()] = startedTask{e.GetEventTime().AsTime(), a.GetIdentity()}
		}
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			if a.GetIdentity() == "after the deploy"+interceptors.IdentityMark && tasks[a.GetIdentity()] == 0 {
				takeOverTask = e.GetEventTime().AsTime().Sub(started[a.GetStartedEventId()].at)
			}
			tasks[a.GetIdentity()]++
			last = a.GetIdentity()
		}
		if a := e.GetWorkflowTaskTimedOutEventAttributes(); a != nil && a.GetTimeoutType() == enumspb.TIMEOUT_TYPE_START_TO_CLOSE {
			by := started[a.GetStartedEventId()].identity
			require.Equal(t, "before the deploy"+interceptors.IdentityMark, by, "event %d: a workflow task started by %q outlasted %v", e.GetEventId(), by, agentTaskTimeout)
			lost++
		}
	}
	start := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	require.Equal(t, agentTaskTimeout, start.GetWorkflowTaskTimeout().AsDuration(), "the workflow task timeout as the server records it")
	t.Logf("workflow tasks completed by each worker: %v; the new worker's replay of turns 1–%d took %v of its %v (the server's event times); tasks lost by the stopping worker: %d", tasks, takeOver, takeOverTask.Round(time.Millisecond), agentTaskTimeout, lost)
	require.Len(t, tasks, 2)
	require.Equal(t, "after the deploy"+interceptors.IdentityMark, last, "the kit marks its workers' identity")

	desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	historyBytes := desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
	stored := bucketSize(t, bucket)
	st := store.Stats()
	t.Logf("stored run: %d turns; history %d bytes (%d per turn, %d events); bucket %d bytes for a %d-byte conversation (%.3f×); read %d bytes from the bucket for %d decoded (%.3f×); %d bytes given to the store",
		turns, historyBytes, historyBytes/turns, desc.GetWorkflowExecutionInfo().GetHistoryLength(), stored, res.ConversationBytes, float64(stored)/float64(res.ConversationBytes),
		st.BytesRead, st.BytesDecoded, float64(st.BytesRead)/float64(st.BytesDecoded), st.BytesStored)
	require.LessOrEqual(t, historyBytes/turns, int64(4096))
	require.LessOrEqual(t, float64(stored), 1.5*float64(res.ConversationBytes))
	require.Positive(t, st.BytesRead)
	require.LessOrEqual(t, float64(st.BytesRead), 2*float64(st.BytesDecoded))
	marks = append(marks, st)
	worst := 0.0
	for i := 1; i < len(marks); i++ {
		read, decoded := marks[i].BytesRead-marks[i-1].BytesRead, marks[i].BytesDecoded-marks[i-1].BytesDecoded
		require.LessOrEqual(t, float64(read), 2*float64(decoded), "turn %d read %d bytes for %d decoded", i, read, decoded)
		if decoded > 0 {
			worst = max(worst, float64(read)/float64(decoded))
		}
	}
	t.Logf("per turn, the most read against decoded: %.3f×", worst)

	// The history replays, with the store, from a file as recorded: ReplayDir
	// replays the directory's one file with ReplayFile. (Each replay of the
	// 100 turns takes seconds under the race detector, so the file is
	// replayed once, not once by each.)
	path := filepath.Join(t.TempDir(), "agent.json")
	require.NoError(t, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
	replayer, _ := newDirStore(t, bucket.Dir(), 4<<20)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Agent}}}
	opts.ExternalStorage, opts.DataConverter, err = replayer.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayDir(filepath.Dir(path), opts))
	// It read what the workflow decodes: every tool output and the replies,
	// not the model inputs it scheduled.
	rs := replayer.Stats()
	t.Logf("replay: decoded %d bytes, read %d", rs.BytesDecoded, rs.BytesRead)
	require.GreaterOrEqual(t, rs.BytesDecoded, int64(turns*toolBytes))
	require.Less(t, rs.BytesDecoded, int64(2*turns*toolBytes))

	// A history handed to the replayer keeps its claims: the SDK resolves
	// them in place, so the kit replays a copy.
	claims := sdkClaims(t, h)
	require.GreaterOrEqual(t, claims, 2*turns)
	require.NoError(t, history.Replay(h, history.ReplayOptions{
		Workflows: []history.Workflow{{Func: Agent}}, DataConverter: opts.DataConverter, ExternalStorage: opts.ExternalStorage,
	}))
	require.Equal(t, claims, sdkClaims(t, h))
}
