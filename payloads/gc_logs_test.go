package payloads

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/internal/logref"
)

// logMsg is a message of the logs these tests collect.
type logMsg struct {
	Text string `json:"text"`
}

// logTurn is message i of a conversation: size bytes, its own each turn.
func logTurn(conv string, i, size int) logMsg {
	unit := fmt.Sprintf("%s turn %d ", conv, i)
	return logMsg{Text: strings.Repeat(unit, size/len(unit)+1)[:size]}
}

// appendAndEncode appends msgs to log in a workflow, one segment each, and
// encodes it with dc, as scheduling an activity with it does.
func appendAndEncode(t *testing.T, dc converter.DataConverter, log *conversation.Log[logMsg], msgs ...logMsg) *commonpb.Payload {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var p *commonpb.Payload
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		for _, m := range msgs {
			if err := log.Append(ctx, m); err != nil {
				return err
			}
		}
		var err error
		p, err = dc.ToPayload(log)
		return err
	})
	require.NoError(t, env.GetWorkflowError())
	return p
}

// segmentKeys is the segments the bucket holds.
func segmentKeys(t *testing.T, b Bucket) []string {
	t.Helper()
	var keys []string
	require.NoError(t, b.List(context.Background(), logref.SegmentPrefix, func(o Object) error {
		keys = append(keys, o.Key)
		return nil
	}))
	return keys
}

// age sets every object of the directory bucket as written two days ago.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-48 * time.Hour)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

