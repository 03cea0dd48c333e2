// Command compare sets workflowguard beside Temporal's workflowcheck on one module: the
// hand-written corpus of testdata/corpus (packages whose lines are marked HAZARD or TRAP)
// and a generated tree of workflow and helper packages. It prints, as Markdown, recall and false
// positives on the corpus, findings on the generated tree, and the median wall time and peak RSS
// of each tool over interleaved runs.
//
//	go install go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
//	go run ./workflowguard/internal/compare -workflowcheck "$(go env GOPATH)/bin/workflowcheck" -out GUARD.md
//
// With -samples DIR, a checkout of temporalio/samples-go, it also runs both tools over the
// packages of samples-go that load and reports their findings and cost there.
//
// Run it from the repository: the tree requires go.temporal.io/sdk at the version in go.mod and
// borrows the repository's go.sum.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/temporaladk/adk-go/workflowguard"
)

func main() {
	workflowcheck := flag.String("workflowcheck", "", "path to a workflowcheck binary (required)")
	runs := flag.Int("runs", 5, "timed runs of each tool, interleaved")
	workflowPkgs := flag.Int("workflow-pkgs", 40, "workflow packages in the generated tree")
	helperPkgs := flag.Int("helper-pkgs", 10, "helper packages in the generated tree")
	keep := flag.Bool("keep", false, "keep the generated tree and print its location")
	out := flag.String("out", "", "also write the report to this file (GUARD.md)")
	samples := flag.String("samples", "", "a checkout of temporalio/samples-go to run both tools over as well")
	flag.Parse()
	if *workflowcheck == "" {
		log.Fatal("-workflowcheck is required")
	}
	if *runs < 1 || *workflowPkgs < 1 || *helperPkgs < 1 {
		log.Fatal("-runs, -workflow-pkgs and -helper-pkgs must be at least 1")
	}
	var report bytes.Buffer
	w := io.Writer(os.Stdout)
	if *out != "" {
		w = io.MultiWriter(os.Stdout, &report)
	}
	samplesFlag := ""
	if *samples != "" {
		samplesFlag = " -samples <a checkout of temporalio/samples-go>"
	}
	fmt.Fprintf(w, "Command: `go run ./workflowguard/internal/compare -workflowcheck <workflowcheck %s> -runs %d -workflow-pkgs %d -helper-pkgs %d%s`\n\n",
		binaryVersion(*workflowcheck), *runs, *workflowPkgs, *helperPkgs, samplesFlag)
	if err := compare(w, *workflowcheck, *samples, *runs, *workflowPkgs, *helperPkgs, *keep); err != nil {
		log.Fatal(err)
	}
	fmt.Fprint(w, blindSpots())
	if *out != "" {
		if err := os.WriteFile(*out, append([]byte(guardHeader), report.Bytes()...), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// blindSpots is the report's last section: what workflowguard does not see, the "Not covered"
// paragraph of its package documentation, the one place that list is kept.
func blindSpots() string {
	doc := workflowguard.Analyzer.Doc
	start := strings.Index(doc, "Not covered:")
	if start < 0 {
		return ""
	}
	para, _, _ := strings.Cut(doc[start:], "\n\n")
	return "\n## What workflowguard does not see\n\n" +
		"The package documentation's list (`go doc github.com/temporaladk/adk-go/workflowguard`); these shapes go unreported:\n\n" +
		strings.TrimSpace(para) + "\n"
}

// binaryVersion returns the main module version recorded in a Go binary, or "unknown".
func binaryVersion(bin string) string {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "mod" {
			return f[1] + "@" + f[2]
		}
	}
	return "unknown"
}

// guardHeader opens GUARD.md; everything after it is the command's measured output.
const guardHeader = `# workflowguard beside workflowcheck

Written by ` + "`go run ./workflowguard/internal/compare`" + ` (the exact flags are below) from what it
measured; rerun it to refresh every figure. The corpus is
workflowguard/internal/compare/testdata/corpus: a line marked HAZARD is a replay hazard a
checker should report (on the line of the workflow code), a line marked TRAP is a shape that
must stay quiet. A false positive is any reported corpus line not marked HAZARD. Peak RSS is
the maximum resident set size of the tool's process (ru_maxrss from wait4, the figure
/usr/bin/time -v prints); CPU time is user plus system time. Both tools load every package of
the build from source, which is most of their time and memory; workflowguard's driver leaves
the function bodies of the standard library, the SDK, gRPC and protobuf out. The machine is
shared, so read the ratios, taken from interleaved runs, rather than the absolute figures.

The last section runs both tools over temporalio/samples-go, checked out from a snapshot of
its repository: every finding is listed, and a workflowguard finding that is not one of the
hazards the harness names (samplesHazards in samples.go, each judged by hand) counts as a
false positive.

`

// measurement is one timed run of one tool.
type measurement struct {
	wall   time.Duration
	cpu    time.Duration // user and system time of the process and the children it waited for
	maxRSS int64         // KiB
}

func compare(w io.Writer, workflowcheck, samples string, runs, workflowPkgs, helperPkgs int, keep bool) error {
	dir, err := os.MkdirTemp("", "guardbench")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "tree:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	sdkVersion, goSum, err := repoSDK()
	if err != nil {
		return err
	}
	goMod := "module example.com/guardbench\n\ngo 1.26\n\nrequire go.temporal.io/sdk " + sdkVersion + "\n"
	tree := filepath.Join(dir, "tree")
	want, err := writeTree(tree, workflowPkgs, helperPkgs, goMod)
	if err != nil {
		return err
	}
	hazards, traps, err := writeCorpus(tree)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tree, "go.sum"), goSum, 0o644); err != nil {
		return err
	}
	if out, err := goCmd(tree, "mod", "tidy").CombinedOutput(); err != nil {
		return fmt.Errorf("go mod tidy: %v\n%s", err, out)
	}
	guard := filepath.Join(dir, "workflowguard")
	if out, err := goCmd("", "build", "-o", guard, "github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard").CombinedOutput(); err != nil {
		return fmt.Errorf("building workflowguard: %v\n%s", err, out)
	}
	pkgs, err := goCmd(tree, "list", "./...").Output()
	if err != nil {
		return fmt.Errorf("go list: %v", err)
	}

	tools := []tool{
		{"workflowguard", []string{guard, "./..."}, classifyGuard},
		{"workflowcheck", []string{workflowcheck, "-single-line", "-show-pos", "./..."}, classifyWorkflowcheck},
	}
	measured := make([][]measurement, len(tools))
	outputs := make([]string, len(tools))
	for run := -1; run < runs; run++ { // run -1 warms caches and is not measured
		for i := range tools {
			idx := (i + run + 1) % len(tools) // alternate which tool goes first
			out, m, err := measure(tree, tools[idx].argv)
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", tools[idx].name, err, out)
			}
			if run >= 0 {
				measured[idx] = append(measured[idx], m)
			}
			outputs[idx] = out
		}
	}

	nPkgs := len(strings.Fields(string(pkgs)))
	marked := map[string]bool{} // the corpus packages, those with a marked line
	for k := range hazards {
		marked[path.Dir(k.File)] = true
	}
	for k := range traps {
		marked[path.Dir(k.File)] = true
	}
	corpusPkgs := slices.Sorted(maps.Keys(marked))
	fmt.Fprintf(w, "## Corpus\n\n%d hazard lines and %d traps in %d packages (%s).\n\n",
		len(hazards), len(traps), len(corpusPkgs), strings.Join(corpusPkgs, ", "))
	fmt.Fprintf(w, "| | workflowguard | workflowcheck |\n|---|---|---|\n")
	scores := make([]corpusScore, len(tools))
	for i := range tools {
		scores[i] = scoreCorpus(flaggedLines(outputs[i], tree), hazards, traps)
	}
	for _, pkg := range corpusPkgs {
		if scores[0].hazardsByPackage[pkg] == 0 {
			continue // traps only
		}
		fmt.Fprintf(w, "| hazards found in %s | %d/%d | %d/%d |\n", pkg,
			scores[0].byPackage[pkg], scores[0].hazardsByPackage[pkg], scores[1].byPackage[pkg], scores[1].hazardsByPackage[pkg])
	}
	fmt.Fprintf(w, "| recall | %d/%d (%.0f%%) | %d/%d (%.0f%%) |\n",
		scores[0].found, scores[0].hazards, percent(scores[0].found, scores[0].hazards),
		scores[1].found, scores[1].hazards, percent(scores[1].found, scores[1].hazards))
	fmt.Fprintf(w, "| false positives (lines) | %d | %d |\n", scores[0].falsePositives, scores[1].falsePositives)
	fmt.Fprintf(w, "| traps reported | %d/%d | %d/%d |\n\n", scores[0].trapsFlagged, scores[0].traps,
		scores[1].trapsFlagged, scores[1].traps)
	for _, k := range missed(flaggedLines(outputs[0], tree), hazards) {
		fmt.Fprintf(w, "- missed by workflowguard: %s:%d\n", k.File, k.Line)
	}

	fmt.Fprintf(w, "\n## Generated tree\n\n%d workflow packages x %d workflow files + %d helper packages; %d expected random/clock findings.\n\n",
		workflowPkgs, len(workflowCases), helperPkgs, len(want))
	fmt.Fprintf(w, "| | workflowguard | workflowcheck |\n|---|---|---|\n")
	corpusDirs := map[string]bool{}
	for k := range hazards {
		corpusDirs[path.Dir(k.File)] = true
	}
	found := make([]map[finding]bool, len(tools))
	byCase := make([]map[string][2]int, len(tools))
	for i, t := range tools {
		found[i] = map[finding]bool{}
		for line := range strings.SplitSeq(outputs[i], "\n") {
			f, ok := t.classify(strings.TrimPrefix(line, tree+string(filepath.Separator)))
			if ok && !corpusDirs[path.Dir(f.File)] {
				found[i][f] = true
			}
		}
		byCase[i] = map[string][2]int{}
		for f := range want {
			k := caseOf(f.File) + " " + f.Kind
			c := byCase[i][k]
			c[1]++
			if found[i][f] {
				c[0]++
			}
			byCase[i][k] = c
		}
	}
	keys := make([]string, 0, len(byCase[0]))
	for k := range byCase[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %d/%d | %d/%d |\n", k, byCase[0][k][0], byCase[0][k][1], byCase[1][k][0], byCase[1][k][1])
	}
	extra := make([]int, len(tools))
	for i := range tools {
		for f := range found[i] {
			if !want[f] {
				extra[i]++
			}
		}
	}
	fmt.Fprintf(w, "| findings outside expectations | %d | %d |\n\n", extra[0], extra[1])

	fmt.Fprintf(w, "## Cost\n\nThe whole module, %d packages (corpus and generated tree), %d interleaved runs after one warm-up; medians.\n\n",
		nPkgs, runs)
	costTable(w, measured)
	for i, t := range tools {
		fmt.Fprintf(w, "%s runs: %s\n\n", t.name, runsText(measured[i]))
	}
	if samples != "" {
		return compareSamples(w, samples, guard, workflowcheck, runs)
	}
	return nil
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// missed lists the hazard lines not in got, sorted.
func missed(got, hazards map[lineKey]bool) []lineKey {
	var out []lineKey
	for k := range hazards {
		if !got[k] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b lineKey) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out
}

