package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/internal/devserver"
)

// report is everything one run measured.
type report struct {
	Command      string
	Date         time.Time
	Took         time.Duration
	Machine      machine
	Probes       []probeResult
	Pairs        []benchkit.PairsResult
	Retries      []retryResult
	WorkflowSide []benchSide
	GoTest       []goTestRun
	// Kept are the parts of the file as it was that the run keeps (kept.go).
	Kept []keptPart
}

// markdown returns the file: what the run measured, with the kept parts
// put back where they were.
func (r report) markdown() string {
	return withKept(r.measured(), r.Kept)
}

// measured returns the sections the run writes from its measurements.
func (r report) measured() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Benchmarks\n\n")
	p("What the kit costs against the plain Temporal Go SDK, and how fast the test dev server runs them. This file\n")
	if len(r.Kept) == 0 {
		p("is written by `%s`, run from the repository's root; every figure in it comes from that one run\n", r.Command)
	} else {
		p("is written by `%s`, run from the repository's root; every figure in it, but those of %s\n", r.Command, keptTitles(r.Kept))
		p("(kept from the file as it was; each says where its figures come from), comes from that one run\n")
	}
	p("(%s, %v in all). Ratios compare runs made in the same run, interleaved, so that the load of a shared\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Took.Round(time.Second))
	p("machine hits both sides.\n\n")
	p("| machine | |\n|---|---|\n")
	p("| CPUs (nproc) | %d |\n| CPU | %s |\n| OS | %s |\n| load average at start | %s |\n", r.Machine.CPUs, r.Machine.CPUModel, r.Machine.OS, orDash(r.Machine.LoadBefore))
	p("| Go | %s |\n| go.temporal.io/sdk | %s |\n| Temporal CLI | %s |\n\n", r.Machine.Go, r.Machine.SDK, r.Machine.CLI)

	p("## Goals\n\n")
	p("The figures of the sections below against the goals of the performance issue, computed from them.\n\n")
	p("| goal | measured | met |\n|---|---|---|\n")
	for _, g := range r.goals() {
		p("| %s | %s | %s |\n", g.goal, g.measured, yesNo(g.met))
	}
	p("\n")

	p("## The test dev server\n\n")
	p("`testsuite`'s dev server is the CLI's `temporal server start-dev` with the values of\n")
	p("`testsuite.FastDevServerArgs()`; `DevServerOptions{PlainStartDev: true}` runs it without them. Each row is a\n")
	p("server of its own with one worker (plain SDK): %d sequential no-op activities per run, and retries of an\n", probeActivities)
	p("activity that fails asking for a NextRetryDelay of 200–400 ms. \"Late\" is the next attempt's start minus the\n")
	p("failed attempt's end minus the wait it asked for.\n\n")
	p("| setting | ms per sequential activity, median (min–max, runs) | retry late by, ms: median (min–max, retries) |\n|---|---|---|\n")
	for _, pr := range r.Probes {
		p("| %s | %s | %s |\n", pr.Setting.Name, medianRange(pr.PerActivityMS, 1), medianRange(pr.LateMS, 0))
	}
	p("\n| value | server default | why |\n|---|---|---|\n")
	for _, v := range devserver.FastDynamicConfig() {
		p("| `%s=%s` | `%s` | %s |\n", v.Key, v.Value, v.Default, v.Why)
	}
	p("\n")

	p("## The kit against the plain SDK\n\n")
	p("On the test dev server: the same workflow on a worker with the kit's interceptor (the calls tagged MEMORY) and\n")
	p("on one without, each on its own task queue. A pair runs the workload on both, back to back, plain first in\n")
	p("even pairs and kit first in odd ones, after one warm-up run each. The ratio column is the median of the\n")
	p("pairs' kit/plain ratios with its 95%% confidence interval (order statistics, distribution-free; \"—\" when\n")
	p("there are too few pairs for one) and the pairs' full range.\n\n")
	p("| workload | pairs | plain ms, median | kit ms, median | kit/plain, median pair | 95%% CI of the median | pairs' range | kit/plain, totals |\n|---|---|---|---|---|---|---|---|\n")
	for _, pr := range r.Pairs {
		p("| %s | %d | %.0f | %.0f | %.3f | %s | %.3f – %.3f | %.3f |\n", pr.Workload, pr.Ratio.N, pr.Plain.Median, pr.Kit.Median,
			pr.Ratio.Median, ci(pr.Ratio), pr.Ratio.Min, pr.Ratio.Max, pr.TotalRatio)
	}
	p("\n")
	p("Wall time on a shared machine moves with everyone's load. CPU time barely does, so the same runs are also\n")
	p("measured in CPU time (user and system): of the workers' process and the dev server's process together, and\n")
	p("of the workers' process alone, where the kit's code runs.\n\n")
	p("| workload | pairs | plain CPU ms, median | kit CPU ms, median | kit/plain CPU, median pair | 95%% CI of the median | pairs' range | workers' process alone: kit/plain, median pair (95%% CI) |\n|---|---|---|---|---|---|---|---|\n")
	for _, pr := range r.Pairs {
		if pr.CPU == nil {
			continue
		}
		p("| %s | %d | %.0f | %.0f | %.3f | %s | %.3f – %.3f | %.3f (%s) |\n", pr.Workload, pr.CPU.Ratio.N, pr.CPU.Plain.Median, pr.CPU.Kit.Median,
			pr.CPU.Ratio.Median, ci(pr.CPU.Ratio), pr.CPU.Ratio.Min, pr.CPU.Ratio.Max, pr.CPU.WorkerRatio.Median, ci(pr.CPU.WorkerRatio))
	}
	p("\n")
	p("Allocation counts do not move with the machine's load. What the workers' process allocated on the Go heap\n")
	p("per activity during the same runs (`runtime.MemStats`, medians of the runs; both workers live in the process,\n")
	p("so the idle one's polls count on both sides alike):\n\n")
	p("| workload | plain B | kit B | kit − plain B | plain objects | kit objects | kit − plain objects |\n|---|---|---|---|---|---|---|\n")
	for _, pr := range r.Pairs {
		a := pr.Alloc
		if a.PlainBytes.N == 0 {
			continue
		}
		p("| %s | %.0f | %.0f | %+.0f | %.1f | %.1f | %+.1f |\n", pr.Workload, a.PlainBytes.Median, a.KitBytes.Median, a.KitBytes.Median-a.PlainBytes.Median,
			a.PlainObjects.Median, a.KitObjects.Median, a.KitObjects.Median-a.PlainObjects.Median)
	}
	p("\n")

	p("## Retries: how late the next attempt starts\n\n")
	p("On the test dev server, an activity fails %d times per workflow, each time asking for the next of 200, 300\n", retryFails)
	p("and 400 ms with `NextRetryDelay`; the paths take turns, a workflow each. Late by = the next attempt's start\n")
	p("minus the failed attempt's end minus the wait it asked for, both read by the worker.\n\n")
	b.WriteString(retryTable(r.Retries))
	p("\n")

	p("## Workflow side, per ExecuteActivity\n\n")
	p("```sh\n%s\n```\n\n", strings.Join(workflowSideCommand(workflowSideCount(r.WorkflowSide)), " "))
	p("In the SDK's test environment, a workflow that schedules 100 no-op activities at once; per activity\n")
	p("(scheduling, the in-process run and its completion), median of the runs with their range:\n\n")
	p("| | ns/op | B/op | allocs/op |\n|---|---|---|---|\n")
	for _, s := range r.WorkflowSide {
		p("| %s | %.0f (%.0f – %.0f) | %.0f | %.0f |\n", s.Name, s.NsPerOp.Median, s.NsPerOp.Min, s.NsPerOp.Max, s.BPerOp.Median, s.AllocsOp.Median)
	}
	if len(r.WorkflowSide) == 2 {
		plain, kit := r.WorkflowSide[0], r.WorkflowSide[1]
		p("| kit − plain | %.0f | %.0f | %.0f |\n", kit.NsPerOp.Median-plain.NsPerOp.Median, kit.BPerOp.Median-plain.BPerOp.Median, kit.AllocsOp.Median-plain.AllocsOp.Median)
	}
	p("\n")

	p("## `go test ./...` wall time\n\n")
	if len(r.GoTest) == 0 {
		p("Not measured in this run (pass `-gotest-before <revision>`).\n")
		return b.String()
	}
	p("`go %s`, one run each, one after the other, compile time included:\n\n", strings.Join(goTestArgs, " "))
	p("| tree | wall time | sum of the packages' test times | slowest packages | result |\n|---|---|---|---|---|\n")
	for _, g := range r.GoTest {
		result := "pass"
		if !g.Passed {
			result = "FAIL " + strings.Join(g.Failed, ", ")
		}
		p("| %s | %v | %v | %s | %s |\n", g.Tree, g.Wall.Round(time.Second), sumTimes(g.Packages).Round(time.Second), slowest(g.Packages, 3), result)
	}
	return b.String()
}

