package benchkit_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

func TestRetries(t *testing.T) {
	t0 := testclock.Epoch(t)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	plain := []benchkit.Attempt{
		{Start: at(0), End: at(10), Wait: 200 * time.Millisecond},
		{Start: at(215), End: at(220), Wait: 300 * time.Millisecond},
		{Start: at(1520), End: at(1521)},
	}
	assert.Equal(t, []benchkit.Retry{
		{Late: 5 * time.Millisecond, Rest: 5 * time.Millisecond},
		{Late: time.Second, Rest: time.Second},
	}, benchkit.Retries(plain), "without the kit's times, all of it is the rest")
	assert.Empty(t, benchkit.Retries(plain[:1]), "one attempt is no retry")

	kit := []benchkit.Attempt{
		{KitStart: at(0), Start: at(1), End: at(10), KitEnd: at(16), Wait: 200 * time.Millisecond},
		{KitStart: at(220), Start: at(222), End: at(230), KitEnd: at(231)},
	}
	assert.Equal(t, []benchkit.Retry{
		{Late: 12 * time.Millisecond, KitAfter: 6 * time.Millisecond, KitBefore: 2 * time.Millisecond, Rest: 4 * time.Millisecond},
	}, benchkit.Retries(kit))
	assert.Equal(t, []time.Duration{12 * time.Millisecond}, benchkit.Late(benchkit.Retries(kit)))
}

func TestBadInput(t *testing.T) {
	_, err := benchkit.StartWorker(nil, "q", false)
	assert.ErrorContains(t, err, "nil client")
	c := testsuite.DevServerFor(t).Client()
	_, err = benchkit.StartWorker(c, "", false)
	assert.ErrorContains(t, err, "empty task queue")

	plain, kit, err := benchkit.StartWorkers(c, "bench-bad-input")
	require.NoError(t, err)
	t.Cleanup(plain.Stop)
	t.Cleanup(kit.Stop)
	ctx := context.Background()
	_, err = benchkit.RunPairs(ctx, c, plain, kit, benchkit.Workload{Activities: 1}, 0, nil)
	assert.ErrorContains(t, err, "0 pairs")
	_, err = benchkit.RunPairs(ctx, c, kit, plain, benchkit.Workload{Activities: 1}, 1, nil)
	assert.ErrorContains(t, err, "want a plain worker and a kit worker")
	_, err = plain.Run(ctx, c, benchkit.Workload{})
	assert.ErrorContains(t, err, "0 activities")
	_, err = kit.RetryLateness(ctx, c, 0, false)
	assert.ErrorContains(t, err, "0 failures")
	_, err = plain.RetryLateness(ctx, c, 1, true)
	assert.ErrorContains(t, err, "budgets are the kit's")
}

func TestRunPairs(t *testing.T) {
	c := testsuite.DevServerFor(t).Client()
	plain, kit, err := benchkit.StartWorkers(c, "bench-pairs")
	require.NoError(t, err)
	t.Cleanup(plain.Stop)
	t.Cleanup(kit.Stop)
	res, err := benchkit.RunPairs(context.Background(), c, plain, kit, benchkit.Workload{Activities: 3, Parallel: true}, 2, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Ratio.N)
	assert.Equal(t, 2, res.Plain.N)
	assert.Positive(t, res.Plain.Min)
	assert.Positive(t, res.Kit.Min)
	assert.Positive(t, res.TotalRatio)
	assert.Nil(t, res.CPU, "no meter, no CPU figures")
	assert.Equal(t, 2, res.Alloc.KitObjects.N, "allocations counted for every run")
	// A run decodes its tasks and encodes their commands: no activity is
	// run without allocating.
	assert.Positive(t, res.Alloc.PlainBytes.Min)
	assert.Positive(t, res.Alloc.KitObjects.Min)
}

// Both retry paths make every attempt and measure one lateness per retry,
// whoever schedules the attempts, and the kit's observer sees each attempt
// around the activity's code.
func TestRetryLatenessOnBothPaths(t *testing.T) {
	c := testsuite.DevServerFor(t).Client()
	plain, err := benchkit.StartWorker(c, "bench-retry-plain", false)
	require.NoError(t, err)
	t.Cleanup(plain.Stop)
	kit, err := benchkit.StartObservedWorker(c, "bench-retry-observed")
	require.NoError(t, err)
	t.Cleanup(kit.Stop)
	for _, budget := range []bool{false, true} {
		retries, err := kit.RetryLateness(context.Background(), c, 3, budget)
		require.NoError(t, err, "budget %v", budget)
		assert.Len(t, retries, 3, "budget %v", budget)
		for _, r := range retries {
			// An attempt cannot start before the end of the wait it asked for
			// (the server never retries early); a few ms of clock reading
			// order are allowed.
			assert.Greater(t, r.Late, -50*time.Millisecond, "budget %v: a retry started before its wait was over", budget)
			// The kit serves the attempt around the activity's code, on the
			// same clock: its parts are never negative, and they add up.
			assert.GreaterOrEqual(t, r.KitAfter, time.Duration(0), "budget %v", budget)
			assert.GreaterOrEqual(t, r.KitBefore, time.Duration(0), "budget %v", budget)
			assert.Equal(t, r.Late, r.KitAfter+r.KitBefore+r.Rest, "budget %v", budget)
		}
	}
	retries, err := plain.RetryLateness(context.Background(), c, 1, false)
	require.NoError(t, err)
	require.Len(t, retries, 1)
	assert.Zero(t, retries[0].KitAfter+retries[0].KitBefore, "a worker without the kit has no kit part")
}
