package payloads_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// TakeoverInput is the by-reference agent's run: how long it talks, how
// much its tool returns, and where it waits for a worker to be replaced.
type TakeoverInput struct {
	Turns     int
	ToolBytes int
	// PauseAt, if positive, is the turn (from 1) at which the run waits for
	// the "resume" signal, after the tool's output is appended and before
	// the model call, so that the next workflow task schedules the model
	// call with the whole conversation.
	PauseAt int
	// PauseBeforeContinue has the first run wait for "resume" where it
	// would first continue as new, at its last turn; the chain then ends
	// one turn into the next run.
	PauseBeforeContinue bool
	// HistoryByteLimit, if set, continues as new when
	// conversation.ShouldContinueAsNew says so by it (and by the replay
	// byte limit, conversation.DefaultReplayByteLimit).
	HistoryByteLimit int
	// Done and Runs are the turns and runs of the chain so far.
	Done, Runs   int
	Conversation *conversation.Log[Message]
}

// pausedMemo is the memo key a waiting run sets to the turn it waits at:
// its WorkflowPropertiesModified event tells the test that the worker
// finished the task that waits, and holds nothing in flight.
const pausedMemo = "paused"

// TakeoverAgent re-sends its whole conversation to the model every turn, as
// Agent does, but the conversation is a conversation.Log handed to the model
// by reference, and the run can wait for a worker to be replaced.
func TakeoverAgent(ctx workflow.Context, in TakeoverInput) (AgentResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	conv := in.Conversation
	if conv == nil {
		conv = conversation.NewLog[Message]()
		if err := conv.Append(ctx, Message{Role: "system", Content: "You are a research agent. Call the search tool, then summarise."}); err != nil {
			return AgentResult{}, err
		}
	}
	if in.HistoryByteLimit != 0 {
		var err error
		if ctx, err = conversation.WithHistoryByteLimit(ctx, in.HistoryByteLimit); err != nil {
			return AgentResult{}, err
		}
	}
	for turn := in.Done + 1; turn <= in.Turns; turn++ {
		var out string
		if err := workflow.ExecuteActivity(ctx, Search, turn-1, in.ToolBytes).Get(ctx, &out); err != nil {
			return AgentResult{}, err
		}
		if err := conv.Append(ctx, Message{Role: "tool", Content: out}); err != nil {
			return AgentResult{}, err
		}
		if turn == in.PauseAt {
			if err := pause(ctx, turn); err != nil {
				return AgentResult{}, err
			}
		}
		var reply string
		if err := workflow.ExecuteActivity(ctx, ModelLog, conv).Get(ctx, &reply); err != nil {
			return AgentResult{}, err
		}
		if err := conv.Append(ctx, Message{Role: "assistant", Content: reply}); err != nil {
			return AgentResult{}, err
		}
		if in.HistoryByteLimit != 0 && turn < in.Turns && conversation.ShouldContinueAsNew(ctx) {
			next := in
			next.Done, next.Runs, next.Conversation = turn, in.Runs+1, conv
			if in.PauseBeforeContinue && in.Runs == 0 {
				if err := pause(ctx, turn); err != nil {
					return AgentResult{}, err
				}
				next.Turns = turn + 1
			}
			return AgentResult{}, conversation.ContinueAsNew(ctx, TakeoverAgent, next)
		}
	}
	return AgentResult{Turns: in.Turns}, nil
}

// pause records the turn in the run's memo and waits for "resume".
func pause(ctx workflow.Context, turn int) error {
	if err := workflow.UpsertMemo(ctx, map[string]any{pausedMemo: turn}); err != nil {
		return err
	}
	workflow.GetSignalChannel(ctx, "resume").Receive(ctx, nil)
	return nil
}

// ModelLog reads the whole conversation from its Log and answers as Model.
func ModelLog(ctx context.Context, conv *conversation.Log[Message]) (string, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return "", err
	}
	return Model(ctx, msgs)
}

// registerTakeover registers the by-reference agent and its activities.
func registerTakeover(w worker.Worker) {
	w.RegisterWorkflow(TakeoverAgent)
	w.RegisterActivity(Search)
	w.RegisterActivity(ModelLog)
}

