package testsuite_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
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
	var clock testsuite.Clock = c
	clock.Sleep(2 * time.Second)
	clock.Sleep(0)
	clock.Sleep(-time.Second)
	clock.Sleep(500 * time.Millisecond)
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
