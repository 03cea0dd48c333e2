package interceptors_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// benchmarkOverhead runs the workload on a plain worker and on a worker with
// the kit, b.N interleaved pairs on the shared (fast) dev server, and
// reports the medians and the spread of the pairs' ratios. `go run ./bench`
// runs the same pairs and writes BENCHMARKS.md.
func benchmarkOverhead(b *testing.B, load benchkit.Workload) {
	server := kittest.DevServerFor(b)
	c := server.Client()
	// CPU time, which other programs on the machine barely move; Linux only.
	meter, err := benchkit.NewCPUMeter(server.PID())
	if err != nil {
		b.Logf("no CPU figures: %v", err)
		meter = nil
	}
	plain, kit, err := benchkit.StartWorkers(c, fmt.Sprintf("bench-%s-%d", b.Name(), time.Now().UnixNano()))
	require.NoError(b, err)
	b.Cleanup(plain.Stop)
	b.Cleanup(kit.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	res, err := benchkit.RunPairs(ctx, c, plain, kit, load, b.N, meter)
	require.NoError(b, err)
	b.ReportMetric(res.Plain.Median, "plain-ms/run")
	b.ReportMetric(res.Kit.Median, "kit-ms/run")
	b.ReportMetric(res.TotalRatio, "kit/plain")
	// A pair runs back to back, so a noisy moment of the shared machine
	// moves one pair, not the median; the quartiles show how far they move.
	b.ReportMetric(res.Ratio.Median, "median-pair-kit/plain")
	b.ReportMetric(res.Ratio.P25, "p25-pair-kit/plain")
	b.ReportMetric(res.Ratio.P75, "p75-pair-kit/plain")
	if res.CPU != nil {
		b.ReportMetric(res.CPU.Ratio.Median, "median-pair-cpu-kit/plain")
		b.ReportMetric(res.CPU.WorkerRatio.Median, "median-pair-worker-cpu-kit/plain")
	}
	// What the kit adds per activity on the workers' process (medians of the
	// runs), and to each activity task as the server recorded it.
	b.ReportMetric(res.Alloc.KitObjects.Median-res.Alloc.PlainObjects.Median, "kit-plain-objects/activity")
	b.ReportMetric(res.Alloc.KitBytes.Median-res.Alloc.PlainBytes.Median, "kit-plain-B/activity")
	plainTask, err := scheduledBytes(ctx, c, plain)
	require.NoError(b, err)
	kitTask, err := scheduledBytes(ctx, c, kit)
	require.NoError(b, err)
	b.ReportMetric(kitTask-plainTask, "kit-plain-task-B/activity")
}

// scheduledBytes runs ten sequential no-op activities on w and returns the
// mean size of their ActivityTaskScheduled events' attributes as the
// server recorded them: the timeouts, retry policy, header and input an
// activity task carries.
func scheduledBytes(ctx context.Context, c client.Client, w *benchkit.Worker) (float64, error) {
	const n = 10
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("task-bytes-%s-%d", w.TaskQueue, time.Now().UnixNano()), TaskQueue: w.TaskQueue}, benchkit.NoOpsWorkflow, n, false, w.Kit)
	if err != nil {
		return 0, err
	}
	if err := run.Get(ctx, nil); err != nil {
		return 0, err
	}
	h, err := kittest.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	if err != nil {
		return 0, err
	}
	var total, count int
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			total += proto.Size(a)
			count++
		}
	}
	if count != n {
		return 0, fmt.Errorf("%d activities scheduled, want %d", count, n)
	}
	return float64(total) / n, nil
}

// BenchmarkServerSequential200 is 200 sequential no-op activities on the dev
// server, kit against plain SDK.
func BenchmarkServerSequential200(b *testing.B) {
	benchmarkOverhead(b, benchkit.Workload{Activities: 200})
}

// BenchmarkServerFanOut200 is a 200-way fan-out of no-op activities on the
// dev server, kit against plain SDK.
func BenchmarkServerFanOut200(b *testing.B) {
	benchmarkOverhead(b, benchkit.Workload{Activities: 200, Parallel: true})
}

// BenchmarkServerFanOut1000 is a 1,000-way fan-out of no-op activities on
// the dev server, kit against plain SDK.
func BenchmarkServerFanOut1000(b *testing.B) {
	benchmarkOverhead(b, benchkit.Workload{Activities: 1000, Parallel: true})
}

