package charge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// fakeRun answers charge Updates the way the run's handler does for
// requests it knows, and records each Update it was sent. Updates of run
// "held" wait until release is closed.
type fakeRun struct {
	mu      sync.Mutex
	updates []sentUpdate
	release chan struct{}
	entered chan struct{}
	fail    error
}

type sentUpdate struct {
	name, id string
	reqs     []wire.ChargeRequest
}

func (f *fakeRun) transport() wire.ChargeTransport {
	return func(ctx context.Context, workflowID, runID, id string, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
		f.mu.Lock()
		f.updates = append(f.updates, sentUpdate{wire.ChargeUpdateName, id, reqs})
		f.mu.Unlock()
		if f.entered != nil {
			f.entered <- struct{}{}
		}
		if f.release != nil {
			select {
			case <-f.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if f.fail != nil {
			return nil, f.fail
		}
		out := make([]wire.ChargeResult, len(reqs))
		for i, r := range reqs {
			out[i] = wire.ChargeResult{Granted: r.Attempt <= 3}
		}
		return out, nil
	}
}

// chargerFor is a charger that sends through f on the system clock.
func chargerFor(f *fakeRun) *Charger {
	return NewCharger(f.transport(), vocab.SystemClock(), nil)
}

func (f *fakeRun) sent() []sentUpdate {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentUpdate(nil), f.updates...)
}

// queued is how many charges of target wait for an Update.
func (c *Charger) queued(target chargeTarget) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if q, ok := c.runs[target]; ok {
		return len(q.pending)
	}
	return 0
}

// TestChargerGathersTheChargesAskedWhileAnUpdateIsInFlight shows that a
// worker has at most one charge Update of a run in flight: the first charge
// goes at once, the ones asked meanwhile go together in the next Update,
// and each asker gets its own answer.
func TestChargerGathersTheChargesAskedWhileAnUpdateIsInFlight(t *testing.T) {
	run := &fakeRun{release: make(chan struct{}), entered: make(chan struct{}, 10)}
	ctx := context.Background()
	c := chargerFor(run)

	type answer struct {
		res wire.ChargeResult
		err error
	}
	first := make(chan answer, 1)
	go func() {
		res, err := c.ask(ctx, targetOf("r1"), wire.ChargeRequest{Call: "call-1", Attempt: 2})
		first <- answer{res, err}
	}()
	<-run.entered // the first Update is in flight, alone

	const more = 5
	answers := make([]chan answer, more)
	for i := range answers {
		answers[i] = make(chan answer, 1)
		go func() {
			// The fifth asks for attempt 4, which the fake run refuses.
			res, err := c.ask(ctx, targetOf("r1"), wire.ChargeRequest{Call: "call-" + string(rune('2'+i)), Attempt: 2 + i/4*2})
			answers[i] <- answer{res, err}
		}()
	}
	target := chargeTarget{workflowID: "wf", runID: "r1"}
	for c.queued(target) < more {
		time.Sleep(time.Millisecond) // until every asker has queued; no deadline is involved
	}
	close(run.release)

	a := <-first
	require.NoError(t, a.err)
	assert.True(t, a.res.Granted)
	for i, ch := range answers {
		a := <-ch
		require.NoError(t, a.err, i)
		assert.Equal(t, i < 4, a.res.Granted, "each asker gets the answer to its own request (%d)", i)
	}
	sent := run.sent()
	require.Len(t, sent, 2, "one Update with the first charge, one with the five asked while it was in flight")
	assert.Len(t, sent[0].reqs, 1)
	assert.Len(t, sent[1].reqs, more)
	assert.Equal(t, wire.ChargeUpdateName, sent[1].name)
	assert.Equal(t, wire.ChargeUpdateName+"/call-1/2", sent[0].id, "a lone charge's Update is named after it")
	assert.Equal(t, chargeUpdateID(sent[1].reqs), sent[1].id)
	assert.Zero(t, c.queued(target))
	// The sender forgets the run once it finds nothing more to send, just
	// after it delivered the answers.
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.runs) == 0
	}, time.Minute, time.Millisecond, "a run with nothing to send is forgotten")
}

// TestChargerKeepsRunsApart shows that one run's Update in flight never
// holds another run's charge.
func TestChargerKeepsRunsApart(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	c := NewCharger(func(ctx context.Context, workflowID, runID, id string, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
		if runID == "r1" {
			entered <- struct{}{}
			<-release
		}
		return []wire.ChargeResult{{Granted: true}}, nil
	}, vocab.SystemClock(), nil)
	go func() {
		_, _ = c.ask(context.Background(), targetOf("r1"), wire.ChargeRequest{Call: "call-1", Attempt: 2})
	}()
	<-entered
	res, err := c.ask(context.Background(), targetOf("r2"), wire.ChargeRequest{Call: "call-1", Attempt: 2})
	require.NoError(t, err, "another run is not held up")
	assert.True(t, res.Granted)
	close(release)
}

