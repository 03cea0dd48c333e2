package payloads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/testsuite"
)

// SubAgentInput is a parent's run: the messages it appends before and
// after its sub-agent, the sub-agent's own, their size, and the task queue
// the sub-agent runs on.
type SubAgentInput struct {
	Turns, ChildTurns, MessageBytes int
	ChildQueue                      string
}

// SubAgentResult is how many messages each branch's last read found: the
// parent's, which went on from where the child started, and the child's,
// returned to the parent.
type SubAgentResult struct {
	Parent, Child int
}

// BranchPart is a run of messages a branch holds: Count messages appended
// by Name, numbered from 0.
type BranchPart struct {
	Name  string
	Count int
}

// SubAgentParent appends its turns, starts SubAgent with its Log, then
// appends one more message to its own Log and reads both branches: its own
// and the one the child returned.
func SubAgentParent(ctx workflow.Context, in SubAgentInput) (SubAgentResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	conv := conversation.NewLog[Message]()
	for i := range in.Turns {
		if err := conv.Append(ctx, logHoldMessage("parent", i, in.MessageBytes)); err != nil {
			return SubAgentResult{}, err
		}
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID + "-sub",
		TaskQueue:  in.ChildQueue,
	})
	var child *conversation.Log[Message]
	if err := workflow.ExecuteChildWorkflow(cctx, SubAgent, conv, in).Get(ctx, &child); err != nil {
		return SubAgentResult{}, err
	}
	if err := conv.Append(ctx, logHoldMessage("parent", in.Turns, in.MessageBytes)); err != nil {
		return SubAgentResult{}, err
	}
	var res SubAgentResult
	if err := workflow.ExecuteActivity(ctx, ReadBranch, conv, []BranchPart{{"parent", in.Turns + 1}}).Get(ctx, &res.Parent); err != nil {
		return SubAgentResult{}, err
	}
	err := workflow.ExecuteActivity(ctx, ReadBranch, child, []BranchPart{{"parent", in.Turns}, {"child", in.ChildTurns}}).Get(ctx, &res.Child)
	return res, err
}

// SubAgent appends its turns to the conversation its parent gave it, has
// ReadBranch read the whole of it after each, and returns its Log.
func SubAgent(ctx workflow.Context, conv *conversation.Log[Message], in SubAgentInput) (*conversation.Log[Message], error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	for j := range in.ChildTurns {
		if err := conv.Append(ctx, logHoldMessage("child", j, in.MessageBytes)); err != nil {
			return nil, err
		}
		var n int
		if err := workflow.ExecuteActivity(ctx, ReadBranch, conv, []BranchPart{{"parent", in.Turns}, {"child", j + 1}}).Get(ctx, &n); err != nil {
			return nil, err
		}
	}
	return conv, nil
}

// ReadBranch reads the whole conversation and checks it is parts, message
// by message, and nothing more.
func ReadBranch(ctx context.Context, conv *conversation.Log[Message], parts []BranchPart) (int, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return 0, err
	}
	i := 0
	for _, p := range parts {
		for k := range p.Count {
			if i >= len(msgs) {
				return 0, fmt.Errorf("the conversation ends at message %d, before %s's message %d", i, p.Name, k)
			}
			if msgs[i] != logHoldMessage(p.Name, k, len(msgs[i].Content)) {
				return 0, fmt.Errorf("message %d is not %s's message %d", i, p.Name, k)
			}
			i++
		}
	}
	if i != len(msgs) {
		return 0, fmt.Errorf("the conversation holds %d messages, %d more than its branch", len(msgs), len(msgs)-i)
	}
	return len(msgs), nil
}

// logEncoding is the part of a Log's encoding the test reads.
type logEncoding struct {
	Marker  int               `json:"temporaladkLog"`
	Head    string            `json:"head"`
	Len     int               `json:"len"`
	Pending []json.RawMessage `json:"pending"`
}

// readLogEncoding reads the Log a payload holds, as the server recorded it.
func readLogEncoding(t *testing.T, p *commonpb.Payload) logEncoding {
	t.Helper()
	var enc logEncoding
	require.NoError(t, json.Unmarshal(p.GetData(), &enc), "the payload is a Log's encoding: %.200s", p.GetData())
	require.Equal(t, 1, enc.Marker, "the payload is a Log's encoding: %.200s", p.GetData())
	return enc
}

