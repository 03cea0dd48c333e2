package payloads_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/payloads"
)

// LogHoldInput is a run of LogHold.
type LogHoldInput struct {
	// Name makes the run's messages its own.
	Name string
	// Turns is the messages appended, each read by ReadLog.
	Turns, MessageBytes int
	// Note is a text large enough to be stored, sent with the log's last
	// message to ReadNote.
	Note string
	// Hold waits for the "release" signal before a last ReadLog.
	Hold bool
}

// LogNote is a stored payload that holds a log.
type LogNote struct {
	Conv *conversation.Log[Message]
	Note string
}

// logHoldMessage is message i of a LogHold run.
func logHoldMessage(name string, i, size int) Message {
	unit := fmt.Sprintf("%s message %d ", name, i)
	return Message{Role: "tool", Content: strings.Repeat(unit, size/len(unit)+1)[:size]}
}

// LogHold appends a message a turn and reads the log in an activity, its
// head recorded inline; then appends one more and hands the log to ReadNote
// inside a stored payload, the last head recorded only in that claim. With
// Hold, it waits to be released and reads the whole log once more.
func LogHold(ctx workflow.Context, in LogHoldInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	conv := conversation.NewLog[Message]()
	for i := range in.Turns {
		if err := conv.Append(ctx, logHoldMessage(in.Name, i, in.MessageBytes)); err != nil {
			return 0, err
		}
		if err := workflow.ExecuteActivity(ctx, ReadLog, conv).Get(ctx, nil); err != nil {
			return 0, err
		}
	}
	if err := conv.Append(ctx, logHoldMessage(in.Name, in.Turns, in.MessageBytes)); err != nil {
		return 0, err
	}
	if err := workflow.ExecuteActivity(ctx, ReadNote, LogNote{Conv: conv, Note: in.Note}).Get(ctx, nil); err != nil {
		return 0, err
	}
	if !in.Hold {
		return conv.Len(), nil
	}
	workflow.GetSignalChannel(ctx, "release").Receive(ctx, nil)
	var n int
	err := workflow.ExecuteActivity(ctx, ReadLog, conv).Get(ctx, &n)
	return n, err
}

// ReadLog reads the whole conversation and returns its length.
func ReadLog(ctx context.Context, conv *conversation.Log[Message]) (int, error) {
	msgs, err := conv.Messages(ctx)
	return len(msgs), err
}

// ReadNote reads the whole conversation the note holds.
func ReadNote(ctx context.Context, n LogNote) (int, error) {
	return ReadLog(ctx, n.Conv)
}

// logHoldObjects writes into store what a LogHold run of in hands over: the
// segments of its log, and the stored payload of its note.
func logHoldObjects(t *testing.T, store *payloads.Store, in LogHoldInput) {
	t.Helper()
	dc := store.DataConverter(nil)
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var p *commonpb.Payload
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		conv := conversation.NewLog[Message]()
		for i := range in.Turns + 1 {
			if err := conv.Append(ctx, logHoldMessage(in.Name, i, in.MessageBytes)); err != nil {
				return err
			}
		}
		var err error
		p, err = dc.ToPayload(LogNote{Conv: conv, Note: in.Note})
		return err
	})
	require.NoError(t, env.GetWorkflowError())
	// The note's payload is stored as the SDK's driver stores one, outside
	// the workflow.
	_, err := store.Put(context.Background(), p.GetData())
	require.NoError(t, err)
}

// logHoldInputObject writes into store a LogHold run's input, which its
// note makes large enough to be stored.
func logHoldInputObject(t *testing.T, store *payloads.Store, in LogHoldInput) {
	t.Helper()
	p, err := store.DataConverter(nil).ToPayload(in)
	require.NoError(t, err)
	_, err = store.Put(context.Background(), p.GetData())
	require.NoError(t, err)
}
