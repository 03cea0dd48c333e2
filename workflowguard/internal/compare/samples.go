package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// knownHazard is a replay hazard of temporalio/samples-go that a checker should report: the file
// and the callee a finding names. A samples-go finding that is none of these is a false positive.
type knownHazard struct {
	File   string // relative to the checkout, with forward slashes
	Callee string // as workflowguard prints it in parentheses
}

// samplesHazards are the real hazards of samples-go's workflow code, each read and judged by
// hand: the worker-specific-task-queues workflow names its download path with uuid.New on the
// workflow path, so a replay names another file.
var samplesHazards = []knownHazard{
	{"worker-specific-task-queues/workflow.go", "github.com/google/uuid.New"},
}

// samplePackages lists the packages of the samples-go checkout at dir that load (go list), and
// those that do not: a package whose module the Go module proxy does not serve is left out of
// both tools' runs.
func samplePackages(dir string) (ok, broken []string, err error) {
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{if or .Error .DepsErrors}}broken{{end}}", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list in %s: %v", dir, err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		path, state, _ := strings.Cut(line, " ")
		if state == "broken" {
			broken = append(broken, path)
		} else if path != "" {
			ok = append(ok, path)
		}
	}
	return ok, broken, nil
}

// scoreSamples sorts workflowguard's findings (file:line:col: message, relative to the checkout)
// into the known hazards they report and the findings that report none, the false positives.
func scoreSamples(findings []string, known []knownHazard) (found map[knownHazard]bool, falsePositives []string) {
	found = map[knownHazard]bool{}
	for _, f := range findings {
		isKnown := false
		for _, h := range known {
			if strings.HasPrefix(f, h.File+":") && strings.Contains(f, "("+h.Callee+")") {
				isKnown, found[h] = true, true
			}
		}
		if !isKnown {
			falsePositives = append(falsePositives, f)
		}
	}
	return found, falsePositives
}

// gitRevision returns the commit checked out at dir, or "unknown".
func gitRevision(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// compareSamples runs both tools, interleaved, over the packages of a samples-go checkout and
// writes the findings, which of workflowguard's are known hazards, and the cost.
func compareSamples(w io.Writer, dir, guard, workflowcheck string, runs int) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	pkgs, broken, err := samplePackages(dir)
	if err != nil {
		return err
	}
	tools := []tool{
		{"workflowguard", append([]string{guard}, pkgs...), classifyGuard},
		{"workflowcheck", append([]string{workflowcheck, "-single-line", "-show-pos"}, pkgs...), classifyWorkflowcheck},
	}
	measured := make([][]measurement, len(tools))
	outputs := make([]string, len(tools))
	for run := -1; run < runs; run++ { // run -1 warms caches and is not measured
		for i := range tools {
			idx := (i + run + 1) % len(tools)
			out, m, err := measureIn(dir, tools[idx].argv, "GOWORK=off")
			if err != nil {
				return fmt.Errorf("%s on samples-go: %v\n%s", tools[idx].name, err, out)
			}
			if run >= 0 {
				measured[idx] = append(measured[idx], m)
			}
			outputs[idx] = out
		}
	}
	findings := make([][]string, len(tools))
	for i := range tools {
		for line := range strings.SplitSeq(outputs[i], "\n") {
			if rel, ok := strings.CutPrefix(line, dir+string(filepath.Separator)); ok && strings.Contains(rel, ".go:") {
				findings[i] = append(findings[i], filepath.ToSlash(rel))
			}
		}
		slices.Sort(findings[i])
	}
	found, falsePositives := scoreSamples(findings[0], samplesHazards)
	fmt.Fprintf(w, "## temporalio/samples-go\n\nCommit %s, %d packages; %d packages that import modules the Go module proxy does not serve are left out of both runs.\n\n",
		gitRevision(dir), len(pkgs), len(broken))
	fmt.Fprintf(w, "| | workflowguard | workflowcheck |\n|---|---|---|\n")
	fmt.Fprintf(w, "| findings | %d | %d |\n", len(findings[0]), len(findings[1]))
	fmt.Fprintf(w, "| known hazards found | %d/%d | |\n", len(found), len(samplesHazards))
	fmt.Fprintf(w, "| false positives (findings that are no known hazard) | %d | |\n\n", len(falsePositives))
	for i, t := range tools {
		for _, f := range findings[i] {
			fmt.Fprintf(w, "- %s: `%s`\n", t.name, f)
		}
	}
	fmt.Fprintf(w, "\nCost over the same packages, %d interleaved runs after one warm-up; medians.\n\n", runs)
	costTable(w, measured)
	for i, t := range tools {
		fmt.Fprintf(w, "%s runs: %s\n\n", t.name, runsText(measured[i]))
	}
	return nil
}

// costTable writes the medians of wall time, CPU time and peak RSS of workflowguard (measured[0])
// and workflowcheck (measured[1]), and their ratios.
func costTable(w io.Writer, measured [][]measurement) {
	fmt.Fprintf(w, "| | workflowguard | workflowcheck | ratio |\n|---|---|---|---|\n")
	wall := [2]time.Duration{medianOf(measured[0], func(m measurement) time.Duration { return m.wall }),
		medianOf(measured[1], func(m measurement) time.Duration { return m.wall })}
	rss := [2]int64{medianOf(measured[0], func(m measurement) int64 { return m.maxRSS }),
		medianOf(measured[1], func(m measurement) int64 { return m.maxRSS })}
	cpu := [2]time.Duration{medianOf(measured[0], func(m measurement) time.Duration { return m.cpu }),
		medianOf(measured[1], func(m measurement) time.Duration { return m.cpu })}
	fmt.Fprintf(w, "| wall time | %.2f s | %.2f s | %.2f |\n", wall[0].Seconds(), wall[1].Seconds(), wall[0].Seconds()/wall[1].Seconds())
	fmt.Fprintf(w, "| CPU time (user + system) | %.2f s | %.2f s | %.2f |\n", cpu[0].Seconds(), cpu[1].Seconds(), cpu[0].Seconds()/cpu[1].Seconds())
	fmt.Fprintf(w, "| peak RSS | %.0f MiB | %.0f MiB | %.2f |\n\n", float64(rss[0])/1024, float64(rss[1])/1024, float64(rss[0])/float64(rss[1]))
}