// awaitPause follows the chain from runID until a run records that it
// waits (its memo's WorkflowPropertiesModified event, written by the task
// that then waits), and returns that run's ID. Its wait ends on the event:
// the history is read by long poll.
func awaitPause(ctx context.Context, c client.Client, workflowID, runID string) (string, error) {
	for {
		it := c.GetWorkflowHistory(ctx, workflowID, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		next := ""
		for it.HasNext() && next == "" {
			e, err := it.Next()
			if err != nil {
				return "", err
			}
			switch {
			case e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
				return runID, nil
			case e.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
				next = e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
			case e.GetWorkflowExecutionCompletedEventAttributes() != nil, e.GetWorkflowExecutionFailedEventAttributes() != nil,
				e.GetWorkflowExecutionTerminatedEventAttributes() != nil, e.GetWorkflowExecutionTimedOutEventAttributes() != nil:
				return "", fmt.Errorf("run %s of %s closed (%v) before it paused", runID, workflowID, e.GetEventType())
			}
		}
		if next == "" {
			return "", errors.New("history ended before the run paused")
		}
		runID = next
	}
}

// firstTaskOf is the first workflow task whose start the server recorded
// for a worker whose identity starts with prefix: its start and completion,
// as the server recorded them.
func firstTaskOf(h *historypb.History, prefix string) (started, completed time.Time, ok bool) {
	var startedID int64
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowTaskStartedEventAttributes(); a != nil && startedID == 0 && len(a.GetIdentity()) >= len(prefix) && a.GetIdentity()[:len(prefix)] == prefix {
			startedID, started = e.GetEventId(), e.GetEventTime().AsTime()
		}
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil && startedID != 0 && a.GetStartedEventId() == startedID {
			return started, e.GetEventTime().AsTime(), true
		}
	}
	return time.Time{}, time.Time{}, false
}

// countingConverter counts the bytes of every payload its parent encodes.
type countingConverter struct {
	converter.DataConverter
	bytes *atomic.Int64
}

func (c countingConverter) ToPayload(v any) (*commonpb.Payload, error) {
	p, err := c.DataConverter.ToPayload(v)
	c.bytes.Add(int64(len(p.GetData())))
	return p, err
}

func (c countingConverter) ToPayloads(vs ...any) (*commonpb.Payloads, error) {
	ps, err := c.DataConverter.ToPayloads(vs...)
	for _, p := range ps.GetPayloads() {
		c.bytes.Add(int64(len(p.GetData())))
	}
	return ps, err
}

func (c countingConverter) WithWorkflowContext(ctx workflow.Context) converter.DataConverter {
	if p, ok := c.DataConverter.(workflow.ContextAware); ok {
		return countingConverter{p.WithWorkflowContext(ctx), c.bytes}
	}
	return c
}

func (c countingConverter) WithContext(ctx context.Context) converter.DataConverter {
	if p, ok := c.DataConverter.(workflow.ContextAware); ok {
		return countingConverter{p.WithContext(ctx), c.bytes}
	}
	return c
}

