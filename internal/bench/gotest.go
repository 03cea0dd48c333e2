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
		{"at " + strings.TrimSpace(string(rev)) + " (before)", dir},
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
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "FAIL" && strings.Contains(f[1], "/") {
			run.Failed = append(run.Failed, f[1])
		}
	}
	return run
}
