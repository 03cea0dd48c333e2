package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// Msg is a chat message.
type Msg struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// turnOutput is a tool's output of turn i: size bytes, different each turn.
func turnOutput(i, size int) string {
	unit := fmt.Sprintf("turn %d ", i)
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

// newStore is a store over a directory bucket in dir.
func newStore(t *testing.T, dir string) *payloads.Store {
	t.Helper()
	bucket, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	require.NoError(t, err)
	return store
}

// LogInput is a run of LogAgent.
type LogInput struct {
	Turns, ToolBytes int
	Conv             *conversation.Log[Msg]
}

// LogAgent re-sends its conversation to Read every turn and appends a tool
// output and Read's answer.
func LogAgent(ctx workflow.Context, in LogInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	conv := in.Conv
	if conv == nil {
		conv = conversation.NewLog[Msg]()
		if err := conv.Append(ctx, Msg{Role: "system", Content: "be brief"}); err != nil {
			return 0, err
		}
	}
	for i := range in.Turns {
		if err := conv.Append(ctx, Msg{Role: "tool", Content: turnOutput(i, in.ToolBytes)}); err != nil {
			return 0, err
		}
		var answer Msg
		if err := workflow.ExecuteActivity(ctx, Read, conv).Get(ctx, &answer); err != nil {
			return 0, err
		}
		if err := conv.Append(ctx, answer); err != nil {
			return 0, err
		}
	}
	return conv.Len(), nil
}

// Read checks the whole conversation and answers with its length.
func Read(ctx context.Context, conv *conversation.Log[Msg]) (Msg, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return Msg{}, err
	}
	if len(msgs) != conv.Len() {
		return Msg{}, fmt.Errorf("%d messages where the log records %d", len(msgs), conv.Len())
	}
	for i, m := range msgs[1:] {
		if want := (i / 2); i%2 == 0 && m.Content != turnOutput(want, len(m.Content)) {
			return Msg{}, fmt.Errorf("message %d is not turn %d's output", i+1, want)
		}
	}
	return Msg{Role: "assistant", Content: fmt.Sprintf("read %d", len(msgs))}, nil
}

// sizes records the bytes of every payload it encodes.
type sizes struct {
	converter.DataConverter
	encoded *[]int
}

func (s sizes) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	ps, err := s.DataConverter.ToPayloads(values...)
	if err == nil {
		for _, p := range ps.GetPayloads() {
			*s.encoded = append(*s.encoded, len(p.GetData()))
		}
	}
	return ps, err
}

func runLogAgent(t *testing.T, dc converter.DataConverter, in LogInput) int {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflow(LogAgent)
	env.RegisterActivity(Read)
	env.SetDataConverter(dc)
	env.ExecuteWorkflow(LogAgent, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var n int
	require.NoError(t, env.GetWorkflowResult(&n))
	return n
}

// TestLogEncodesWhatTheTurnAdded holds the Log's promise on the store: the
// model call's input is the same few bytes at turn 1 and at turn 30, while
// the conversation grows by 8 KB a turn, and the activity reads all of it.
func TestLogEncodesWhatTheTurnAdded(t *testing.T) {
	store := newStore(t, t.TempDir())
	var encoded []int
	n := runLogAgent(t, sizes{store.DataConverter(nil), &encoded}, LogInput{Turns: 30, ToolBytes: 8 << 10})
	assert.Equal(t, 1+2*30, n)
	require.NotEmpty(t, encoded)
	largest := 0
	for _, size := range encoded {
		largest = max(largest, size)
	}
	assert.Less(t, largest, 300, "every payload the workflow encoded is a head and a length, not the conversation: %v", encoded)
}

// TestLogWithoutAStoreIsInline holds that a Log without the store loses
// nothing: its encoding carries every message, and the activity reads them
// without a store.
func TestLogWithoutAStoreIsInline(t *testing.T) {
	var encoded []int
	n := runLogAgent(t, sizes{converter.GetDefaultDataConverter(), &encoded}, LogInput{Turns: 5, ToolBytes: 1 << 10})
	assert.Equal(t, 1+2*5, n)
	assert.Greater(t, slices.Max(encoded), 5<<10, "the last call carries the whole conversation inline")
}

// handedOver is a Log of msgs encoded by store's DataConverter.
func handedOver(t *testing.T, store *payloads.Store, msgs ...Msg) (*conversation.Log[Msg], *commonpb.Payloads) {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var p *commonpb.Payloads
	log := conversation.NewLog[Msg]()
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		for _, m := range msgs {
			if err := log.Append(ctx, m); err != nil {
				return err
			}
		}
		var err error
		p, err = store.DataConverter(nil).ToPayloads(log)
		return err
	})
	require.NoError(t, env.GetWorkflowError())
	return log, p
}

