package benchkit

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
)

// Worker is a worker on a task queue of its own, with or without the kit,
// that runs the package's workflows and activities.
type Worker struct {
	// TaskQueue is the worker's task queue.
	TaskQueue string
	// Kit tells whether the worker has the kit's interceptor.
	Kit bool
	// Probe is the worker's retry probe.
	Probe *RetryProbe

	// spans is what the kit's observer saw of the probe's attempts; nil
	// but on a worker StartObservedWorker started.
	spans *kitSpans

	w worker.Worker
}

// runSeq makes workflow IDs unique within the process.
var runSeq atomic.Int64

// StartWorker starts a worker on taskQueue, with the kit's interceptor (its
// default Options) when kit is true. The caller must call Stop.
func StartWorker(c client.Client, taskQueue string, kit bool) (*Worker, error) {
	return startWorker(c, taskQueue, kit, false)
}

// StartObservedWorker starts a worker on taskQueue with the kit and an
// observer that times the kit around each attempt of the retry probe, so
// that RetryLateness splits each retry (Retry.KitAfter, KitBefore). The
// pairs are run on StartWorker's workers, whose kit has its default Options
// and no observer. The caller must call Stop.
func StartObservedWorker(c client.Client, taskQueue string) (*Worker, error) {
	return startWorker(c, taskQueue, true, true)
}

func startWorker(c client.Client, taskQueue string, kit, observed bool) (*Worker, error) {
	if c == nil {
		return nil, fmt.Errorf("benchkit: StartWorker: nil client")
	}
	if taskQueue == "" {
		return nil, fmt.Errorf("benchkit: StartWorker: empty task queue")
	}
	var opts worker.Options
	var spans *kitSpans
	if kit {
		var o interceptors.Options
		if observed {
			spans = newKitSpans()
			o.Observer = spans
		}
		k, err := interceptors.NewPlugin(o)
		if err != nil {
			return nil, fmt.Errorf("benchkit: StartWorker: %w", err)
		}
		opts.Plugins = []worker.Plugin{k}
	}
	bw := &Worker{TaskQueue: taskQueue, Kit: kit, Probe: NewRetryProbe(), spans: spans, w: worker.New(c, taskQueue, opts)}
	bw.w.RegisterWorkflow(NoOpsWorkflow)
	bw.w.RegisterWorkflow(RetryWorkflow)
	bw.w.RegisterActivity(NoOp)
	bw.w.RegisterActivityWithOptions(bw.Probe.Flaky, activity.RegisterOptions{Name: FlakyActivity})
	if err := bw.w.Start(); err != nil {
		return nil, fmt.Errorf("benchkit: starting the worker on %s: %w", taskQueue, err)
	}
	return bw, nil
}

// StartWorkers starts a plain worker and a worker with the kit, on task
// queues named after prefix. On error nothing is left running.
func StartWorkers(c client.Client, prefix string) (plain, kit *Worker, err error) {
	if plain, err = StartWorker(c, prefix+"-plain", false); err != nil {
		return nil, nil, err
	}
	if kit, err = StartWorker(c, prefix+"-kit", true); err != nil {
		plain.Stop()
		return nil, nil, err
	}
	return plain, kit, nil
}

// Stop stops the worker.
func (w *Worker) Stop() { w.w.Stop() }

// Workload is a number of no-op activities run one after the other or all
// at once.
type Workload struct {
	// Activities is how many no-op activities the workflow runs; at least 1.
	Activities int
	// Parallel schedules them all at once; if false, one after the other.
	Parallel bool
}

// String names the workload as the report's rows do.
func (l Workload) String() string {
	if l.Parallel {
		return fmt.Sprintf("%d-way fan-out of no-op activities", l.Activities)
	}
	return fmt.Sprintf("%d sequential no-op activities", l.Activities)
}

// Run runs the workload once on w, from the start request to the result,
// and returns how long that took.
func (w *Worker) Run(ctx context.Context, c client.Client, load Workload) (time.Duration, error) {
	if load.Activities < 1 {
		return 0, fmt.Errorf("benchkit: workload of %d activities: want at least 1", load.Activities)
	}
	id := fmt.Sprintf("bench-%s-%d", w.TaskQueue, runSeq.Add(1))
	start := time.Now()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: w.TaskQueue}, NoOpsWorkflow, load.Activities, load.Parallel, w.Kit)
	if err != nil {
		return 0, fmt.Errorf("benchkit: starting %s on %s: %w", load, w.TaskQueue, err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return 0, fmt.Errorf("benchkit: %s on %s: %w", load, w.TaskQueue, err)
	}
	return time.Since(start), nil
}