// TestChargerAnswersEveryAskerWithTheUpdatesError shows that an Update that
// fails fails every charge it carried, and that an asker that stopped
// waiting is not sent at all.
func TestChargerAnswersEveryAskerWithTheUpdatesError(t *testing.T) {
	run := &fakeRun{release: make(chan struct{}), entered: make(chan struct{}, 10), fail: errors.New("workflow not found")}
	ctx := context.Background()
	c := chargerFor(run)
	errs := make(chan error, 3)
	go func() {
		_, err := c.ask(ctx, targetOf("r1"), wire.ChargeRequest{Call: "call-1", Attempt: 2})
		errs <- err
	}()
	<-run.entered
	gone, giveUp := context.WithCancel(ctx)
	goneErr := make(chan error, 1)
	go func() {
		_, err := c.ask(gone, targetOf("r1"), wire.ChargeRequest{Call: "call-9", Attempt: 2})
		goneErr <- err
	}()
	go func() {
		_, err := c.ask(ctx, targetOf("r1"), wire.ChargeRequest{Call: "call-2", Attempt: 2})
		errs <- err
	}()
	target := chargeTarget{workflowID: "wf", runID: "r1"}
	for c.queued(target) < 2 {
		time.Sleep(time.Millisecond)
	}
	giveUp()
	assert.ErrorIs(t, <-goneErr, context.Canceled, "the asker that gave up gets its context's error")
	close(run.release)
	for range 2 {
		assert.ErrorContains(t, <-errs, "workflow not found")
	}
	sent := run.sent()
	require.Len(t, sent, 2)
	assert.Equal(t, []wire.ChargeRequest{{Call: "call-2", Attempt: 2}}, sent[1].reqs, "the charge nobody waits for is not sent")
}

// TestChargeUpdateIDFollowsWhatItAsks shows that asking again for the same
// charges names the same Update, which the server answers once, and that
// different charges never share a name.
func TestChargeUpdateIDFollowsWhatItAsks(t *testing.T) {
	a := []wire.ChargeRequest{{Call: "call-1", Attempt: 2}, {Call: "call-2", Attempt: 3}}
	b := []wire.ChargeRequest{{Call: "call-1", Attempt: 2}, {Call: "call-2", Attempt: 4}}
	assert.Equal(t, chargeUpdateID(a), chargeUpdateID(append([]wire.ChargeRequest(nil), a...)))
	assert.NotEqual(t, chargeUpdateID(a), chargeUpdateID(b))
	assert.NotEqual(t, chargeUpdateID(a[:1]), chargeUpdateID(a))
	assert.Equal(t, "temporaladk.charges/call-1/2", chargeUpdateID(a[:1]))
}

func targetOf(runID string) chargeTarget {
	return chargeTarget{workflowID: "wf", runID: runID}
}

// The default transport refuses a nil context with an error naming the
// call, as every exported function of the kit does.
func TestClientChargeTransportRefusesANilContext(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	_, err := clientChargeTransport(nilCtx, "wf", "run", "u", nil)
	require.ErrorContains(t, err, "the charge transport: ctx is nil")
}

func TestClassifyChargeError(t *testing.T) {
	outOfUpdates := serviceerror.NewFailedPrecondition("The limit on the total number of distinct updates in this workflow has been reached.")
	otherPrecondition := serviceerror.NewFailedPrecondition("the workflow is not running on a compatible build")
	notFound := serviceerror.NewNotFound("workflow execution already completed")
	closedApp := temporal.NewNonRetryableApplicationError("handed over", temporaladk.TypeBudgetClosed, nil)
	otherApp := temporal.NewApplicationError("something else", "SomeType")
	plain := errors.New("connection reset")
	tests := []struct {
		name string
		err  error
		want error // the sentinel, or nil for "returned as it is"
	}{
		{"server out of Updates", outOfUpdates, ErrRunOutOfUpdates},
		{"server out of Updates, wrapped", fmt.Errorf("sending: %w", outOfUpdates), ErrRunOutOfUpdates},
		{"another failed precondition", otherPrecondition, nil},
		{"run closed", notFound, ErrBudgetClosed},
		{"run closed, wrapped", fmt.Errorf("sending: %w", notFound), ErrBudgetClosed},
		{"validator's rejection", closedApp, ErrBudgetClosed},
		{"validator's rejection, wrapped", fmt.Errorf("update: %w", closedApp), ErrBudgetClosed},
		{"another application error", otherApp, nil},
		{"a transport error", plain, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classifyChargeError(tt.err)
			if tt.want == nil {
				assert.Same(t, tt.err, got, "returned as it is")
				assert.False(t, Final(got), "the next attempt asks again")
				return
			}
			assert.ErrorIs(t, got, tt.want)
			assert.True(t, Final(got))
			assert.Contains(t, got.Error(), tt.err.Error(), "the server's own words are kept")
		})
	}
}
