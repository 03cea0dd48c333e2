package interceptors_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/interceptors"
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
				env := s.NewTestWorkflowEnvironment()
				if withKit {
					env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(b, interceptors.Options{})}})
				}
				env.RegisterActivity(benchkit.NoOp)
				env.RegisterWorkflow(benchkit.NoOpsWorkflow)
				b.StartTimer()
				env.ExecuteWorkflow(benchkit.NoOpsWorkflow, perRun, true, withKit)
				if err := env.GetWorkflowError(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
