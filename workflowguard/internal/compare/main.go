// Command compare sets workflowguard beside Temporal's workflowcheck on a generated tree of 50
// packages (40 workflow packages, 10 helper packages) and prints findings and wall times.
//
//	go install go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
//	go run ./workflowguard/internal/compare -workflowcheck "$(go env GOPATH)/bin/workflowcheck"
//
// Run it from the repository: the tree requires go.temporal.io/sdk at the version in go.mod and
// borrows the repository's go.sum.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	workflowcheck := flag.String("workflowcheck", "", "path to a workflowcheck binary (required)")
	runs := flag.Int("runs", 5, "timed runs of each tool, interleaved")
	workflowPkgs := flag.Int("workflow-pkgs", 40, "workflow packages in the tree")
	helperPkgs := flag.Int("helper-pkgs", 10, "helper packages in the tree")
	keep := flag.Bool("keep", false, "keep the generated tree and print its location")
	flag.Parse()
	if *workflowcheck == "" {
		log.Fatal("-workflowcheck is required")
	}
	if err := compare(*workflowcheck, *runs, *workflowPkgs, *helperPkgs, *keep); err != nil {
		log.Fatal(err)
	}
}

func compare(workflowcheck string, runs, workflowPkgs, helperPkgs int, keep bool) error {
	dir, err := os.MkdirTemp("", "guardbench")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("tree:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	sdkVersion, goSum, err := repoSDK()
	if err != nil {
		return err
	}
	goMod := "module example.com/guardbench\n\ngo 1.26\n\nrequire go.temporal.io/sdk " + sdkVersion + "\n"
	want, err := writeTree(filepath.Join(dir, "tree"), workflowPkgs, helperPkgs, goMod)
	if err != nil {
		return err
	}
	tree := filepath.Join(dir, "tree")
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

	tools := []tool{
		{"workflowguard", []string{guard, "./..."}, classifyGuard},
		{"workflowcheck", []string{workflowcheck, "-single-line", "./..."}, classifyWorkflowcheck},
	}
	times := make([][]time.Duration, len(tools))
	outputs := make([]string, len(tools))
	for run := -1; run < runs; run++ { // run -1 warms caches and is not timed
		for i := range tools {
			idx := (i + run + 1) % len(tools) // alternate which tool goes first
			start := time.Now()
			out, err := runTool(tree, tools[idx].argv)
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", tools[idx].name, err, out)
			}
			if run >= 0 {
				times[idx] = append(times[idx], elapsed)
			}
			outputs[idx] = out
		}
	}

	fmt.Printf("tree: %d workflow packages x %d workflow files + %d helper packages; %d expected random/clock findings\n\n",
		workflowPkgs, len(workflowCases), helperPkgs, len(want))
	found := make([]map[finding]bool, len(tools))
	for i, t := range tools {
		found[i] = map[finding]bool{}
		for line := range strings.SplitSeq(outputs[i], "\n") {
			if f, ok := t.classify(strings.TrimPrefix(line, tree+string(filepath.Separator))); ok {
				found[i][f] = true
			}
		}
		var hit, extra int
		byCase := map[string][2]int{}
		for f := range found[i] {
			if want[f] {
				hit++
			} else {
				extra++
			}
		}
		for f := range want {
			c := byCase[caseOf(f.File)+" "+f.Kind]
			c[1]++
			if found[i][f] {
				c[0]++
			}
			byCase[caseOf(f.File)+" "+f.Kind] = c
		}
		med := median(times[i])
		fmt.Printf("%s: %d/%d expected found, %d outside expectations, median wall %.2fs of %v\n",
			t.name, hit, len(want), extra, med.Seconds(), rounded(times[i]))
		keys := make([]string, 0, len(byCase))
		for k := range byCase {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Printf("    %-28s %3d/%d\n", k, byCase[k][0], byCase[k][1])
		}
	}
	missedByGuard := 0
	for f := range found[1] {
		if !found[0][f] {
			missedByGuard++
			fmt.Println("found by workflowcheck only:", f)
		}
	}
	fmt.Printf("\nfound by workflowcheck but not workflowguard: %d\n", missedByGuard)
	fmt.Printf("wall time ratio workflowguard/workflowcheck (medians): %.2f\n",
		median(times[0]).Seconds()/median(times[1]).Seconds())
	return nil
}

// tool is one checker under comparison.
type tool struct {
	name     string
	argv     []string
	classify func(line string) (finding, bool)
}

// classifyGuard reads "file:line:col: ADK-W00N ..." lines.
func classifyGuard(line string) (finding, bool) {
	file, _, ok := strings.Cut(line, ":")
	if !ok || !strings.HasSuffix(file, ".go") {
		return finding{}, false
	}
	file = filepath.ToSlash(file)
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
	file, _, ok := strings.Cut(line, ":")
	if !ok || !strings.HasSuffix(file, ".go") {
		return finding{}, false
	}
	file = filepath.ToSlash(file)
	switch {
	case strings.Contains(line, "math/rand") || strings.Contains(line, "crypto/rand"):
		return finding{file, kindRandom}, true
	case strings.Contains(line, "time.Now") || strings.Contains(line, "time.Sleep"):
		return finding{file, kindClock}, true
	}
	return finding{}, false
}

func caseOf(file string) string {
	return strings.TrimSuffix(file[strings.LastIndex(file, "/")+1:], ".go")
}

func runTool(dir string, argv []string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 { // findings
		err = nil
	}
	return out.String(), err
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

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func rounded(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%.2fs", d.Seconds())
	}
	return out
}