// TestCollectKeepsTheSegmentsOfLiveLogs holds Collect's promise for
// conversation logs: every segment a live head reaches is kept, a segment
// that a young one extends is kept with it, every other old segment is
// deleted, and a live log whose chain is broken stops the collection.
func TestCollectKeepsTheSegmentsOfLiveLogs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	b, err := NewDirBucket(dir)
	require.NoError(t, err)
	s, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	// A parent DataConverter with a codec: the record of the logs is set
	// outside it, so a collection finds the heads of compressed or
	// encrypted payloads without their codec.
	dc := s.DataConverter(converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), converter.NewZlibCodec(converter.ZlibCodecOptions{AlwaysEncode: true})))

	// Each log's objects (segment indexes, and the nodes and chunks of
	// their bytes) are what its hand-overs added to the bucket: the logs'
	// texts differ, so they share none.
	objects := func() map[string]bool {
		all := map[string]bool{}
		for _, prefix := range []string{"nodes/", "chunks/", logref.SegmentPrefix} {
			require.NoError(t, b.List(ctx, prefix, func(o Object) error { all[o.Key] = true; return nil }))
		}
		return all
	}
	added := func(encode func() *commonpb.Payload) (*commonpb.Payload, map[string]bool) {
		before := objects()
		p := encode()
		out := map[string]bool{}
		for k := range objects() {
			if !before[k] {
				out[k] = true
			}
		}
		return p, out
	}
	union := func(sets ...map[string]bool) map[string]bool {
		out := map[string]bool{}
		for _, s := range sets {
			for k := range s {
				out[k] = true
			}
		}
		return out
	}
	// read is the objects a collection reads of a set: segment indexes and
	// tree nodes, never chunks.
	read := func(set map[string]bool) int64 {
		n := int64(0)
		for k := range set {
			if !strings.HasPrefix(k, "chunks/") {
				n++
			}
		}
		return n
	}

	live := conversation.NewLog[logMsg]()
	_, liveFirst := added(func() *commonpb.Payload {
		return appendAndEncode(t, dc, live, logTurn("live", 0, 5000), logTurn("live", 1, 5000))
	})
	p, liveLast := added(func() *commonpb.Payload { return appendAndEncode(t, dc, live, logTurn("live", 2, 5000)) }) // the head history holds
	liveObjs := union(liveFirst, liveLast)
	_, stored, heads, err := s.references(p)
	require.NoError(t, err)
	require.False(t, stored)
	require.Len(t, heads, 1)
	require.Equal(t, live.Head(), fmt.Sprintf("%x", heads[0]))

	dropped := conversation.NewLog[logMsg]()
	pd, droppedFirst := added(func() *commonpb.Payload { return appendAndEncode(t, dc, dropped, logTurn("dropped", 0, 5000)) })
	_, droppedLast := added(func() *commonpb.Payload { return appendAndEncode(t, dc, dropped, logTurn("dropped", 1, 5000)) })
	droppedObjs := union(droppedFirst, droppedLast)
	inFlight := conversation.NewLog[logMsg]()
	_, inFlightObjs := added(func() *commonpb.Payload {
		return appendAndEncode(t, dc, inFlight, logTurn("in flight", 0, 5000), logTurn("in flight", 1, 5000))
	})
	require.Len(t, segmentKeys(t, b), 3+2+2)

	// Within the grace nothing goes.
	rep, err := s.Collect(ctx, Live{Logs: heads}, CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	require.Zero(t, rep.Deleted)
	require.Equal(t, len(liveObjs), rep.Live, "the live log's three segments and their bytes")
	require.Equal(t, len(droppedObjs)+len(inFlightObjs), rep.Young)

	// Two days on, a turn of the in-flight log and one of the live log hand
	// over their new segments, and the collection runs before their heads
	// reach history.
	age(t, dir)
	_, inFlightNext := added(func() *commonpb.Payload { return appendAndEncode(t, dc, inFlight, logTurn("in flight", 2, 5000)) })
	next, liveNext := added(func() *commonpb.Payload { return appendAndEncode(t, dc, live, logTurn("live", 3, 5000)) })
	collector, err := NewStore(Options{Bucket: b, CacheBytes: 1}) // no cache: every read is counted
	require.NoError(t, err)
	rep, err = collector.Collect(ctx, Live{Logs: heads}, CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	require.Equal(t, read(union(liveObjs, inFlightObjs, inFlightNext, liveNext)), collector.Stats().ObjectsRead,
		"each live or young segment's index and nodes read once, the dropped ones never")
	require.Equal(t, len(liveObjs), rep.Live, "the live log's three segments and their bytes")
	require.Equal(t, len(inFlightObjs)+len(inFlightNext)+len(liveNext), rep.Young, "the young segments and the two the in-flight one extends")
	require.Equal(t, len(droppedObjs), rep.Deleted, "the dropped log's two segments and their bytes")
	require.Len(t, segmentKeys(t, b), 7)
	for k := range droppedObjs {
		require.False(t, objects()[k], "%s is left", k)
	}

	// Another worker reads the live log and the in-flight one whole; the
	// dropped one is gone, and says so.
	fresh, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	freshDC := fresh.DataConverter(converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), converter.NewZlibCodec(converter.ZlibCodecOptions{AlwaysEncode: true})))
	var got conversation.Log[logMsg]
	require.NoError(t, freshDC.FromPayload(p, &got))
	msgs, err := got.Messages(ctx)
	require.NoError(t, err)
	require.Equal(t, []logMsg{logTurn("live", 0, 5000), logTurn("live", 1, 5000), logTurn("live", 2, 5000)}, msgs)
	var extended conversation.Log[logMsg]
	require.NoError(t, freshDC.FromPayload(next, &extended))
	msgs, err = extended.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 4)
	var gone conversation.Log[logMsg]
	require.NoError(t, freshDC.FromPayload(pd, &gone))
	_, err = gone.Messages(ctx)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)

	// A live log whose chain is broken stops the collection before it
	// deletes anything.
	first := segmentKeys(t, b)
	ahead := appendAndEncode(t, dc, conversation.NewLog[logMsg](), logTurn("broken", 0, 5000), logTurn("broken", 1, 5000))
	_, _, brokenHeads, err := s.references(ahead)
	require.NoError(t, err)
	after := segmentKeys(t, b)
	for _, k := range after {
		if !containsKey(first, k) {
			require.NoError(t, b.Delete(ctx, k))
			break
		}
	}
	age(t, dir)
	fresh, err = NewStore(Options{Bucket: b})
	require.NoError(t, err)
	before := segmentKeys(t, b)
	_, err = fresh.Collect(ctx, Live{Logs: append(heads, brokenHeads...)}, CollectOptions{Grace: time.Hour})
	require.ErrorAs(t, err, &missing)
	require.Equal(t, before, segmentKeys(t, b))
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// TestLogRecordsThatDoNotParseAreErrors holds that a collection never
// guesses: a record of logs it cannot read, on a payload of its store, is
// an error naming the record; another store's record is not its business.
func TestLogRecordsThatDoNotParseAreErrors(t *testing.T) {
	t.Parallel()
	b, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	s, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	for _, bad := range []string{`{`, `{"store":"temporaladk-payloads","heads":["abc"]}`, `{"store":"temporaladk-payloads","heads":[""]}`} {
		_, _, _, err := s.references(&commonpb.Payload{Metadata: map[string][]byte{metadataLogs: []byte(bad)}})
		var corrupt *CorruptError
		require.ErrorAs(t, err, &corrupt, bad)
		require.ErrorContains(t, err, metadataLogs)
	}
	_, _, heads, err := s.references(&commonpb.Payload{Metadata: map[string][]byte{metadataLogs: []byte(`{"store":"another","heads":["abc"]}`)}})
	require.NoError(t, err)
	require.Empty(t, heads)
}

// A Log held by one store and encoded by the DataConverter of a store of
// another name (Options.Name: two fleets, or a fleet half reconfigured) is
// an error naming both, and nothing is written to the second.
func TestHandOverToAStoreOfAnotherNameNamesBoth(t *testing.T) {
	t.Parallel()
	first, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	second, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	a, err := NewStore(Options{Bucket: first, Name: "fleet-a"})
	require.NoError(t, err)
	b, err := NewStore(Options{Bucket: second, Name: "fleet-b"})
	require.NoError(t, err)
	log := conversation.NewLog[logMsg]()
	appendAndEncode(t, a.DataConverter(nil), log, logTurn("c", 0, 100))

	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		if err := log.Append(ctx, logTurn("c", 1, 100)); err != nil {
			return err
		}
		_, err := b.DataConverter(nil).ToPayload(log)
		return err
	})
	err = env.GetWorkflowError()
	require.ErrorContains(t, err, `payload store "fleet-a"`)
	require.ErrorContains(t, err, `writes to store "fleet-b"`)
	require.Empty(t, segmentKeys(t, second))
}