// PairsResult is a workload run pair by pair on a plain worker and on a
// worker with the kit.
type PairsResult struct {
	Workload Workload
	// Plain and Kit summarize the runs' wall times, in milliseconds.
	Plain, Kit Summary
	// Ratio summarizes the pairs' kit/plain ratios of wall time.
	Ratio Summary
	// TotalRatio is the kit's total wall time over the plain worker's.
	TotalRatio float64
	// CPU holds the CPU time figures when RunPairs was given a meter.
	CPU *CPUResult
	// Alloc is what the workers' process allocated per activity.
	Alloc AllocResult
}

// AllocResult is what the workers' process allocated per activity during the
// runs of a PairsResult: the heap allocations the Go runtime counted (both
// workers live in the process; the idle one's polls are counted on both
// sides alike).
type AllocResult struct {
	// PlainBytes, KitBytes, PlainObjects and KitObjects summarize the runs'
	// bytes and objects allocated per activity.
	PlainBytes, KitBytes, PlainObjects, KitObjects Summary
}

// CPUResult is the CPU time the runs of a PairsResult cost.
type CPUResult struct {
	// Plain and Kit summarize the runs' CPU time, workers and server
	// together, in milliseconds.
	Plain, Kit Summary
	// Ratio summarizes the pairs' kit/plain ratios of that CPU time.
	Ratio Summary
	// WorkerRatio summarizes the pairs' kit/plain ratios of the workers'
	// process alone, where the kit's code runs.
	WorkerRatio Summary
}

// cost is what one run took.
type cost struct {
	wall, worker, server time.Duration
	// bytes and objects are the heap allocations of this process.
	bytes, objects uint64
}

