package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/internal/devserver"
	"github.com/temporaladk/adk-go/testsuite"
)

// probeActivities is how many sequential activities one probe run has.
const probeActivities = 40

// retryFails is how many times the flaky activity fails in one workflow.
const retryFails = 8

// setting is one dev server configuration the probe measures.
type setting struct {
	Name string
	// Back lists the fast values set back to the server's default.
	Back  []devserver.DynamicConfigValue
	Plain bool
}

// probeResult is one setting's dispatch and retry figures.
type probeResult struct {
	Setting       setting
	PerActivityMS benchkit.Summary // per run: wall time / activities
	LateMS        benchkit.Summary // retry lateness
}

// settings are the plain server, the fast one, and the fast one with each
// group of its values set back to the server's default.
func settings() ([]setting, error) {
	byKey := map[string]devserver.DynamicConfigValue{}
	for _, v := range devserver.FastDynamicConfig() {
		byKey[v.Key] = v
	}
	groups := []struct {
		name string
		keys []string
	}{
		{"transfer queue read 20 times a second", []string{"history.transferProcessorMaxPollRPS"}},
		{"4 task queue partitions", []string{"matching.numTaskqueueReadPartitions", "matching.numTaskqueueWritePartitions"}},
		{"timer queue read 20 times a second", []string{"history.timerProcessorMaxPollRPS"}},
		{"timers shifted up to 1 s", []string{"history.timerProcessorMaxTimeShift"}},
	}
	out := []setting{{Name: "plain `temporal server start-dev`", Plain: true}, {Name: "testsuite's default (all fast values)"}}
	covered := 0
	for _, g := range groups {
		s := setting{Name: "fast, but " + g.name}
		for _, k := range g.keys {
			v, ok := byKey[k]
			if !ok {
				return nil, fmt.Errorf("the probe sets back %s, which FastDynamicConfig no longer has", k)
			}
			s.Back = append(s.Back, v)
			covered++
		}
		out = append(out, s)
	}
	if covered != len(byKey) {
		return nil, fmt.Errorf("FastDynamicConfig has %d values and the probe sets back %d: give the new ones a row", len(byKey), covered)
	}
	return out, nil
}

