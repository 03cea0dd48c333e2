package temporaladk_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestHeartbeaterCountsWithoutBeating(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	var beats []temporaladk.Heartbeat
	clk := testsuite.NewFakeClock(now)
	h, err := temporaladk.NewHeartbeater(func(b temporaladk.Heartbeat) { beats = append(beats, b) }, 60*time.Second, clk, "step-3")
	require.NoError(t, err)
	assert.Equal(t, 20*time.Second, h.Interval(), "three beats per window")
	for i := 0; i < 10000; i++ {
		h.Chunk(10)
	}
	assert.Empty(t, beats, "never once per token: Chunk only counts")
	assert.True(t, h.BeatIfDue(), "the first beat is due at once")
	require.NoError(t, clk.Advance(19*time.Second))
	assert.False(t, h.BeatIfDue())
	require.NoError(t, clk.Advance(time.Second))
	assert.True(t, h.BeatIfDue())
	require.Len(t, beats, 2)
	assert.Equal(t, temporaladk.Heartbeat{Step: "step-3", Tokens: 100000, Chunks: 10000, Time: now.Add(20 * time.Second)}, beats[1])
	assert.False(t, beats[1].IsResult(), "a heartbeat is never a result")
	assert.EqualValues(t, 2, h.Beats())
}

// A heartbeat carries the step, a token count, a chunk count and a time, and
// nothing else.
func TestHeartbeatCarriesNoText(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	raw, err := json.Marshal(temporaladk.Heartbeat{Step: "s", Tokens: 1, Chunks: 1, Time: now})
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(raw, &fields))
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"step", "tokens", "chunks", "time"}, keys)
}

// Run beats on its clock: with a fake clock, each third of the window the
// test moves it is one beat, whatever the real clock does, and a silent
// activity keeps beating.
func TestHeartbeaterRunBeatsOnItsClock(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	clk := testsuite.NewFakeClock(now)
	beats := make(chan temporaladk.Heartbeat, 100)
	h, err := temporaladk.NewHeartbeater(func(b temporaladk.Heartbeat) { beats <- b }, 30*time.Second, clk, "stream")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	assert.Equal(t, now, (<-beats).Time, "one beat at once")
	for i := 1; i <= 3; i++ {
		require.NoError(t, clk.BlockUntil(t.Context(), 1), "Run waits on the clock")
		assert.Empty(t, beats, "no beat before the clock moves")
		require.NoError(t, clk.Advance(10*time.Second))
		assert.Equal(t, now.Add(time.Duration(i)*10*time.Second), (<-beats).Time, "beat %d after a third of the window", i)
	}
	cancel()
	<-done
	assert.EqualValues(t, 4, h.Beats())
	require.NoError(t, clk.Advance(time.Hour))
	assert.EqualValues(t, 4, h.Beats(), "no beat after Run returns")
}

func TestNewHeartbeaterRefusesBadInput(t *testing.T) {
	t.Parallel()
	record := func(temporaladk.Heartbeat) {}
	clock := vocab.SystemClock()
	_, err := temporaladk.NewHeartbeater(nil, time.Minute, clock, "")
	assert.ErrorContains(t, err, "record is nil")
	_, err = temporaladk.NewHeartbeater(record, time.Minute, nil, "")
	assert.ErrorContains(t, err, "clock is nil")
	_, err = temporaladk.NewHeartbeater(record, 0, clock, "")
	assert.ErrorContains(t, err, "window is 0s")
	_, err = temporaladk.NewHeartbeater(record, -time.Second, clock, "")
	assert.ErrorContains(t, err, "window is -1s")
}

func TestHeartbeaterFromOutsideTheKit(t *testing.T) {
	t.Parallel()
	h := temporaladk.HeartbeaterFrom(context.Background())
	require.NotNil(t, h)
	h.Chunk(5) // safe to call unconditionally
	h.Beat()
	assert.EqualValues(t, 5, h.Snapshot().Tokens)

	beating, err := temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, time.Minute, vocab.SystemClock(), "s")
	require.NoError(t, err)
	ctx := vocab.WithActivityCall(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model, IdempotencyKey: "k", Heartbeater: beating})
	assert.Same(t, beating, temporaladk.HeartbeaterFrom(ctx))
	assert.Equal(t, "k", vocabtest.CallOf(ctx).IdempotencyKey)
	assert.Equal(t, temporaladk.Model, vocabtest.CallOf(ctx).Class)
	assert.Empty(t, vocabtest.CallOf(context.Background()).IdempotencyKey)
	assert.Empty(t, vocabtest.CallOf(context.Background()).Class)
}

// TestHeartbeaterSendsBeatsInTheOrderTheyWereTaken: a beat taken while
// another is being handed to record waits its turn and then carries the
// counts of that moment, so the last beat record sees is the newest. The SDK
// keeps the last details it is handed; out of order, the server's last
// heartbeat went backwards (a retry once resumed from 0 chunks instead of
// 20).
func TestHeartbeaterSendsBeatsInTheOrderTheyWereTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		var sent []int64
		first := true
		hb, err := temporaladk.NewHeartbeater(func(b temporaladk.Heartbeat) {
			mu.Lock()
			sent = append(sent, b.Chunks)
			wait := first
			first = false
			mu.Unlock()
			if wait {
				<-release // the first beat is slow on its way to the SDK
			}
		}, 3*time.Second, vocab.SystemClock(), "stream")
		require.NoError(t, err)

		go hb.Beat() // taken with 0 chunks, held inside record
		synctest.Wait()
		for range 20 {
			hb.Chunk(1)
		}
		go hb.Beat() // the activity's own last word
		synctest.Wait()
		mu.Lock()
		assert.Equal(t, []int64{0}, sent, "the second beat waits until the first was handed over")
		mu.Unlock()

		close(release)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []int64{0, 20}, sent, "handed over in order: the last is the newest")
	})
}
