// Command bench measures the kit and the test dev server and writes
// BENCHMARKS.md. Run it from the module's root:
//
//	go run ./bench                         # a few minutes
//	go run ./bench -gotest-before <rev>    # also times `go test -race ./...` at <rev> and now
//
// Everything it writes is computed from what it measured in that run: the
// dev server's dispatch with each of its fast settings taken back, the kit
// against the plain SDK on sequential and fanned-out no-op activities
// (interleaved pairs, with the spread of the pairs' ratios), how late
// retries start against the wait they asked for, the workflow-side cost of
// one ExecuteActivity, and, when asked, the test suite's wall time. The
// parts of the file it does not measure, between <!-- kept: NAME --> and
// <!-- /kept --> lines, it keeps as they are (kept.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	out          string
	seqPairs     int
	fanPairs     int
	fan1000Pairs int
	retries      int
	probeRuns    int
	probeRetries int
	benchCount   int
	goTestBefore string
	// server, when set, measures only the 200 sequential activities and
	// the retries, on that server: "dev" for testsuite's dev server, or the
	// host:port of a running one (a production stack).
	server string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&c.out, "out", "BENCHMARKS.md", "file to write")
	fs.IntVar(&c.seqPairs, "seq-pairs", 15, "pairs of 200 sequential activities")
	fs.IntVar(&c.fanPairs, "fan-pairs", 25, "pairs of a 200-way fan-out")
	fs.IntVar(&c.fan1000Pairs, "fan1000-pairs", 15, "pairs of a 1,000-way fan-out")
	fs.IntVar(&c.retries, "retries", 32, "retries measured per path")
	fs.IntVar(&c.probeRuns, "probe-runs", 3, "runs of 40 sequential activities per dev server setting")
	fs.IntVar(&c.probeRetries, "probe-retries", 6, "retries measured per dev server setting")
	fs.IntVar(&c.benchCount, "bench-count", 5, "-count of the workflow-side go benchmark")
	fs.StringVar(&c.goTestBefore, "gotest-before", "", "a git revision: also time `go test -race -count=1 ./...` there and in the working tree")
	fs.StringVar(&c.server, "server", "", `measure only the 200 sequential activities and the retries, on this server: "dev" (testsuite's dev server) or host:port of a running one`)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for name, v := range map[string]int{
		"-seq-pairs": c.seqPairs, "-fan-pairs": c.fanPairs, "-fan1000-pairs": c.fan1000Pairs,
		"-retries": c.retries, "-probe-runs": c.probeRuns, "-probe-retries": c.probeRetries, "-bench-count": c.benchCount,
	} {
		if v < 1 {
			return c, fmt.Errorf("%s is %d: it must be at least 1", name, v)
		}
	}
	if c.out == "" {
		return c, errors.New("-out is empty")
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, "go run ./bench "+strings.Join(os.Args[1:], " ")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run measures everything and writes the report.
func run(ctx context.Context, cfg config, command string) error {
	if err := checkModuleRoot(); err != nil {
		return err
	}
	if cfg.server != "" {
		return runOnServer(ctx, cfg, strings.TrimSpace(command))
	}
	// A file whose kept parts cannot be read stops the run before it
	// measures for minutes; they are read again before writing, so that an
	// edit made during the run is kept too.
	if _, err := readKeptFile(cfg.out); err != nil {
		return err
	}
	start := time.Now()
	r := report{Command: strings.TrimSpace(command), Date: start.UTC()}
	var err error
	if r.Machine, err = describeMachine(); err != nil {
		return err
	}
	logf("dev server settings, one at a time")
	if r.Probes, err = probeSettings(ctx, cfg); err != nil {
		return err
	}
	logf("kit against plain SDK, and retries, on the fast dev server")
	if r.Pairs, r.Retries, err = measureKit(ctx, cfg); err != nil {
		return err
	}
	logf("workflow side, per ExecuteActivity")
	if r.WorkflowSide, err = workflowSide(ctx, cfg.benchCount); err != nil {
		return err
	}
	if cfg.goTestBefore != "" {
		logf("go test ./... at %s and in the working tree", cfg.goTestBefore)
		if r.GoTest, err = timeGoTests(ctx, cfg.goTestBefore); err != nil {
			return err
		}
	}
	r.Took = time.Since(start)
	if r.Kept, err = readKeptFile(cfg.out); err != nil {
		return err
	}
	if err := os.WriteFile(cfg.out, []byte(r.markdown()), 0o644); err != nil {
		return err
	}
	logf("wrote %s in %v", cfg.out, r.Took.Round(time.Second))
	return nil
}

// checkModuleRoot refuses to run anywhere but the module's root, where the
// relative paths it uses (./interceptors, ./...) mean what they should.
func checkModuleRoot() error {
	mod, err := os.ReadFile("go.mod")
	if err != nil || !strings.Contains(string(mod), "module github.com/temporaladk/adk-go\n") {
		return errors.New("run it from the root of the github.com/temporaladk/adk-go module (no go.mod of that module here)")
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
