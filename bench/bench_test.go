package main

import (
	"strings"
	"testing"
	"time"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/internal/devserver"
	"github.com/temporaladk/adk-go/internal/testclock"
)

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.out != "BENCHMARKS.md" || cfg.retries < 30 {
		t.Errorf("defaults %+v: want BENCHMARKS.md and at least 30 retries per path", cfg)
	}
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-seq-pairs", "0"}, "-seq-pairs is 0"},
		{[]string{"-retries", "-3"}, "-retries is -3"},
		{[]string{"-out", ""}, "-out is empty"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-no-such-flag"}, "no-such-flag"},
	} {
		_, err := parseFlags(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tt.args, err, tt.wantErr)
		}
	}
}

// Every fast value is taken back in exactly one probe row.
func TestSettingsCoverEveryFastValue(t *testing.T) {
	all, err := settings()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range all {
		for _, v := range s.Back {
			seen[v.Key]++
		}
	}
	for _, v := range devserver.FastDynamicConfig() {
		if seen[v.Key] != 1 {
			t.Errorf("%s is taken back in %d rows, want 1", v.Key, seen[v.Key])
		}
	}
	if !all[0].Plain {
		t.Error("the first row is not the plain server")
	}
}

func TestParseWorkflowSide(t *testing.T) {
	out := `goos: linux
BenchmarkWorkflowExecuteActivity/plain-2   	    5000	     26000 ns/op	   11976 B/op	     162 allocs/op
BenchmarkWorkflowExecuteActivity/kit-2     	    5000	     34000 ns/op	   14790 B/op	     195 allocs/op
BenchmarkWorkflowExecuteActivity/plain-2   	    5000	     28000 ns/op	   11980 B/op	     162 allocs/op
BenchmarkWorkflowExecuteActivity/kit-2     	    5000	     32000 ns/op	   14794 B/op	     195 allocs/op
PASS
`
	sides, err := parseWorkflowSide(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sides) != 2 || sides[0].Name != "plain" || sides[1].Name != "kit" {
		t.Fatalf("sides %+v", sides)
	}
	if sides[0].NsPerOp.Median != 27000 || sides[1].NsPerOp.Median != 33000 || sides[1].AllocsOp.Median != 195 || sides[0].NsPerOp.N != 2 {
		t.Errorf("parsed %+v", sides)
	}
	if _, err := parseWorkflowSide("PASS\n"); err == nil {
		t.Error("output without benchmark lines parsed")
	}
}

