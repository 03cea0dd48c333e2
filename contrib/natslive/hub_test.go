package natslive_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/natslive"
	"github.com/temporaladk/adk-go/contrib/natslive/natstest"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// connect returns a JetStream context on a connection of its own to srv:
// each one stands for a process of a fleet.
func connect(t *testing.T, srv *natstest.Server, opts ...nats.Option) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(srv.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// newHub returns a Hub on a connection of its own to srv.
func newHub(t *testing.T, ctx context.Context, srv *natstest.Server, opts natslive.Options) *natslive.Hub {
	t.Helper()
	h, err := natslive.New(ctx, connect(t, srv), opts)
	require.NoError(t, err)
	return h
}

// call is a MODEL call's events in one run: planned, each attempt's reset
// and deltas, final.
type call struct {
	stream, run string
	n           int
}

func (c call) event(kind live.Kind) live.Event {
	return live.Event{Stream: c.stream, WorkflowID: c.stream, RunID: c.run, Kind: kind, Call: c.n,
		ActivityType: "Chat", Class: temporaladk.Model}
}

func (c call) planned() live.Event {
	e := c.event(live.Planned)
	e.ID = live.PlannedID(c.run, false, c.n)
	return e
}

func (c call) reset(attempt int) live.Event {
	e := c.event(live.Reset)
	e.ID, e.Attempt = live.ResetID(c.run, false, c.n, attempt), attempt
	return e
}

func (c call) delta(attempt, seq int, text string) live.Event {
	e := c.event(live.Delta)
	e.ID, e.Attempt, e.Seq, e.TextKind, e.Text = live.DeltaID(c.run, false, c.n, attempt, seq), attempt, seq, providers.Text, text
	return e
}

func (c call) final(result string) live.Event {
	e := c.event(live.Final)
	e.ID, e.Outcome, e.Output = live.FinalID(c.run, false, c.n), "completed", []byte(`"`+result+`"`)
	return e
}

// read takes n events of sub, failing the test if ctx ends first.
func read(t *testing.T, ctx context.Context, sub live.Subscription, n int) []live.Event {
	t.Helper()
	var out []live.Event
	for len(out) < n {
		select {
		case e, ok := <-sub.Events:
			require.True(t, ok, "Events closed after %d of %d events", len(out), n)
			out = append(out, e)
		case <-ctx.Done():
			t.Fatalf("%d of %d events read: %v", len(out), n, ctx.Err())
		}
	}
	return out
}

func ids(events []live.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

// TestEachEventOnceAcrossPublishers: two processes publish one call's
// events (the second took the workflow over, and publishes again what the
// first had published, then attempt 2), a third reads them: each event
// once, the dead attempt's late delta and the text after the final
// dropped, in the order the stream holds them, with offsets that grow.
func TestEachEventOnceAcrossPublishers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	first := newHub(t, ctx, srv, natslive.Options{})
	second := newHub(t, ctx, srv, natslive.Options{})
	web := newHub(t, ctx, srv, natslive.Options{})
	c := call{stream: "agent-1", run: "run-1", n: 1}

	sub, err := web.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	assert.Zero(t, sub.Exact, "a stream nothing was published to holds every event exactly")

	for _, e := range []live.Event{c.planned(), c.reset(1), c.delta(1, 1, "Good"), c.delta(1, 2, "bye")} {
		require.NoError(t, first.Publish(ctx, e))
	}
	// The takeover: the same events again, then the retry.
	for _, e := range []live.Event{c.planned(), c.reset(1), c.delta(1, 1, "Good"), c.reset(2), c.delta(2, 1, "Hello"),
		c.delta(1, 3, "late text of the dead attempt"), c.delta(2, 1, "Hello"), c.final("Hello"), c.delta(2, 2, "after the end")} {
		require.NoError(t, second.Publish(ctx, e))
	}
	// A marker published last: everything before it was read once it is.
	marker := call{stream: c.stream, run: c.run, n: 2}.planned()
	require.NoError(t, first.Publish(ctx, marker))

	want := []string{c.planned().ID, c.reset(1).ID, c.delta(1, 1, "").ID, c.delta(1, 2, "").ID, c.reset(2).ID,
		c.delta(2, 1, "").ID, c.final("").ID, marker.ID}
	got := read(t, ctx, sub, len(want))
	assert.Equal(t, want, ids(got))
	for i := 1; i < len(got); i++ {
		assert.Greater(t, got[i].Offset, got[i-1].Offset, "offsets grow: %s after %s", got[i].ID, got[i-1].ID)
	}

	// A late subscriber, in another process, decides the same.
	late, err := second.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	again := read(t, ctx, late, len(want))
	assert.Equal(t, got, again, "every subscriber reads the same events at the same offsets")
}

// TestLateSubscriberGetsTheTextSoFar: a screen that joins in the middle of
// a call reads the call's text so far, then the live deltas as they are
// published.
func TestLateSubscriberGetsTheTextSoFar(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	worker := newHub(t, ctx, srv, natslive.Options{})
	web := newHub(t, ctx, srv, natslive.Options{})
	c := call{stream: "agent-2", run: "run-1", n: 1}
	sofar := []string{"The ", "answer ", "is "}
	require.NoError(t, worker.Publish(ctx, c.planned()))
	require.NoError(t, worker.Publish(ctx, c.reset(1)))
	for i, d := range sofar {
		require.NoError(t, worker.Publish(ctx, c.delta(1, i+1, d)))
	}

	sub, err := web.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	var text strings.Builder
	for _, e := range read(t, ctx, sub, 2+len(sofar)) {
		text.WriteString(e.Text)
	}
	assert.Equal(t, strings.Join(sofar, ""), text.String(), "the text so far, before anything live")

	require.NoError(t, worker.Publish(ctx, c.delta(1, len(sofar)+1, "42.")))
	live := read(t, ctx, sub, 1)
	assert.Equal(t, "42.", live[0].Text, "then the live delta")
}

// TestRetentionIsExactOrSaysSo: with room for five events of a stream,
// eight published leave the last five; a subscriber's Exact is at or after
// the last event that went and before the first held one, so a screen
// that had read up to a removed event starts over (live's resync), and one
// that had read a held event resumes exactly.
func TestRetentionIsExactOrSaysSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	const room = 5
	opts := natslive.Options{Stream: "RETENTION", Subjects: "retention", MaxEventsPerStream: room}
	worker := newHub(t, ctx, srv, opts)
	web := newHub(t, ctx, srv, opts)
	c := call{stream: "agent-3", run: "run-1", n: 1}
	events := []live.Event{c.planned(), c.reset(1)}
	for seq := 1; len(events) < room+3; seq++ {
		events = append(events, c.delta(1, seq, "x"))
	}

	// A first screen reads each event as it is published.
	watching, err := web.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	var all []live.Event
	for _, e := range events {
		require.NoError(t, worker.Publish(ctx, e))
		all = append(all, read(t, ctx, watching, 1)...)
	}
	gone := len(events) - room

	sub, err := web.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, sub.Exact, all[gone-1].Offset, "the last event removed is at or before Exact")
	assert.Less(t, sub.Exact, all[gone].Offset, "the first event held is after Exact")
	assert.Equal(t, ids(all[gone:]), ids(read(t, ctx, sub, room)), "the held events, oldest first")

	// A screen that read every held event, then falls a window behind, is
	// closed before it misses an event: what it read is the stream without
	// a gap.
	behind, err := web.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	caughtUp := read(t, ctx, behind, room)
	more := []live.Event{}
	for seq := len(events) - 1; len(more) < room+3; seq++ {
		more = append(more, c.delta(1, seq, "y"))
	}
	for _, e := range more {
		require.NoError(t, worker.Publish(ctx, e))
	}
	// It reads every event (what the consumer had fetched before retention
	// removed it), or a prefix and is closed: never a gap.
	got := caughtUp
	last := more[len(more)-1].ID
	for got[len(got)-1].ID != last {
		e, ok := <-behind.Events
		if !ok {
			break
		}
		got = append(got, e)
	}
	published := ids(append(all, more...))
	at := slices.Index(published, got[0].ID)
	require.GreaterOrEqual(t, at, 0)
	require.LessOrEqual(t, at+len(got), len(published), "%v", ids(got))
	assert.Equal(t, published[at:at+len(got)], ids(got), "no event missing in what it read")
}