// BenchmarkWorkflowExecuteActivity measures the workflow-side cost of one
// ExecuteActivity in the SDK test environment, with and without the kit.
func BenchmarkWorkflowExecuteActivity(b *testing.B) {
	for _, withKit := range []bool{false, true} {
		name := "plain"
		if withKit {
			name = "kit"
		}
		b.Run(name, func(b *testing.B) {
			const perRun = 100
			var s testsuite.WorkflowTestSuite
			s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += perRun {
				b.StopTimer()
				env, _ := fanOutEnv(b, &s, name)
				b.StartTimer()
				env.ExecuteWorkflow(benchkit.NoOpsWorkflow, perRun, true, withKit)
				if err := env.GetWorkflowError(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// endsCounter is an observer that counts the calls it is told ended.
type endsCounter struct {
	observe.Base
	ended int
}

func (c *endsCounter) CallEnded(workflow.Context, observe.Call, observe.CallEnd) { c.ended++ }

// fanOutEnv is an SDK test environment that runs benchkit.NoOpsWorkflow on
// side: "plain" (no kit), "kit" (its default Options) or "observed" (the
// kit with the endsCounter it returns, nil on the other sides).
func fanOutEnv(tb testing.TB, s *testsuite.WorkflowTestSuite, side string) (*testsuite.TestWorkflowEnvironment, *endsCounter) {
	env := s.NewTestWorkflowEnvironment()
	var obs *endsCounter
	switch side {
	case "kit":
		env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(tb, interceptors.Options{})}})
	case "observed":
		obs = &endsCounter{}
		env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(tb, interceptors.Options{Observer: obs})}})
	}
	env.RegisterActivity(benchkit.NoOp)
	env.RegisterWorkflow(benchkit.NoOpsWorkflow)
	return env, obs
}

// BenchmarkWorkflowFanOutObserved is the workflow side of a fan-out of n
// no-op activities, per activity, on the plain SDK, with the kit, and with
// the kit and an observer (which the kit tells each call's end): watching
// the calls for their ends must cost the same per call at any width, not
// grow with the calls still in flight.
func BenchmarkWorkflowFanOutObserved(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, side := range []string{"plain", "kit", "observed"} {
			b.Run(fmt.Sprintf("%d/%s", n, side), func(b *testing.B) {
				var s testsuite.WorkflowTestSuite
				s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i += n {
					b.StopTimer()
					env, obs := fanOutEnv(b, &s, side)
					b.StartTimer()
					env.ExecuteWorkflow(benchkit.NoOpsWorkflow, n, true, side != "plain")
					if err := env.GetWorkflowError(); err != nil {
						b.Fatal(err)
					}
					if obs != nil && obs.ended != n {
						b.Fatalf("the observer was told %d ends of %d calls", obs.ended, n)
					}
				}
			})
		}
	}
}

// TestObserverCostsTheSamePerCallAtAnyWidth holds the kit's watch of calls
// for their ends (observer given) to a cost per call that does not grow with
// the calls in flight: a fan-out 4 times as wide allocates, per call, less
// than 1.5 times as much. With a coroutine per watched call, which the SDK
// wakes on every pass of a workflow task, it allocated 7 times as much per
// call at 1,000 as at 100 (BenchmarkWorkflowFanOutObserved). Allocations
// are counted, not timed: they do not move with the machine's load.
func TestObserverCostsTheSamePerCallAtAnyWidth(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	perCall := func(n int) float64 {
		env, obs := fanOutEnv(t, &s, "observed")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		env.ExecuteWorkflow(benchkit.NoOpsWorkflow, n, true, true)
		runtime.ReadMemStats(&after)
		require.NoError(t, env.GetWorkflowError())
		require.Equal(t, n, obs.ended, "the observer is told every call's end")
		return float64(after.Mallocs-before.Mallocs) / float64(n)
	}
	narrow, wide := perCall(100), perCall(400)
	if wide > 1.5*narrow {
		t.Errorf("a 400-wide fan-out allocated %.0f objects per call, a 100-wide one %.0f: the watch of calls grows with the calls in flight", wide, narrow)
	}
}
