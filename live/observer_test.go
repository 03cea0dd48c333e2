package live_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// gatedHub holds each Publish until the test lets it go.
type gatedHub struct {
	entered chan live.Event
	release chan struct{}
	fail    error
}

func (g *gatedHub) Publish(_ context.Context, e live.Event) error {
	g.entered <- e
	<-g.release
	return g.fail
}

func (g *gatedHub) Subscribe(context.Context, string) (live.Subscription, error) {
	return live.Subscription{}, errors.New("not here")
}

// counter counts the MetricDropped increments.
type counter struct {
	client.MetricsHandler
	n *atomic.Int64
}

func (c counter) WithTags(map[string]string) client.MetricsHandler { return c }

func (c counter) Counter(name string) client.MetricsCounter {
	if name != live.MetricDropped {
		return c.MetricsHandler.Counter(name)
	}
	return inc{c.n}
}

type inc struct{ n *atomic.Int64 }

func (i inc) Inc(d int64) { i.n.Add(d) }

var chat = observe.Attempt{ActivityType: "Chat", Number: 2, Header: true, Class: temporaladk.Model, Call: 3,
	WorkflowID: "agent-7", RunID: "run-1", ActivityID: "5", RootWorkflowID: "root-1"}

// TestObserverPublishesAttempts: an attempt's reset and deltas go to the
// hub with their IDs from history's coordinates, in the root's stream.
func TestObserverPublishesAttempts(t *testing.T) {
	t.Parallel()
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	o, err := live.NewObserver(hub, live.Options{})
	require.NoError(t, err)
	o.AttemptStarted(context.Background(), chat)
	o.TextDelta(context.Background(), chat, observe.Delta{Kind: providers.Text, Text: "Hi", Seq: 1})
	o.TextDelta(context.Background(), observe.Attempt{Number: 1}, observe.Delta{Kind: providers.Text, Text: "unplanned", Seq: 1})
	require.NoError(t, o.Close())
	got := held(t, hub, "root-1")
	require.Len(t, got, 2, "an attempt without the kit's header has no call to name")
	assert.Equal(t, live.Event{ID: "run-1/c3/a2", Offset: 1, Stream: "root-1", Kind: live.Reset, WorkflowID: "agent-7", RunID: "run-1", Call: 3,
		ActivityID: "5", ActivityType: "Chat", Class: temporaladk.Model, Attempt: 2}, got[0])
	assert.Equal(t, "run-1/c3/a2/1", got[1].ID)
	assert.Equal(t, "Hi", got[1].Text)
	assert.Zero(t, o.Dropped())
}

// TestObserverNeverWaits: with the hub stuck, the observer holds Buffer
// events and drops the rest, counted; a hub that fails is counted too.
func TestObserverNeverWaits(t *testing.T) {
	t.Parallel()
	hub := &gatedHub{entered: make(chan live.Event, 1), release: make(chan struct{}), fail: errors.New("down")}
	var dropped atomic.Int64
	o, err := live.NewObserver(hub, live.Options{Buffer: 4, MetricsHandler: counter{client.MetricsNopHandler, &dropped}})
	require.NoError(t, err)
	o.AttemptStarted(context.Background(), chat)
	<-hub.entered // the publisher is stuck in the hub with the first
	for seq := 1; seq <= 4+3; seq++ {
		o.TextDelta(context.Background(), chat, observe.Delta{Kind: providers.Text, Text: "x", Seq: seq})
	}
	assert.Equal(t, int64(3), o.Dropped(), "four held, three dropped")
	go func() {
		for range hub.entered {
		}
	}()
	close(hub.release)
	require.NoError(t, o.Close())
	close(hub.entered)
	assert.Equal(t, int64(3+5), o.Dropped(), "and the five the failing hub refused")
	assert.Equal(t, o.Dropped(), dropped.Load(), "each counted in the metric")
	o.AttemptStarted(context.Background(), chat)
	assert.Equal(t, int64(9), o.Dropped(), "after Close, dropped")
}