// TestLogReadsFromTheStoreAndNamesIt holds the reads: a fresh store over the
// same bucket (another worker) reads the conversation whole; a reader without
// the store, a lost segment and an altered one are errors naming the store,
// and nothing is returned from them.
func TestLogReadsFromTheStoreAndNamesIt(t *testing.T) {
	dir := t.TempDir()
	msgs := []Msg{{"system", "be brief"}, {"user", turnOutput(1, 5000)}, {"tool", turnOutput(2, 9000)}}
	_, p := handedOver(t, newStore(t, dir), msgs...)
	assert.NotContains(t, string(p.GetPayloads()[0].GetData()), "turn 1", "the encoding carries no message")

	read := func(dc converter.DataConverter) ([]Msg, error) {
		var log *conversation.Log[Msg]
		require.NoError(t, dc.FromPayloads(p, &log))
		assert.Equal(t, len(msgs), log.Len())
		return log.Messages(context.Background())
	}
	got, err := read(newStore(t, dir).DataConverter(nil))
	require.NoError(t, err)
	assert.Equal(t, msgs, got)

	_, err = read(converter.GetDefaultDataConverter())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `payload store "temporaladk-payloads"`)

	var segments []string
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "segments"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			segments = append(segments, path)
		}
		return err
	}))
	require.Len(t, segments, len(msgs), "one segment per Append")
	// Two segments' index objects swapped: each names the other's bytes.
	first, err := os.ReadFile(segments[0])
	require.NoError(t, err)
	second, err := os.ReadFile(segments[1])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(segments[0], second, 0o644))
	require.NoError(t, os.WriteFile(segments[1], first, 0o644))
	_, err = read(newStore(t, dir).DataConverter(nil))
	var corrupt *payloads.CorruptError
	require.ErrorAs(t, err, &corrupt)
	assert.Equal(t, "temporaladk-payloads", corrupt.Store)
	assert.Contains(t, corrupt.Reason, "do not hash to its name")

	require.NoError(t, os.Remove(segments[0]))
	_, err = read(newStore(t, dir).DataConverter(nil))
	var missing *payloads.MissingError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, "temporaladk-payloads", missing.Store)
}

// TestLogNestedInAStructIsHandedOver holds that a Log in a struct's field
// (a continue-as-new input) is handed over too, and bound when decoded.
func TestLogNestedInAStructIsHandedOver(t *testing.T) {
	dir := t.TempDir()
	store := newStore(t, dir)
	log, _ := handedOver(t, store, Msg{"system", "be brief"})
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var p *commonpb.Payloads
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		if err := log.Append(ctx, Msg{"tool", turnOutput(3, 20000)}); err != nil {
			return err
		}
		var err error
		p, err = store.DataConverter(nil).ToPayloads(LogInput{Turns: 3, Conv: log})
		return err
	})
	require.NoError(t, env.GetWorkflowError())
	assert.Less(t, len(p.GetPayloads()[0].GetData()), 400)
	var in LogInput
	require.NoError(t, newStore(t, dir).DataConverter(nil).FromPayloads(p, &in))
	got, err := in.Conv.Messages(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []Msg{{"system", "be brief"}, {"tool", turnOutput(3, 20000)}}, got)
}

// TestLogRefusesForgedEncodings holds that a decoded Log's segments must be
// the ones its head names.
func TestLogRefusesForgedEncodings(t *testing.T) {
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var data []byte
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		log := conversation.NewLog[Msg]()
		if err := log.Append(ctx, Msg{"user", "hello"}); err != nil {
			return err
		}
		var err error
		data, err = json.Marshal(log)
		return err
	})
	require.NoError(t, env.GetWorkflowError())
	var ok conversation.Log[Msg]
	require.NoError(t, json.Unmarshal(data, &ok))
	forged := strings.Replace(string(data), "hello", "HELLO", 1)
	var bad conversation.Log[Msg]
	err := json.Unmarshal([]byte(forged), &bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "head")
}

// TestLogAppendCountsTowardTheReplayLimit holds ShouldContinueAsNew's
// replay bound: a run whose logs appended nine tenths of the limit should
// continue as new, and AppendedBytes is what they appended.
func TestLogAppendCountsTowardTheReplayLimit(t *testing.T) {
	var s sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{})
	require.NoError(t, err)
	type seen struct {
		Before, After bool
		Appended      int64
	}
	env.ExecuteWorkflow(func(ctx workflow.Context) (seen, error) {
		ctx, err := conversation.WithReplayByteLimit(ctx, 100_000)
		if err != nil {
			return seen{}, err
		}
		log := conversation.NewLog[Msg]()
		var out seen
		out.Before = conversation.ShouldContinueAsNew(ctx)
		for i := 0; conversation.AppendedBytes(ctx) < 90_000; i++ {
			if err := log.Append(ctx, Msg{"tool", turnOutput(i, 10_000)}); err != nil {
				return seen{}, err
			}
		}
		out.After, out.Appended = conversation.ShouldContinueAsNew(ctx), conversation.AppendedBytes(ctx)
		return out, nil
	})
	require.NoError(t, env.GetWorkflowError())
	var got seen
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.False(t, got.Before)
	assert.True(t, got.After)
	assert.GreaterOrEqual(t, got.Appended, int64(90_000))

	_, err = conversation.WithReplayByteLimit(nil, 1)
	assert.ErrorContains(t, err, "ctx is nil")
}

