package live_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

const run = "run-1"

// callEvents builds the events of one MODEL call as the observer publishes
// them.
func planned(stream string, call int) live.Event {
	return live.Event{ID: live.PlannedID(run, false, call), Stream: stream, Kind: live.Planned, WorkflowID: "wf", RunID: run, Call: call, ActivityType: "Chat", Class: temporaladk.Model}
}

func reset(stream string, call, attempt int) live.Event {
	return live.Event{ID: live.ResetID(run, false, call, attempt), Stream: stream, Kind: live.Reset, WorkflowID: "wf", RunID: run, Call: call, ActivityType: "Chat", Class: temporaladk.Model, Attempt: attempt}
}

func delta(stream string, call, attempt, seq int, text string) live.Event {
	return live.Event{ID: live.DeltaID(run, false, call, attempt, seq), Stream: stream, Kind: live.Delta, WorkflowID: "wf", RunID: run, Call: call, ActivityType: "Chat", Class: temporaladk.Model,
		Attempt: attempt, Seq: seq, TextKind: providers.Text, Text: text}
}

func final(stream string, call int, result string) live.Event {
	return live.Event{ID: live.FinalID(run, false, call), Stream: stream, Kind: live.Final, WorkflowID: "wf", RunID: run, Call: call, ActivityType: "Chat", Class: temporaladk.Model,
		Outcome: observe.CallCompleted, Output: []byte(fmt.Sprintf("%q", result))}
}

// held drains what a new subscriber of stream gets at once.
func held(t *testing.T, h *live.MemoryHub, stream string) []live.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := h.Subscribe(ctx, stream)
	require.NoError(t, err)
	var out []live.Event
	for {
		select {
		case e := <-sub.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func publish(t *testing.T, h live.Hub, events ...live.Event) {
	t.Helper()
	for _, e := range events {
		require.NoError(t, h.Publish(context.Background(), e))
	}
}

// TestMemoryHubDropsDuplicates: an event published again (a replay, a
// takeover) is kept once, and a delta of an attempt after the next
// attempt's reset is dropped as stale.
func TestMemoryHubDropsDuplicates(t *testing.T) {
	t.Parallel()
	h, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	publish(t, h, planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Hel"),
		planned("s", 1), reset("s", 1, 1), delta("s", 1, 1, 1, "Hel"), // published again
		reset("s", 1, 2), delta("s", 1, 1, 2, "lo"), // the dead attempt, late
		delta("s", 1, 2, 1, "Hi"), final("s", 1, "Hi"), final("s", 1, "Hi"),
		delta("s", 1, 2, 2, " there")) // after the final: stale
	var ids []string
	for _, e := range held(t, h, "s") {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"run-1/c1/planned", "run-1/c1/a1", "run-1/c1/a1/1", "run-1/c1/a2", "run-1/c1/a2/1", "run-1/c1/final"}, ids)
	st := h.Stats()
	assert.Equal(t, live.HubStats{Published: 6, Duplicates: 4, Stale: 2}, st)
}

// TestMemoryHubBounds: a stream holds at most MaxEvents events and still
// has an open call's text so far; the hub holds at most MaxStreams
// streams, letting the least recently published go.
func TestMemoryHubBounds(t *testing.T) {
	t.Parallel()
	h, err := live.NewMemoryHub(live.MemoryOptions{MaxEvents: 8, MaxStreams: 3})
	require.NoError(t, err)
	publish(t, h, planned("s", 1), reset("s", 1, 1))
	var want strings.Builder
	for seq := 1; seq <= 50; seq++ {
		text := fmt.Sprintf("t%d ", seq)
		want.WriteString(text)
		publish(t, h, delta("s", 1, 1, seq, text))
	}
	got := held(t, h, "s")
	assert.LessOrEqual(t, len(got), 8)
	var text strings.Builder
	for _, e := range got {
		if e.Kind == live.Delta {
			text.WriteString(e.Text)
		}
	}
	assert.Equal(t, want.String(), text.String(), "a late subscriber gets the text so far")
	// A call that ended keeps its final only.
	publish(t, h, final("s", 1, want.String()))
	for seq := 1; seq <= 8; seq++ {
		publish(t, h, planned("s", 1+seq))
	}
	for _, e := range held(t, h, "s") {
		assert.NotEqual(t, live.Delta, e.Kind, "the ended call's deltas are compacted away")
	}
	for i := range 5 {
		publish(t, h, planned(fmt.Sprint("other-", i), 1))
	}
	assert.Equal(t, 3, h.Streams())
	assert.Equal(t, int64(3), h.Stats().Evicted)
	assert.Empty(t, held(t, h, "other-0"), "the least recently published stream went first")
}

// TestMemoryHubSlowSubscriber: a subscriber that falls behind is closed,
// and the publisher never waits for it.
func TestMemoryHubSlowSubscriber(t *testing.T) {
	t.Parallel()
	h, err := live.NewMemoryHub(live.MemoryOptions{SubscriberBuffer: 2})
	require.NoError(t, err)
	sub, err := h.Subscribe(t.Context(), "s")
	require.NoError(t, err)
	publish(t, h, planned("s", 1), planned("s", 2), planned("s", 3))
	n := 0
	for range sub.Events {
		n++
	}
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(1), h.Stats().Slow)
}