// probeSettings measures each setting on a server of its own.
func probeSettings(ctx context.Context, cfg config) ([]probeResult, error) {
	all, err := settings()
	if err != nil {
		return nil, err
	}
	var out []probeResult
	for _, s := range all {
		logf("  %s", s.Name)
		r, err := probe(ctx, cfg, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func probe(ctx context.Context, cfg config, s setting) (probeResult, error) {
	opts := testsuite.DevServerOptions{PlainStartDev: s.Plain}
	for _, v := range s.Back {
		opts.ExtraArgs = append(opts.ExtraArgs, "--dynamic-config-value", v.Key+"="+v.Default)
	}
	srv, err := testsuite.StartDevServer(ctx, opts)
	if err != nil {
		return probeResult{}, err
	}
	defer srv.Stop()
	c := srv.Client()
	w, err := benchkit.StartWorker(c, "bench-probe", false)
	if err != nil {
		return probeResult{}, err
	}
	defer w.Stop()
	load := benchkit.Workload{Activities: probeActivities}
	if _, err := w.Run(ctx, c, benchkit.Workload{Activities: 5}); err != nil {
		return probeResult{}, err
	}
	var perActivity []float64
	for range cfg.probeRuns {
		d, err := w.Run(ctx, c, load)
		if err != nil {
			return probeResult{}, err
		}
		perActivity = append(perActivity, float64(d)/float64(time.Millisecond)/float64(load.Activities))
	}
	late, err := w.RetryLateness(ctx, c, cfg.probeRetries, false)
	if err != nil {
		return probeResult{}, err
	}
	r := probeResult{Setting: s}
	if r.PerActivityMS, err = benchkit.Summarize(perActivity); err != nil {
		return r, err
	}
	r.LateMS, err = benchkit.Summarize(benchkit.Milliseconds(benchkit.Late(late)))
	return r, err
}

// retryPath is one way a failed call is retried.
type retryPath struct {
	Name   string
	Kit    bool
	Budget bool
}

var retryPaths = []retryPath{
	{Name: "plain SDK, server retries with NextRetryDelay"},
	{Name: "kit, server retries with NextRetryDelay", Kit: true},
	{Name: "kit, under a run budget (`temporaladk.WithBudgets`)", Kit: true, Budget: true},
}

// retryResult is how late one path's retries started, and where the time
// went: the kit's part after the failed attempt's code and before the next
// attempt's, and the rest (zero samples without the kit).
type retryResult struct {
	Path   retryPath
	LateMS benchkit.Summary
	// KitAfterMS, KitBeforeMS and RestMS split LateMS (benchkit.Retry);
	// N is 0 for a path without the kit.
	KitAfterMS, KitBeforeMS, RestMS benchkit.Summary
}

// measureKit runs the pairs and the retries on one fast dev server.
func measureKit(ctx context.Context, cfg config) ([]benchkit.PairsResult, []retryResult, error) {
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer srv.Stop()
	c := srv.Client()
	meter, err := benchkit.NewCPUMeter(srv.PID())
	if err != nil {
		return nil, nil, err
	}
	plain, kit, err := benchkit.StartWorkers(c, "bench")
	if err != nil {
		return nil, nil, err
	}
	defer plain.Stop()
	defer kit.Stop()
	var pairs []benchkit.PairsResult
	for _, p := range []struct {
		load  benchkit.Workload
		pairs int
	}{
		{benchkit.Workload{Activities: 200}, cfg.seqPairs},
		{benchkit.Workload{Activities: 200, Parallel: true}, cfg.fanPairs},
		{benchkit.Workload{Activities: 1000, Parallel: true}, cfg.fan1000Pairs},
	} {
		logf("  %s, %d pairs", p.load, p.pairs)
		res, err := benchkit.RunPairs(ctx, c, plain, kit, p.load, p.pairs, meter)
		if err != nil {
			return nil, nil, err
		}
		pairs = append(pairs, res)
	}
	observed, err := benchkit.StartObservedWorker(c, "bench-observed")
	if err != nil {
		return nil, nil, err
	}
	defer observed.Stop()
	retries, err := measureRetries(ctx, c, plain, observed, cfg.retries)
	if err != nil {
		return nil, nil, err
	}
	return pairs, retries, nil
}

// measureRetries measures how late n retries of each of retryPaths start,
// on plain and kit, an observed worker (benchkit.StartObservedWorker), so
// that the kit's part of each retry is known. The paths take turns, a workflow each, so that noise
// hits them alike.
func measureRetries(ctx context.Context, c client.Client, plain, kit *benchkit.Worker, n int) ([]retryResult, error) {
	logf("  retries, %d per path", n)
	late := make([][]benchkit.Retry, len(retryPaths))
	for done := 0; done < n; done += retryFails {
		fails := min(retryFails, n-done)
		for i, p := range retryPaths {
			w := plain
			if p.Kit {
				w = kit
			}
			l, err := w.RetryLateness(ctx, c, fails, p.Budget)
			if err != nil {
				return nil, err
			}
			late[i] = append(late[i], l...)
		}
	}
	var retries []retryResult
	for i, p := range retryPaths {
		part := func(of func(benchkit.Retry) time.Duration) (benchkit.Summary, error) {
			ds := make([]time.Duration, len(late[i]))
			for j, r := range late[i] {
				ds[j] = of(r)
			}
			return benchkit.Summarize(benchkit.Milliseconds(ds))
		}
		rr := retryResult{Path: p}
		var err error
		if rr.LateMS, err = part(func(r benchkit.Retry) time.Duration { return r.Late }); err != nil {
			return nil, err
		}
		if p.Kit {
			if rr.KitAfterMS, err = part(func(r benchkit.Retry) time.Duration { return r.KitAfter }); err != nil {
				return nil, err
			}
			if rr.KitBeforeMS, err = part(func(r benchkit.Retry) time.Duration { return r.KitBefore }); err != nil {
				return nil, err
			}
			if rr.RestMS, err = part(func(r benchkit.Retry) time.Duration { return r.Rest }); err != nil {
				return nil, err
			}
		}
		retries = append(retries, rr)
	}
	return retries, nil
}

// benchSide is one side of the workflow-side go benchmark.
type benchSide struct {
	Name     string
	NsPerOp  benchkit.Summary
	BPerOp   benchkit.Summary
	AllocsOp benchkit.Summary
}

// workflowSideCommand is the go benchmark of the workflow-side cost.
func workflowSideCommand(count int) []string {
	return []string{"go", "test", "-run", "^$", "-bench", "^BenchmarkWorkflowExecuteActivity$", "-benchtime", "5000x",
		"-count", strconv.Itoa(count), "-benchmem", "./interceptors"}
}

var benchLine = regexp.MustCompile(`^BenchmarkWorkflowExecuteActivity/(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

// workflowSide runs the go benchmark and summarizes each side.
func workflowSide(ctx context.Context, count int) ([]benchSide, error) {
	args := workflowSideCommand(count)
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %w\n%s", args, err, out)
	}
	return parseWorkflowSide(string(out))
}

// parseWorkflowSide reads the plain and kit lines of the benchmark's output.
func parseWorkflowSide(out string) ([]benchSide, error) {
	type samples struct{ ns, b, allocs []float64 }
	bySide := map[string]*samples{}
	for _, line := range regexp.MustCompile(`\r?\n`).Split(out, -1) {
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := bySide[m[1]]
		if s == nil {
			s = &samples{}
			bySide[m[1]] = s
		}
		for i, dst := range []*[]float64{&s.ns, &s.b, &s.allocs} {
			v, err := strconv.ParseFloat(m[2+i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark line %q: %w", line, err)
			}
			*dst = append(*dst, v)
		}
	}
	var sides []benchSide
	for _, name := range []string{"plain", "kit"} {
		s := bySide[name]
		if s == nil {
			return nil, fmt.Errorf("the benchmark printed no %q line:\n%s", name, out)
		}
		side := benchSide{Name: name}
		var err error
		if side.NsPerOp, err = benchkit.Summarize(s.ns); err != nil {
			return nil, err
		}
		if side.BPerOp, err = benchkit.Summarize(s.b); err != nil {
			return nil, err
		}
		if side.AllocsOp, err = benchkit.Summarize(s.allocs); err != nil {
			return nil, err
		}
		sides = append(sides, side)
	}
	return sides, nil
}
