package testsuite_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestFakeClockAdvance(t *testing.T) {
	clockStart := testclock.Epoch(t)
	t.Parallel()
	c := testsuite.NewFakeClock(clockStart)
	require.Equal(t, clockStart, c.Now())
	require.NoError(t, c.Advance(30*time.Second))
	require.NoError(t, c.Advance(15*time.Second))
	assert.Equal(t, clockStart.Add(45*time.Second), c.Now())
	require.NoError(t, c.Advance(0))
	assert.Equal(t, clockStart.Add(45*time.Second), c.Now())
}

func TestFakeClockRefusesNegativeAdvance(t *testing.T) {
	clockStart := testclock.Epoch(t)
	t.Parallel()
	c := testsuite.NewFakeClock(clockStart)
	err := c.Advance(-time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-1s")
	assert.Equal(t, clockStart, c.Now(), "a refused advance leaves the clock alone")
}

func TestFakeClockRecordsSleeps(t *testing.T) {
	clockStart := testclock.Epoch(t)
	t.Parallel()
	c := testsuite.NewFakeClock(clockStart)
	c.Sleep(2 * time.Second)
	c.Sleep(0)
	c.Sleep(-time.Second)
	c.Sleep(500 * time.Millisecond)
	assert.Equal(t, []time.Duration{2 * time.Second, 0, -time.Second, 500 * time.Millisecond}, c.Sleeps())
	assert.Equal(t, clockStart.Add(2500*time.Millisecond), c.Now(), "non-positive sleeps do not move the clock")

	sleeps := c.Sleeps()
	sleeps[0] = time.Hour
	assert.Equal(t, 2*time.Second, c.Sleeps()[0], "Sleeps returns a copy")
}

func TestFakeClockConcurrent(t *testing.T) {
	clockStart := testclock.Epoch(t)
	t.Parallel()
	c := testsuite.NewFakeClock(clockStart)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			c.Sleep(time.Second)
			_ = c.Advance(time.Second)
			_ = c.Now()
			_ = c.Sleeps()
		})
	}
	wg.Wait()
	assert.Equal(t, clockStart.Add(100*time.Second), c.Now())
	assert.Len(t, c.Sleeps(), 50)
}

func TestFakeClockEndsWaitsItReaches(t *testing.T) {
	t.Parallel()
	clockStart := testclock.Epoch(t)
	c := testsuite.NewFakeClock(clockStart)
	var clock temporaladk.Clock = c
	soon, later := clock.After(time.Second), clock.After(time.Minute)
	select {
	case <-clock.After(0):
	default:
		t.Fatal("a wait of zero has passed already")
	}
	assert.Equal(t, 2, c.Waiters())
	require.NoError(t, c.Advance(999*time.Millisecond))
	assert.Empty(t, soon, "not reached yet")
	c.Sleep(time.Millisecond)
	assert.Equal(t, clockStart.Add(time.Second), <-soon, "a Sleep that reaches a wait ends it")
	assert.Equal(t, 1, c.Waiters())
	require.NoError(t, c.Advance(time.Hour))
	assert.Equal(t, clockStart.Add(time.Second+time.Hour), <-later)
	assert.Zero(t, c.Waiters())
}

func TestFakeClockBlockUntil(t *testing.T) {
	t.Parallel()
	c := testsuite.NewFakeClock(testclock.Epoch(t))
	done := make(chan time.Time)
	go func() { done <- <-c.After(time.Second) }()
	require.NoError(t, c.BlockUntil(t.Context(), 1), "returns once the goroutine waits")
	require.NoError(t, c.Advance(time.Second))
	<-done
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorContains(t, c.BlockUntil(ctx, 5), "BlockUntil(5): 0 waits after context canceled")
}

func TestFakeClockWithDeadline(t *testing.T) {
	t.Parallel()
	clockStart := testclock.Epoch(t)
	c := testsuite.NewFakeClock(clockStart)
	ctx, cancel := c.WithDeadline(t.Context(), 1500*time.Millisecond)
	defer cancel()
	deadline, has := ctx.Deadline()
	require.True(t, has)
	assert.Equal(t, clockStart.Add(1500*time.Millisecond), deadline, "the deadline is an instant of the fake clock")
	assert.NoError(t, ctx.Err(), "the real clock does not reach it")
	require.NoError(t, c.Advance(1500*time.Millisecond))
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)

	early, cancelEarly := c.WithDeadline(t.Context(), time.Hour)
	cancelEarly()
	<-early.Done()
	assert.ErrorIs(t, early.Err(), context.Canceled, "cancel is not a deadline")
}
