package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Kinds of finding compared between the tools.
const (
	kindRandom = "random"
	kindClock  = "clock"
)

// finding is one expected or reported hazard, by file (one workflow per file) and kind.
type finding struct {
	File string // slash-separated, relative to the tree root
	Kind string
}

// workflowCase is one file written into every workflow package.
type workflowCase struct {
	file    string
	imports []string
	body    string // HELPER stands for the helper package name
	want    []string
}

var workflowCases = []workflowCase{
	{"rand_direct.go", []string{"math/rand"},
		"func RandDirect(ctx workflow.Context) int { return rand.Intn(10) }", []string{kindRandom}},
	{"rand_v2_direct.go", []string{"math/rand/v2", "time"},
		"func RandV2Direct(ctx workflow.Context) time.Duration { return rand.N(10 * time.Second) }", []string{kindRandom}},
	{"clock_direct.go", []string{"time"},
		"func ClockDirect(ctx workflow.Context) time.Time { return time.Now() }", []string{kindClock}},
	{"sleep_direct.go", []string{"time"},
		"func SleepDirect(ctx workflow.Context) { time.Sleep(time.Second) }", []string{kindClock}},
	{"rand_helper.go", []string{"time"},
		"func RandHelper(ctx workflow.Context, attempt int) time.Duration { return HELPER.Backoff(attempt) }", []string{kindRandom}},
	{"clock_helper.go", []string{"time"},
		"func ClockHelper(ctx workflow.Context) time.Time { return HELPER.Stamp() }", []string{kindClock}},
	{"alias_clock.go", []string{"time"},
		"type C = workflow.Context\n\nfunc AliasClock(ctx C) time.Time { return time.Now() }", []string{kindClock}},
	{"funcvalue_rand.go", []string{"math/rand"},
		"func FuncValueRand(ctx workflow.Context) float64 {\n\tdraw := rand.Float64\n\treturn draw()\n}", []string{kindRandom}},
	{"methodvalue_clock.go", nil,
		"func MethodValueClock(ctx workflow.Context) {\n\tnap := HELPER.Sleeper{}.Nap\n\tnap()\n}", []string{kindClock}},
	{"closure_clock.go", []string{"time"},
		"func ClosureClock(ctx workflow.Context) {\n\tworkflow.Go(ctx, func(ctx workflow.Context) { _ = time.Now() })\n}", []string{kindClock}},
	{"seeded.go", []string{"math/rand", "time"},
		"func Seeded(ctx workflow.Context) int {\n\tr := rand.New(rand.NewSource(time.Now().UnixNano()))\n\treturn r.Intn(3)\n}", []string{kindClock, kindRandom}},
	// Quiet: SideEffect callbacks, activities, the workflow's own random stream and clock.
	{"sideeffect.go", []string{"math/rand", "time"},
		"func SideEffect(ctx workflow.Context) {\n\t_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any { return rand.Intn(10) })\n" +
			"\t_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any { return time.Now() })\n}", nil},
	{"activity.go", []string{"context", "math/rand", "time"},
		"func Activity(ctx context.Context) (int, error) {\n\ttime.Sleep(time.Millisecond)\n\treturn rand.Intn(int(time.Now().Unix())), nil\n}", nil},
	{"safe.go", []string{"math/rand/v2", "time"},
		"func Safe(ctx workflow.Context) time.Time {\n\tr := rand.New(workflow.GetRandomStream(ctx, \"jitter\"))\n" +
			"\treturn workflow.Now(ctx).Add(time.Duration(r.IntN(10)) * time.Second)\n}", nil},
}

const helperSource = `// Package %[1]s holds helpers that workflows call.
package %[1]s

import (
	"math/rand"
	"time"
)

// Jitter spreads d by a random factor.
func Jitter(d time.Duration) time.Duration { return time.Duration(float64(d) * (0.5 + rand.Float64())) }

// Backoff reaches randomness through Jitter.
func Backoff(attempt int) time.Duration { return Jitter(time.Duration(attempt) * time.Second) }

// Stamp reads the clock.
func Stamp() time.Time { return time.Now() }

// Sleeper naps on the wall clock.
type Sleeper struct{}

// Nap sleeps.
func (Sleeper) Nap() { time.Sleep(time.Millisecond) }

// Pure reaches nothing.
func Pure(n int) int { return n * 2 }
`

// writeTree writes a module of helperPkgs helper packages and workflowPkgs workflow packages
// under dir and returns the findings a complete checker reports. goMod is the go.mod text.
func writeTree(dir string, workflowPkgs, helperPkgs int, goMod string) (map[finding]bool, error) {
	write := func(rel, content string) error {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(content), 0o644)
	}
	if err := write("go.mod", goMod); err != nil {
		return nil, err
	}
	for h := range helperPkgs {
		name := fmt.Sprintf("h%02d", h)
		if err := write(name+"/"+name+".go", fmt.Sprintf(helperSource, name)); err != nil {
			return nil, err
		}
	}
	want := map[finding]bool{}
	for w := range workflowPkgs {
		pkg := fmt.Sprintf("w%02d", w)
		helper := fmt.Sprintf("h%02d", w%helperPkgs)
		for _, wc := range workflowCases {
			body := strings.ReplaceAll(wc.body, "HELPER", helper)
			imports := append([]string{"go.temporal.io/sdk/workflow"}, wc.imports...)
			if strings.Contains(body, helper+".") {
				imports = append(imports, "example.com/guardbench/"+helper)
			}
			if !strings.Contains(body, "workflow.") {
				imports = imports[1:]
			}
			sort.Strings(imports)
			var src strings.Builder
			fmt.Fprintf(&src, "package %s\n\nimport (\n", pkg)
			for _, imp := range imports {
				fmt.Fprintf(&src, "\t%q\n", imp)
			}
			fmt.Fprintf(&src, ")\n\n%s\n", body)
			rel := pkg + "/" + wc.file
			if err := write(rel, src.String()); err != nil {
				return nil, err
			}
			for _, k := range wc.want {
				want[finding{rel, k}] = true
			}
		}
	}
	return want, nil
}