// appendTurns appends turns segments to log, handing it to store after each
// when store is not nil (a live worker), else never (a replay).
func appendTurns(t *testing.T, log *conversation.Log[Msg], turns int, store *payloads.Store) {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		for i := range turns {
			if err := log.Append(ctx, Msg{"tool", turnOutput(i, 3000)}); err != nil {
				return err
			}
			if store != nil {
				if _, err := store.DataConverter(nil).ToPayloads(log); err != nil {
					return err
				}
			}
		}
		return nil
	})
	require.NoError(t, env.GetWorkflowError())
}

// segmentStats counts the presence checks and reads of a bucket's segment
// indexes.
type segmentStats struct {
	payloads.Bucket
	checks, reads atomic.Int64
}

func (b *segmentStats) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, "segments/") {
		b.reads.Add(1)
	}
	return b.Bucket.Get(ctx, key)
}

func (b *segmentStats) Stat(ctx context.Context, key string) (payloads.Object, error) {
	if strings.HasPrefix(key, "segments/") {
		b.checks.Add(1)
	}
	return b.Bucket.Stat(ctx, key)
}

// takeOver hands replayed over to a new store on dir's bucket, and returns
// the segments it checked and the store.
func takeOver(t *testing.T, dir string, replayed *conversation.Log[Msg]) (int64, *payloads.Store) {
	t.Helper()
	bucket, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	counted := &segmentStats{Bucket: bucket}
	store, err := payloads.NewStore(payloads.Options{Bucket: counted})
	require.NoError(t, err)
	_, err = store.DataConverter(nil).ToPayloads(replayed)
	require.NoError(t, err)
	return counted.checks.Load(), store
}

// TestLogAfterATakeoverChecksOnce holds what a worker that took a run over
// does with the segments its replay appended, which the worker before it
// wrote: one presence check of the newest, nothing written. Where the
// worker before wrote only some, it checks back to the newest of those and
// writes the rest, and the conversation reads whole.
func TestLogAfterATakeoverChecksOnce(t *testing.T) {
	dir := t.TempDir()
	appendTurns(t, conversation.NewLog[Msg](), 50, newStore(t, dir))
	replayed := conversation.NewLog[Msg]()
	appendTurns(t, replayed, 50, nil)
	checks, taker := takeOver(t, dir, replayed)
	assert.Equal(t, int64(1), checks, "one check of the newest segment")
	assert.Zero(t, taker.Stats().ObjectsWritten)

	dir = t.TempDir()
	appendTurns(t, conversation.NewLog[Msg](), 25, newStore(t, dir))
	replayed = conversation.NewLog[Msg]()
	appendTurns(t, replayed, 50, nil)
	checks, _ = takeOver(t, dir, replayed)
	assert.Equal(t, int64(26), checks, "newest to oldest, down to the 25th, which the worker before wrote")
	var back *conversation.Log[Msg]
	p, err := newStore(t, dir).DataConverter(nil).ToPayloads(replayed)
	require.NoError(t, err)
	require.NoError(t, newStore(t, dir).DataConverter(nil).FromPayloads(p, &back))
	got, err := back.Messages(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 50)
	assert.Equal(t, turnOutput(49, 3000), got[49].Content)
}

// TestLogMessagesDecodesWhatTheTurnAdded holds Messages' cache: a worker
// that read the conversation reads only the segment the next turn added,
// while the conversation fits in Options.CacheBytes; past it, every call
// reads the whole conversation again, and still returns it whole.
func TestLogMessagesDecodesWhatTheTurnAdded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cacheBytes int64
		want       int64
	}{
		{"the conversation fits", payloads.DefaultCacheBytes, 1},
		{"a cache smaller than the conversation", 1, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writer := newStore(t, dir)
			log := conversation.NewLog[Msg]()
			appendTurns(t, log, 20, writer)
			bucket, err := payloads.NewDirBucket(dir)
			require.NoError(t, err)
			counted := &segmentStats{Bucket: bucket}
			reader, err := payloads.NewStore(payloads.Options{Bucket: counted, CacheBytes: tc.cacheBytes})
			require.NoError(t, err)
			read := func() []Msg {
				t.Helper()
				p, err := writer.DataConverter(nil).ToPayloads(log)
				require.NoError(t, err)
				var got *conversation.Log[Msg]
				require.NoError(t, reader.DataConverter(nil).FromPayloads(p, &got))
				msgs, err := got.Messages(context.Background())
				require.NoError(t, err)
				return msgs
			}
			require.Len(t, read(), 20)
			require.Equal(t, int64(20), counted.reads.Load(), "a new worker reads every segment once")
			appendTurns(t, log, 1, writer)
			msgs := read()
			require.Len(t, msgs, 21)
			assert.Equal(t, turnOutput(0, 3000), msgs[20].Content)
			assert.Equal(t, tc.want, counted.reads.Load()-20, "segments read for the next turn")
		})
	}
}