// TestFleetOptionsDiffer: a process whose Options differ from the stream's
// is refused, naming each setting; the same Options are accepted.
func TestFleetOptionsDiffer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	newHub(t, ctx, srv, natslive.Options{MaxAge: time.Hour})
	newHub(t, ctx, srv, natslive.Options{MaxAge: time.Hour})
	_, err := natslive.New(ctx, connect(t, srv), natslive.Options{MaxAge: 2 * time.Hour, MaxEventsPerStream: 7})
	require.Error(t, err)
	for _, want := range []string{"TEMPORALADK_LIVE", "MaxAge is 1h0m0s, the Options ask 2h0m0s",
		"MaxMsgsPerSubject (Options.MaxEventsPerStream) is 100000, the Options ask 7"} {
		assert.Contains(t, err.Error(), want)
	}
}

// TestBadInput: each bad option and argument is an error naming it, and
// an event a hub cannot keep is refused before it reaches NATS.
func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	js := connect(t, srv)
	for _, tc := range []struct {
		opts natslive.Options
		want string
	}{
		{natslive.Options{Stream: "a.b"}, `Options.Stream "a.b"`},
		{natslive.Options{Subjects: "live.>"}, `Options.Subjects "live.>"`},
		{natslive.Options{MaxAge: -time.Second}, "Options.MaxAge is -1s"},
		{natslive.Options{MaxEventsPerStream: -1}, "Options.MaxEventsPerStream is -1"},
		{natslive.Options{MaxBytes: -1}, "Options.MaxBytes is -1"},
		{natslive.Options{Duplicates: -time.Second}, "Options.Duplicates is -1s"},
		{natslive.Options{Timeout: -time.Second}, "Options.Timeout is -1s"},
		{natslive.Options{MaxAge: time.Minute, Duplicates: time.Hour}, "Options.Duplicates 1h0m0s is longer than Options.MaxAge 1m0s"},
	} {
		_, err := natslive.New(ctx, js, tc.opts)
		if assert.Error(t, err, "%+v", tc.opts) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	_, err := natslive.New(ctx, nil, natslive.Options{})
	assert.ErrorContains(t, err, "js is nil")
	var noCtx context.Context // the mistake under test
	_, err = natslive.New(noCtx, js, natslive.Options{})
	assert.ErrorContains(t, err, "ctx is nil")

	h := newHub(t, ctx, srv, natslive.Options{})
	err = h.Publish(ctx, live.Event{ID: "x", Stream: "s", Kind: live.Delta, RunID: "r", Call: 1})
	assert.ErrorContains(t, err, "Attempt is 0")
	_, err = h.Subscribe(ctx, "")
	assert.ErrorContains(t, err, "stream name is empty")
}

