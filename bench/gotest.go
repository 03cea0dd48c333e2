package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// goTestArgs is the test suite run that is timed.
var goTestArgs = []string{"test", "-race", "-count=1", "./..."}

// goTestRun is one timed run of the test suite.
type goTestRun struct {
	Tree   string
	Wall   time.Duration
	Passed bool
	Failed []string // packages that failed
	// Packages are the packages' own test times, as go test printed them.
	Packages []packageTime
}

// packageTime is one package's test time.
type packageTime struct {
	Package string
	Took    time.Duration
}

// timeGoTests times the test suite at revision before (a copy made with git
// archive) and then in the working tree, one after the other.
func timeGoTests(ctx context.Context, before string) ([]goTestRun, error) {
	rev, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", before+"^{commit}").Output()
	if err != nil {
		return nil, fmt.Errorf("-gotest-before %q is not a commit: %w", before, err)
	}
	dir, err := os.MkdirTemp("", "bench-gotest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", before)
	extract := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	if extract.Stdin, err = archive.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := extract.Start(); err != nil {
		return nil, err
	}
	if err := archive.Run(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w", before, err)
	}
	if err := extract.Wait(); err != nil {
		return nil, fmt.Errorf("extracting %s: %w", before, err)
	}
	var runs []goTestRun
	for _, t := range []struct{ name, dir string }{
		{strings.TrimSpace(string(rev)) + " (before)", dir},
		{"this tree (after)", "."},
	} {
		logf("  go %s in %s", strings.Join(goTestArgs, " "), t.name)
		runs = append(runs, timeGoTest(ctx, t.name, t.dir))
	}
	return runs, nil
}

// timeGoTest runs the suite in dir and times it; a failing suite is a
// result, not an error.
func timeGoTest(ctx context.Context, name, dir string) goTestRun {
	cmd := exec.CommandContext(ctx, "go", goTestArgs...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	run := goTestRun{Tree: name, Wall: time.Since(start), Passed: err == nil}
	run.Failed, run.Packages = parseGoTest(out.String())
	return run
}

// parseGoTest reads go test's summary lines: the packages that failed, and
// each package's test time ("ok" and "FAIL" lines with a duration).
func parseGoTest(out string) (failed []string, packages []packageTime) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != "ok" && f[0] != "FAIL") || !strings.Contains(f[1], "/") {
			continue
		}
		if f[0] == "FAIL" {
			failed = append(failed, f[1])
		}
		if len(f) >= 3 {
			if d, err := time.ParseDuration(f[2]); err == nil {
				packages = append(packages, packageTime{Package: f[1], Took: d})
			}
		}
	}
	return failed, packages
}