// The report prints what it was given, not figures of its own.
func TestMarkdownShowsTheMeasurements(t *testing.T) {
	epoch := testclock.Epoch(t)
	r := sampleReport(t, epoch)
	md := r.markdown()
	for _, want := range []string{"| CPUs (nproc) | 7 |", "Test CPU", "| 200 sequential no-op activities | 3 | 1234 | 1250 | 1.013 |", "1.011 – 1.017 | 1.012 |",
		"| 4 | 4 | 97 | 3 | 97 |", "| 200 sequential no-op activities on the test dev server ≤ 4000 ms | 1234 ms plain, 1250 ms kit (medians) | yes |",
		"kit/plain median pair ratio ≤ 1.03, wall time | 1.013 (95% CI —, 3 pairs) | yes |",
		"kit/plain median pair ratio ≤ 1.03, CPU time | 1.040 (95% CI —, 3 pairs) | **no** |",
		"| 200 sequential no-op activities | 3 | 800 | 810 | 1.040 | — | 1.020 – 1.050 | 1.200 (—) |",
		"| 200 sequential no-op activities | 48850 | 57324 | +8474 | 640.0 | 762.4 | +122.4 |", "p50 4 ms, p95 97 ms, 4 retries | **no** |", epoch.UTC().Format("2006-01-02 15:04 UTC"), "| before | 2m47s | 2m0s | a 1m30s, b 30s | pass |", "| after | 1m1s | 0s | — | FAIL x/y |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// sampleReport returns a report of made-up measurements taken at date.
func sampleReport(t *testing.T, date time.Time) report {
	t.Helper()
	sum := func(xs ...float64) benchkit.Summary {
		s, err := benchkit.Summarize(xs)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return report{
		Command: "go run ./bench",
		Date:    date,
		Machine: machine{CPUs: 7, CPUModel: "Test CPU", Go: "go9", SDK: "v9", CLI: "9.9"},
		Pairs: []benchkit.PairsResult{{
			Workload: benchkit.Workload{Activities: 200}, Plain: sum(1234), Kit: sum(1250),
			Ratio: sum(1.011, 1.013, 1.017), TotalRatio: 1.0123,
			CPU:   &benchkit.CPUResult{Plain: sum(800), Kit: sum(810), Ratio: sum(1.02, 1.04, 1.05), WorkerRatio: sum(1.1, 1.2, 1.3)},
			Alloc: benchkit.AllocResult{PlainBytes: sum(48000, 48850, 49000), KitBytes: sum(57324), PlainObjects: sum(640), KitObjects: sum(762.4, 700, 800)},
		}},
		Retries: []retryResult{{Path: retryPaths[0], LateMS: sum(3, 4, 5, 97)}},
		GoTest: []goTestRun{
			{Tree: "before", Wall: 167 * time.Second, Passed: true, Packages: []packageTime{{"github.com/temporaladk/adk-go/a", 90 * time.Second}, {"b", 30 * time.Second}}},
			{Tree: "after", Wall: 61 * time.Second, Failed: []string{"x/y"}},
		},
	}
}

func TestParseGoTest(t *testing.T) {
	out := "ok  \tgithub.com/x/a\t18.091s\n--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tgithub.com/x/b\t2.488s\nok  \tgithub.com/x/c\t(cached)\nFAIL\tgithub.com/x/d [build failed]\n"
	failed, packages := parseGoTest(out)
	if strings.Join(failed, ",") != "github.com/x/b,github.com/x/d" {
		t.Errorf("failed = %q", failed)
	}
	want := []packageTime{{"github.com/x/a", 18091 * time.Millisecond}, {"github.com/x/b", 2488 * time.Millisecond}}
	if len(packages) != len(want) || packages[0] != want[0] || packages[1] != want[1] {
		t.Errorf("packages = %v, want %v", packages, want)
	}
}

// The retries' table splits the kit's paths only, and says why a retry
// under a budget is later from the figures it was given.
func TestRetryTable(t *testing.T) {
	sum := func(ms float64) benchkit.Summary {
		return benchkit.Summary{N: 32, Median: ms, P95: ms, Min: ms, Max: ms}
	}
	table := retryTable([]retryResult{
		{Path: retryPaths[0], LateMS: sum(5)},
		{Path: retryPaths[1], LateMS: sum(6), KitAfterMS: sum(0.1), KitBeforeMS: sum(0.2), RestMS: sum(5.7)},
		{Path: retryPaths[2], LateMS: sum(11), KitAfterMS: sum(0.1), KitBeforeMS: sum(5), RestMS: sum(5.9)},
	})
	rows := strings.Split(table, "\n")
	if !strings.HasSuffix(rows[2], "| 32 | 5 | 5 | 5 | 5 | — | — | — |") {
		t.Errorf("the plain path's row %q: want its lateness and no kit part", rows[2])
	}
	if !strings.HasSuffix(rows[4], "| 32 | 11 | 11 | 11 | 11 | 0.1 | 5.0 | 5.9 |") {
		t.Errorf("the budget path's row %q: want its lateness split", rows[4])
	}
	for _, want := range []string{"starts 5.0 ms later", "before its code runs (5.0 ms against 0.2)", "The rest is 5.9 ms against 5.7"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table's why does not say %q:\n%s", want, table)
		}
	}
	if strings.Contains(retryTable([]retryResult{{Path: retryPaths[0], LateMS: sum(5)}}), "Under a budget") {
		t.Error("a why without the kit's two paths")
	}
}