// TestNATSDown: with the server stopped, Publish fails within its
// Timeout (the observer drops the event, no call waits on it), a
// subscription's Events closes and Subscribe fails; once the server is
// back, on the same files, the stream is there with what it held.
func TestNATSDown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	// A connection that reconnects at once when the server is back, and
	// says so.
	back := make(chan struct{}, 1)
	js := connect(t, srv, nats.MaxReconnects(-1), nats.ReconnectWait(10*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { back <- struct{}{} }))
	h, err := natslive.New(ctx, js, natslive.Options{Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	c := call{stream: "agent-4", run: "run-1", n: 1}
	require.NoError(t, h.Publish(ctx, c.planned()))
	sub, err := h.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	read(t, ctx, sub, 1)

	require.NoError(t, srv.Stop())
	err = h.Publish(ctx, c.reset(1))
	require.Error(t, err, "a publish to a server that is down fails")
	assert.Contains(t, err.Error(), c.reset(1).ID)
	for range sub.Events {
		// Drained until the subscription closes.
	}
	_, err = h.Subscribe(ctx, c.stream)
	assert.Error(t, err, "no subscription while the server is down")

	require.NoError(t, srv.Restart(ctx))
	select {
	case <-back:
	case <-ctx.Done():
		t.Fatal("the connection did not come back")
	}
	require.NoError(t, h.Publish(ctx, c.reset(1)))
	sub, err = h.Subscribe(ctx, c.stream)
	require.NoError(t, err)
	assert.Equal(t, []string{c.planned().ID, c.reset(1).ID}, ids(read(t, ctx, sub, 2)), "what the stream held before, and the new event")
}

// TestEndedSubscriptionsLeaveNoConsumer: a subscription that ends (its
// context, here) deletes its consumer on the server before its Events
// closes: a web process that served many screens leaves the stream as it
// found it.
func TestEndedSubscriptionsLeaveNoConsumer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := natstest.Start(t)
	js := connect(t, srv)
	h, err := natslive.New(ctx, js, natslive.Options{})
	require.NoError(t, err)
	c := call{stream: "agent-5", run: "run-1", n: 1}
	require.NoError(t, h.Publish(ctx, c.planned()))
	const screens = 20
	for range screens {
		sctx, scancel := context.WithCancel(ctx)
		sub, err := h.Subscribe(sctx, c.stream)
		require.NoError(t, err)
		read(t, ctx, sub, 1)
		scancel()
		for range sub.Events {
		}
	}
	s, err := js.Stream(ctx, natslive.DefaultStream)
	require.NoError(t, err)
	var names []string
	for name := range s.ListConsumers(ctx).Info() {
		names = append(names, name.Name)
	}
	assert.Empty(t, names, "the consumers of %d ended subscriptions", screens)
}