func medianRange(s benchkit.Summary, decimals int) string {
	return fmt.Sprintf("%.*f (%.*f – %.*f, %d)", decimals, s.Median, decimals, s.Min, decimals, s.Max, s.N)
}

func ci(s benchkit.Summary) string {
	if !s.CIDistribution {
		return "—"
	}
	return fmt.Sprintf("%.3f – %.3f", s.CILow, s.CIHigh)
}

func workflowSideCount(sides []benchSide) int {
	if len(sides) == 0 {
		return 0
	}
	return sides[0].NsPerOp.N
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// goal is one target of the performance issue and how this run did.
type goal struct {
	goal, measured string
	met            bool
}

// Targets of the performance issue.
const (
	maxSequential200MS = 4000
	maxMedianPairRatio = 1.03
	maxRetryLateP50MS  = 150
	minRetries         = 30
)

func (r report) goals() []goal {
	var out []goal
	for _, pr := range r.Pairs {
		if !pr.Workload.Parallel && pr.Workload.Activities == 200 {
			worst := max(pr.Plain.Median, pr.Kit.Median)
			out = append(out, goal{
				fmt.Sprintf("%s on the test dev server ≤ %d ms", pr.Workload, maxSequential200MS),
				fmt.Sprintf("%.0f ms plain, %.0f ms kit (medians)", pr.Plain.Median, pr.Kit.Median),
				worst <= maxSequential200MS,
			})
		}
	}
	for _, pr := range r.Pairs {
		out = append(out, goal{
			fmt.Sprintf("%s: kit/plain median pair ratio ≤ %.2f, wall time", pr.Workload, maxMedianPairRatio),
			fmt.Sprintf("%.3f (95%% CI %s, %d pairs)", pr.Ratio.Median, ci(pr.Ratio), pr.Ratio.N),
			pr.Ratio.Median <= maxMedianPairRatio,
		})
		if pr.CPU != nil {
			out = append(out, goal{
				fmt.Sprintf("%s: kit/plain median pair ratio ≤ %.2f, CPU time", pr.Workload, maxMedianPairRatio),
				fmt.Sprintf("%.3f (95%% CI %s, %d pairs)", pr.CPU.Ratio.Median, ci(pr.CPU.Ratio), pr.CPU.Ratio.N),
				pr.CPU.Ratio.Median <= maxMedianPairRatio,
			})
		}
	}
	for _, rr := range r.Retries {
		out = append(out, goal{
			fmt.Sprintf("retry late by, %s: p50 ≤ %d ms over ≥ %d retries", rr.Path.Name, maxRetryLateP50MS, minRetries),
			fmt.Sprintf("p50 %.0f ms, p95 %.0f ms, %d retries", rr.LateMS.Median, rr.LateMS.P95, rr.LateMS.N),
			rr.LateMS.Median <= maxRetryLateP50MS && rr.LateMS.N >= minRetries,
		})
	}
	return out
}

// retryTable is the retries' table: how late each path's retries started,
// and, on the kit's paths, where that time went (benchkit.Retry), read from
// the kit's observer around the activity's own code; then why a retry under
// a budget starts later, computed from the two kit paths.
func retryTable(retries []retryResult) string {
	var b strings.Builder
	b.WriteString("| path | retries | late by, ms: p50 | p95 | min | max | of which the kit, after the failed attempt's code, p50 | the kit, before the next attempt's code, p50 | the rest (the SDK's report, the server's timer, dispatch), p50 |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, rr := range retries {
		s := rr.LateMS
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.0f | %.0f |", rr.Path.Name, s.N, s.Median, s.P95, s.Min, s.Max)
		if rr.KitAfterMS.N == 0 {
			b.WriteString(" — | — | — |\n")
			continue
		}
		fmt.Fprintf(&b, " %.1f | %.1f | %.1f |\n", rr.KitAfterMS.Median, rr.KitBeforeMS.Median, rr.RestMS.Median)
	}
	var kit, budget *retryResult
	for i := range retries {
		switch rr := &retries[i]; {
		case rr.Path.Kit && rr.Path.Budget:
			budget = rr
		case rr.Path.Kit:
			kit = rr
		}
	}
	if kit != nil && budget != nil && kit.KitAfterMS.N > 0 && budget.KitAfterMS.N > 0 {
		fmt.Fprintf(&b, "\nUnder a budget a retry starts %.1f ms later (p50 against p50) than on the kit's path without one: "+
			"every attempt is charged before it runs, through its run's charge Update, which the run answers in a workflow task. "+
			"The probe's error is outside the kit's error table, so the failing attempt reports it as it is (the kit after its code: "+
			"%.1f ms against %.1f) and the next attempt asks for its charge before its code runs (%.1f ms against %.1f). "+
			"For an error of the kit's table the failing attempt asks instead, before its failure goes back, so that a refused "+
			"retry ends the call with that failure as its cause; the next attempt's ask is then the same charge (the same Update ID). "+
			"The rest is %.1f ms against %.1f.\n",
			budget.LateMS.Median-kit.LateMS.Median,
			budget.KitAfterMS.Median, kit.KitAfterMS.Median,
			budget.KitBeforeMS.Median, kit.KitBeforeMS.Median,
			budget.RestMS.Median, kit.RestMS.Median)
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func sumTimes(ps []packageTime) time.Duration {
	var total time.Duration
	for _, p := range ps {
		total += p.Took
	}
	return total
}

// slowest names the n packages that took longest, with their times.
func slowest(ps []packageTime, n int) string {
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b packageTime) int { return cmp.Compare(b.Took, a.Took) })
	var names []string
	for _, p := range sorted[:min(n, len(sorted))] {
		names = append(names, fmt.Sprintf("%s %v", strings.TrimPrefix(p.Package, "github.com/temporaladk/adk-go/"), p.Took.Round(time.Second)))
	}
	if len(names) == 0 {
		return "—"
	}
	return strings.Join(names, ", ")
}