// A sub-agent is a child workflow given the conversation so far, on a
// worker of its own (its own client and store, on the bucket the parent's
// worker uses). The child's input, as the server recorded it, is the Log's
// reference, and so is the result it returns; the child reads the parent's
// messages and its own; its store is given its segments alone, not the
// parent's again. The parent's Log goes on from where the child started (a
// branch): its next read holds none of the child's messages, and the Log
// the child returned holds both. Both histories replay.
func TestASubAgentGetsTheConversationByReference(t *testing.T) {
	t.Parallel()
	const turns, childTurns, messageBytes = 8, 3, 20_000
	ctx := testsuite.Context(t)
	dir := t.TempDir()
	parentStore, _ := newDirStore(t, dir, 0)
	childStore, _ := newDirStore(t, dir, 0)
	cp, cc := dial(t, parentStore), dial(t, childStore)
	q := queue("subagent")
	qc := q + "-child"
	wp := worker.New(cp, q, kitWorkerOptions(t))
	wp.RegisterWorkflow(SubAgentParent)
	wp.RegisterActivity(ReadBranch)
	require.NoError(t, wp.Start())
	defer wp.Stop()
	wc := worker.New(cc, qc, kitWorkerOptions(t))
	wc.RegisterWorkflow(SubAgent)
	wc.RegisterActivity(ReadBranch)
	require.NoError(t, wc.Start())
	defer wc.Stop()

	run, err := cp.ExecuteWorkflow(ctx, startOptions(q, q), SubAgentParent,
		SubAgentInput{Turns: turns, ChildTurns: childTurns, MessageBytes: messageBytes, ChildQueue: qc})
	require.NoError(t, err)
	var res SubAgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, cp, run, &res))
	require.Equal(t, SubAgentResult{Parent: turns + 1, Child: turns + childTurns}, res)

	// What the server recorded: the child's input and result are the Log's
	// reference, whatever the conversation's size.
	h, err := testsuite.WorkflowHistory(ctx, cp, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var input, result *commonpb.Payload
	var child *commonpb.WorkflowExecution
	for _, e := range h.GetEvents() {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			input = e.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetInput().GetPayloads()[0]
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
			child = e.GetChildWorkflowExecutionStartedEventAttributes().GetWorkflowExecution()
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			result = e.GetChildWorkflowExecutionCompletedEventAttributes().GetResult().GetPayloads()[0]
		}
	}
	require.NotNil(t, input, "the parent started no child")
	require.NotNil(t, child, "the child did not start")
	require.NotNil(t, result, "the child did not complete")
	in, out := readLogEncoding(t, input), readLogEncoding(t, result)
	t.Logf("a %d-byte conversation: the child's input is %d bytes, its result %d", turns*messageBytes, len(input.GetData()), len(result.GetData()))
	require.Equal(t, turns, in.Len)
	require.Equal(t, turns+childTurns, out.Len)
	require.Empty(t, in.Pending, "the child's input holds messages inline")
	require.Empty(t, out.Pending, "the child's result holds messages inline")
	require.Less(t, len(input.GetData()), messageBytes, "the child's input holds more than a reference")
	require.Less(t, len(result.GetData()), messageBytes, "the child's result holds more than a reference")
	ch, err := testsuite.WorkflowHistory(ctx, cc, child.GetWorkflowId(), child.GetRunId())
	require.NoError(t, err)
	started := ch.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
	require.Equal(t, in, readLogEncoding(t, started), "the child started on the reference its parent sent")

	// The child's store was given the child's segments, not the parent's
	// again: the messages it appended and each segment's framing, which is
	// under a kilobyte.
	childBytes := int64(childTurns * messageBytes)
	stored := childStore.Stats().BytesStored
	t.Logf("the child's store was given %d bytes for its %d appended", stored, childBytes)
	require.GreaterOrEqual(t, stored, childBytes)
	require.Less(t, stored, childBytes+childTurns*1024, "the child's store was given more than its own segments")

	// Both histories replay, with the store.
	hdir := t.TempDir()
	require.NoError(t, testsuite.RecordHistory(ctx, cp, run.GetID(), run.GetRunID(), filepath.Join(hdir, "parent.json")))
	require.NoError(t, testsuite.RecordHistory(ctx, cc, child.GetWorkflowId(), child.GetRunId(), filepath.Join(hdir, "child.json")))
	replayer, _ := newDirStore(t, dir, 0)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: SubAgentParent}, {Func: SubAgent}}}
	opts.ExternalStorage, opts.DataConverter, err = replayer.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayDir(hdir, opts))
}