func runsText(ms []measurement) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%.2f s wall, %.2f s CPU, %.0f MiB", m.wall.Seconds(), m.cpu.Seconds(), float64(m.maxRSS)/1024)
	}
	return strings.Join(parts, ", ")
}

// measure runs a tool and returns its output, wall time and peak RSS.
func measure(dir string, argv []string) (string, measurement, error) {
	return measureIn(dir, argv)
}

// measureIn is measure with more environment variables.
func measureIn(dir string, argv []string, env ...string) (string, measurement, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	m := measurement{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.maxRSS = ru.Maxrss
	}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 { // findings
		err = nil
	}
	return out.String(), m, err
}

// tool is one checker under comparison.
type tool struct {
	name     string
	argv     []string
	classify func(line string) (finding, bool)
}

// classifyGuard reads "file:line:col: ADK-W00N ..." lines.
func classifyGuard(line string) (finding, bool) {
	file, ok := findingFile(line)
	if !ok {
		return finding{}, false
	}
	switch {
	case strings.Contains(line, "ADK-W002"):
		return finding{file, kindRandom}, true
	case strings.Contains(line, "ADK-W003"):
		return finding{file, kindClock}, true
	}
	return finding{}, false
}

// classifyWorkflowcheck reads "file:line:col: pkg.Fn is non-deterministic, reason: ... -> ..."
// lines and classifies each by the declaration at the end of its chain.
func classifyWorkflowcheck(line string) (finding, bool) {
	file, ok := findingFile(line)
	if !ok {
		return finding{}, false
	}
	switch {
	case strings.Contains(line, "math/rand") || strings.Contains(line, "crypto/rand"):
		return finding{file, kindRandom}, true
	case strings.Contains(line, "time.Now") || strings.Contains(line, "time.Sleep"):
		return finding{file, kindClock}, true
	}
	return finding{}, false
}