// measure runs the workload once on w, with the heap collected first and
// the CPU read around it when meter is not nil.
func measure(ctx context.Context, c client.Client, w *Worker, load Workload, meter *CPUMeter) (cost, error) {
	// Both workers live in this process: without a collection here, a run
	// would pay for the garbage of the run before it.
	runtime.GC()
	var before cost
	if meter != nil {
		var err error
		if before.worker, before.server, err = meter.Read(); err != nil {
			return cost{}, err
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before.bytes, before.objects = m.TotalAlloc, m.Mallocs
	wall, err := w.Run(ctx, c, load)
	if err != nil {
		return cost{}, err
	}
	runtime.ReadMemStats(&m)
	out := cost{wall: wall, bytes: m.TotalAlloc - before.bytes, objects: m.Mallocs - before.objects}
	if meter != nil {
		if out.worker, out.server, err = meter.Read(); err != nil {
			return cost{}, err
		}
		out.worker -= before.worker
		out.server -= before.server
	}
	return out, nil
}

// RunPairs runs the workload once on each worker to warm them, then pairs
// times: each pair runs it on both, back to back, the plain worker first in
// even pairs and the kit first in odd ones, so that a slow moment of a
// shared machine moves one pair and neither side always goes first. The
// heap is collected before each run, outside its time. With a meter, the
// CPU time of each run is measured too. The server's CPU time counts
// whatever else the server did meanwhile, so give each RunPairs a server of
// its own, or no other load.
func RunPairs(ctx context.Context, c client.Client, plain, kit *Worker, load Workload, pairs int, meter *CPUMeter) (PairsResult, error) {
	if pairs < 1 {
		return PairsResult{}, fmt.Errorf("benchkit: RunPairs: %d pairs: want at least 1", pairs)
	}
	if plain.Kit || !kit.Kit {
		return PairsResult{}, fmt.Errorf("benchkit: RunPairs: want a plain worker and a kit worker, got kit=%v and kit=%v", plain.Kit, kit.Kit)
	}
	for _, w := range []*Worker{plain, kit} {
		if _, err := w.Run(ctx, c, load); err != nil {
			return PairsResult{}, err
		}
	}
	var plainMS, kitMS, ratios, plainCPU, kitCPU, cpuRatios, workerRatios []float64
	var plainBytes, kitBytes, plainObjects, kitObjects []float64
	per := float64(load.Activities)
	var plainTotal, kitTotal time.Duration
	for i := range pairs {
		order := []*Worker{plain, kit}
		if i%2 == 1 {
			order = []*Worker{kit, plain}
		}
		took := map[*Worker]cost{}
		for _, w := range order {
			spent, err := measure(ctx, c, w, load, meter)
			if err != nil {
				return PairsResult{}, err
			}
			took[w] = spent
		}
		p, k := took[plain], took[kit]
		plainTotal += p.wall
		kitTotal += k.wall
		plainMS = append(plainMS, ms(p.wall))
		kitMS = append(kitMS, ms(k.wall))
		ratios = append(ratios, float64(k.wall)/float64(p.wall))
		plainBytes = append(plainBytes, float64(p.bytes)/per)
		kitBytes = append(kitBytes, float64(k.bytes)/per)
		plainObjects = append(plainObjects, float64(p.objects)/per)
		kitObjects = append(kitObjects, float64(k.objects)/per)
		if meter != nil {
			plainCPU = append(plainCPU, ms(p.worker+p.server))
			kitCPU = append(kitCPU, ms(k.worker+k.server))
			cpuRatios = append(cpuRatios, float64(k.worker+k.server)/float64(p.worker+p.server))
			workerRatios = append(workerRatios, float64(k.worker)/float64(p.worker))
		}
	}
	res := PairsResult{Workload: load, TotalRatio: float64(kitTotal) / float64(plainTotal)}
	var err error
	if res.Plain, err = Summarize(plainMS); err != nil {
		return res, err
	}
	if res.Kit, err = Summarize(kitMS); err != nil {
		return res, err
	}
	if res.Ratio, err = Summarize(ratios); err != nil {
		return res, err
	}
	if err := summarizeInto("allocations of "+load.String(),
		figures{&res.Alloc.PlainBytes, plainBytes}, figures{&res.Alloc.KitBytes, kitBytes},
		figures{&res.Alloc.PlainObjects, plainObjects}, figures{&res.Alloc.KitObjects, kitObjects}); err != nil {
		return res, err
	}
	if meter == nil {
		return res, nil
	}
	res.CPU = &CPUResult{}
	if err := summarizeInto("CPU times of "+load.String(),
		figures{&res.CPU.Plain, plainCPU}, figures{&res.CPU.Kit, kitCPU},
		figures{&res.CPU.Ratio, cpuRatios}, figures{&res.CPU.WorkerRatio, workerRatios}); err != nil {
		return res, err
	}
	return res, nil
}

// figures is a Summary to fill and the figures it summarizes.
type figures struct {
	dst *Summary
	xs  []float64
}

// summarizeInto fills each Summary from its figures; what names them in an
// error.
func summarizeInto(what string, all ...figures) error {
	for _, f := range all {
		s, err := Summarize(f.xs)
		if err != nil {
			return fmt.Errorf("benchkit: %s: %w", what, err)
		}
		*f.dst = s
	}
	return nil
}

// RetryLateness runs RetryWorkflow once on w with fails failed attempts,
// under a RunBudget when budget is true, and returns how late each retry
// started against the wait it asked for, and where that time went (see
// Retry).
func (w *Worker) RetryLateness(ctx context.Context, c client.Client, fails int, budget bool) ([]Retry, error) {
	if fails < 1 {
		return nil, fmt.Errorf("benchkit: RetryLateness: %d failures: want at least 1", fails)
	}
	if budget && !w.Kit {
		return nil, fmt.Errorf("benchkit: RetryLateness: a budget on %s, a worker without the kit: budgets are the kit's", w.TaskQueue)
	}
	id := fmt.Sprintf("bench-retry-%s-%d", w.TaskQueue, runSeq.Add(1))
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: w.TaskQueue}, RetryWorkflow, fails, w.Kit, budget)
	if err != nil {
		return nil, fmt.Errorf("benchkit: starting the retry workflow on %s: %w", w.TaskQueue, err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return nil, fmt.Errorf("benchkit: retry workflow on %s (budget %v): %w", w.TaskQueue, budget, err)
	}
	attempts := w.Probe.Attempts(id)
	if len(attempts) != fails+1 {
		return nil, fmt.Errorf("benchkit: retry workflow %s made %d attempts, want %d", id, len(attempts), fails+1)
	}
	if w.spans != nil {
		// An observed worker: the kit's times of every attempt are known.
		w.spans.take(id, attempts)
		for i, a := range attempts {
			if a.KitStart.IsZero() || a.KitEnd.IsZero() {
				return nil, fmt.Errorf("benchkit: retry workflow %s: the kit's observer did not see attempt %d start and end", id, i+1)
			}
		}
	}
	return Retries(attempts), nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Late returns the lateness of each of retries (Retry.Late).
func Late(retries []Retry) []time.Duration {
	out := make([]time.Duration, len(retries))
	for i, r := range retries {
		out[i] = r.Late
	}
	return out
}

// Milliseconds converts durations to milliseconds, for Summarize.
func Milliseconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = ms(d)
	}
	return out
}