// A worker that takes a run over at turn 40 (a new worker, its own client
// and store on the same bucket, the first worker stopped) replays the run
// in one workflow task and schedules the model call with the whole
// conversation: what it encodes after the takeover, and what it hands the
// bucket, is about one turn, not the conversation. Its first live call
// hands over the Log its replay appended to, checking the newest segments
// first: it finds what the first worker wrote with one check more than a
// turn of the first worker makes, not one for every segment it appended
// again. The first worker encoded the conversation's 40 tool outputs.
func TestTakeoverByANewWorkerEncodesOneTurn(t *testing.T) {
	t.Parallel()
	const turns, toolBytes = 40, 50_000
	ctx := testsuite.Context(t)
	dir := t.TempDir()
	storeA, _ := newDirStore(t, dir, 0)
	cA := dial(t, storeA)
	q := queue("takeover")
	a := worker.New(cA, q, kitWorkerOptions(t))
	registerTakeover(a)
	require.NoError(t, a.Start())
	run, err := cA.ExecuteWorkflow(ctx, startOptions(q, q), TakeoverAgent, TakeoverInput{Turns: turns, ToolBytes: toolBytes, PauseAt: turns})
	require.NoError(t, err)
	_, err = awaitPause(ctx, cA, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	a.Stop()
	writtenByA := storeA.Stats().BytesStored
	checksPerTurnOfA := (storeA.Stats().StatChecks + turns - 1) / turns

	// The new worker, on the same bucket, with a converter that counts.
	var encoded atomic.Int64
	storeB, _ := newDirStore(t, dir, 0)
	srv := testsuite.DevServerFor(t)
	opts, err := storeB.ClientOptions(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quietLogger(),
		ConnectionOptions: loopback, DataConverter: countingConverter{converter.GetDefaultDataConverter(), &encoded}})
	require.NoError(t, err)
	cB, err := client.Dial(opts)
	require.NoError(t, err)
	defer cB.Close()
	bOpts := kitWorkerOptions(t)
	bOpts.Identity = "the new worker"
	b := worker.New(cB, q, bOpts)
	registerTakeover(b)
	require.NoError(t, b.Start())
	defer b.Stop()
	require.NoError(t, cA.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "resume", nil))
	var res AgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, cA, run, &res))
	require.Equal(t, turns, res.Turns)

	h, err := testsuite.WorkflowHistory(ctx, cA, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	started, completed, ok := firstTaskOf(h, "the new worker")
	require.True(t, ok, "the new worker completed no workflow task")
	st := storeB.Stats()
	t.Logf("takeover at turn %d: the first worker stored %d bytes, checking %d objects a turn; the new worker encoded %d bytes, stored %d, checked %d objects; its first task took %v",
		turns, writtenByA, checksPerTurnOfA, encoded.Load(), st.BytesStored, st.StatChecks, completed.Sub(started))
	require.GreaterOrEqual(t, writtenByA, int64(turns*toolBytes))
	require.Less(t, encoded.Load(), int64(toolBytes), "the new worker encoded more than one tool output")
	require.LessOrEqual(t, st.BytesStored, int64(toolBytes+4096), "the new worker stored more than the turn's segments")
	require.LessOrEqual(t, st.StatChecks, checksPerTurnOfA+2, "the new worker checked more in the bucket than a turn of the first worker and the newest segments")
}

// The worker process of BenchmarkTakeover: the test binary run again with
// these set in its environment.
const (
	takeoverQueueEnv     = "TEMPORALADK_TAKEOVER_QUEUE"
	takeoverHostPortEnv  = "TEMPORALADK_TAKEOVER_HOSTPORT"
	takeoverNamespaceEnv = "TEMPORALADK_TAKEOVER_NAMESPACE"
	takeoverBucketEnv    = "TEMPORALADK_TAKEOVER_BUCKET"
	// TEMPORALADK_TAKEOVER_CPUPROFILE, if set, is a directory where each
	// worker process that stops writes its CPU profile, cpu-PID.out.
	takeoverProfileEnv = "TEMPORALADK_TAKEOVER_CPUPROFILE"
)

// takeoverWorker runs a kit worker of the by-reference agent on the
// directory bucket its environment names, prints "started", and stops when
// its stdin closes.
func takeoverWorker() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "takeover worker:", err)
		return 1
	}
	if dir := os.Getenv(takeoverProfileEnv); dir != "" {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.out", os.Getpid())))
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	b, err := payloads.NewDirBucket(os.Getenv(takeoverBucketEnv))
	if err != nil {
		return fail(err)
	}
	store, err := payloads.NewStore(payloads.Options{Bucket: b})
	if err != nil {
		return fail(err)
	}
	opts, err := store.ClientOptions(client.Options{HostPort: os.Getenv(takeoverHostPortEnv), Namespace: os.Getenv(takeoverNamespaceEnv),
		Logger: quietLogger(), RPCTimeout: 2 * time.Minute, ConnectionOptions: loopback})
	if err != nil {
		return fail(err)
	}
	c, err := client.Dial(opts)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	if err != nil {
		return fail(err)
	}
	w := worker.New(c, os.Getenv(takeoverQueueEnv), worker.Options{Plugins: []worker.Plugin{kit}})
	registerTakeover(w)
	if err := w.Start(); err != nil {
		return fail(err)
	}
	fmt.Println("started")
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	return 0
}