// findingFile returns the Go file, with forward slashes, that a "file:line:col: ..." line of a
// tool's output names, or false for any other line.
func findingFile(line string) (string, bool) {
	file, _, ok := strings.Cut(line, ":")
	if !ok || !strings.HasSuffix(file, ".go") {
		return "", false
	}
	return filepath.ToSlash(file), true
}

func caseOf(file string) string {
	return strings.TrimSuffix(file[strings.LastIndex(file, "/")+1:], ".go")
}

// runTool runs a tool in dir and returns its output; exit status 3 (findings) is not an error.
func runTool(dir string, argv []string) (string, error) {
	out, _, err := measure(dir, argv)
	return out, err
}

func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	return cmd
}

// repoSDK returns the go.temporal.io/sdk version the repository requires and its go.sum.
func repoSDK() (string, []byte, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.GoMod}}", "go.temporal.io/sdk").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list -m go.temporal.io/sdk (run from the repository): %w", err)
	}
	version, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	modOut, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", nil, err
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(strings.TrimSpace(string(modOut))), "go.sum"))
	return version, sum, err
}

func medianOf[T int64 | time.Duration](ms []measurement, field func(measurement) T) T {
	vals := make([]T, len(ms))
	for i, m := range ms {
		vals[i] = field(m)
	}
	slices.Sort(vals)
	if len(vals) == 0 {
		return 0
	}
	return vals[len(vals)/2]
}
