package interceptors_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// benchWorker is a worker on the shared dev server, with or without the kit.
func benchWorker(b *testing.B, c client.Client, taskQueue string, kit bool) {
	b.Helper()
	opts := worker.Options{}
	if kit {
		opts.Interceptors = []interceptor.WorkerInterceptor{newKit(b, interceptors.Options{})}
	}
	w := worker.New(c, taskQueue, opts)
	w.RegisterWorkflow(NoOpsWorkflow)
	w.RegisterActivity(NoOp)
	require.NoError(b, w.Start())
	b.Cleanup(w.Stop)
}

func runNoOps(b *testing.B, c client.Client, taskQueue string, n int, parallel, tagged bool) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: taskQueue}, NoOpsWorkflow, n, parallel, tagged)
	require.NoError(b, err)
	require.NoError(b, run.Get(ctx, nil))
	return time.Since(start)
}

// benchmarkOverhead runs the same workflow on a plain worker and on a worker
// with the kit, interleaved in one run, and reports the wall-time ratio.
func benchmarkOverhead(b *testing.B, n int, parallel bool) {
	c := kittest.SharedDevServer(b).Client()
	plainQueue := fmt.Sprintf("bench-plain-%s-%d", b.Name(), time.Now().UnixNano())
	kitQueue := fmt.Sprintf("bench-kit-%s-%d", b.Name(), time.Now().UnixNano())
	benchWorker(b, c, plainQueue, false)
	benchWorker(b, c, kitQueue, true)
	// Warm both workers and the server's caches.
	runNoOps(b, c, plainQueue, n, parallel, false)
	runNoOps(b, c, kitQueue, n, parallel, true)
	b.ReportAllocs()
	b.ResetTimer()
	var plain, kit time.Duration
	ratios := make([]float64, 0, b.N)
	for i := 0; i < b.N; i++ {
		var p, k time.Duration
		if i%2 == 0 {
			p = runNoOps(b, c, plainQueue, n, parallel, false)
			k = runNoOps(b, c, kitQueue, n, parallel, true)
		} else {
			k = runNoOps(b, c, kitQueue, n, parallel, true)
			p = runNoOps(b, c, plainQueue, n, parallel, false)
		}
		plain, kit = plain+p, kit+k
		ratios = append(ratios, float64(k)/float64(p))
	}
	sort.Float64s(ratios)
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "plain-ms/run")
	b.ReportMetric(float64(kit.Milliseconds())/float64(b.N), "kit-ms/run")
	b.ReportMetric(float64(kit)/float64(plain), "kit/plain")
	// The median of the pairs' ratios: a pair runs back to back, so a noisy
	// moment of the shared machine moves one pair, not the figure.
	b.ReportMetric(ratios[len(ratios)/2], "median-pair-kit/plain")
}

// BenchmarkServerSequential200 is 200 sequential no-op activities on the dev
// server, kit against plain SDK.
func BenchmarkServerSequential200(b *testing.B) { benchmarkOverhead(b, 200, false) }

// BenchmarkServerFanOut200 is a 200-way fan-out of no-op activities on the
// dev server, kit against plain SDK.
func BenchmarkServerFanOut200(b *testing.B) { benchmarkOverhead(b, 200, true) }

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
					env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{newKit(b, interceptors.Options{})}})
				}
				env.RegisterActivity(NoOp)
				env.RegisterWorkflow(NoOpsWorkflow)
				b.StartTimer()
				env.ExecuteWorkflow(NoOpsWorkflow, perRun, true, withKit)
				if err := env.GetWorkflowError(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