// TestBadInput: every entry point names what is wrong.
func TestBadInput(t *testing.T) {
	t.Parallel()
	_, err := live.NewMemoryHub(live.MemoryOptions{MaxEvents: -1})
	assert.ErrorContains(t, err, "MemoryOptions.MaxEvents is -1")
	h, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	for name, c := range map[string]struct {
		e    live.Event
		want string
	}{
		"no stream":  {live.Event{ID: "x", RunID: run, Kind: live.Planned, Call: 1}, "Event.Stream is empty"},
		"no id":      {live.Event{Stream: "s", RunID: run, Kind: live.Planned, Call: 1}, "Event.ID is empty"},
		"bad kind":   {live.Event{Stream: "s", ID: "x", RunID: run, Kind: "chatter", Call: 1}, `Kind "chatter"`},
		"no attempt": {live.Event{Stream: "s", ID: "x", RunID: run, Kind: live.Reset, Call: 1}, "Attempt is 0"},
		"no call":    {live.Event{Stream: "s", ID: "x", RunID: run, Kind: live.Final}, "Call is 0"},
		"bad text":   {live.Event{Stream: "s", ID: "x", RunID: run, Kind: live.Delta, Call: 1, Attempt: 1, Seq: 1, TextKind: "audio"}, `text kind "audio"`},
	} {
		assert.ErrorContains(t, h.Publish(context.Background(), c.e), c.want, name)
	}
	_, err = h.Subscribe(context.Background(), "")
	assert.ErrorContains(t, err, "stream name is empty")
	_, err = live.NewObserver(nil, live.Options{})
	assert.ErrorContains(t, err, "hub is nil")
	_, err = live.NewObserver(h, live.Options{Buffer: -2})
	assert.ErrorContains(t, err, "Options.Buffer is -2")
	_, err = live.NewHandler(h, live.HandlerOptions{})
	assert.ErrorContains(t, err, "HandlerOptions.Authorize is nil")
	_, err = live.NewHandler(nil, live.HandlerOptions{})
	assert.ErrorContains(t, err, "hub is nil")
}

// TestMemoryHubLateSubscriber: a subscriber that joins mid-call, after the
// stream was compacted, gets the call's text so far, then the live deltas.
func TestMemoryHubLateSubscriber(t *testing.T) {
	t.Parallel()
	h, err := live.NewMemoryHub(live.MemoryOptions{MaxEvents: 4})
	require.NoError(t, err)
	publish(t, h, planned("s", 1), reset("s", 1, 2))
	for seq, d := range []string{"The ", "quick ", "brown ", "fox "} {
		publish(t, h, delta("s", 1, 2, seq+1, d))
	}
	sub, err := h.Subscribe(t.Context(), "s")
	require.NoError(t, err)
	assert.Positive(t, sub.Exact, "compacted")
	publish(t, h, delta("s", 1, 2, 5, "jumps"), final("s", 1, "The quick brown fox jumps"))
	var text strings.Builder
	var last uint64
	for e := range sub.Events {
		assert.Greater(t, e.Offset, last, "in order")
		last = e.Offset
		if e.Kind == live.Delta {
			text.WriteString(e.Text)
		}
		if e.Kind == live.Final {
			break
		}
	}
	assert.Equal(t, "The quick brown fox jumps", text.String())
}
