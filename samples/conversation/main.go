// Command conversation runs the temporaladk conversation sample: a long
// agent conversation in one workflow that keeps one named budget across the
// runs it continues as new, delegates turns to sub-agent child workflows
// charged to that budget, and prints what each run spent, read back from
// the server.
//
//	go run ./samples/conversation
//	go run ./samples/conversation -address localhost:7233
//	go run ./samples/conversation -history samples/conversation/testdata/histories
//
// The workflow (Conversation) names its budgets with temporaladk.WithBudgets,
// so that every run of its chain spends the one ceiling and the one pool, and continues as new when
// conversation.ShouldContinueAsNew says so. It counts against an Update
// limit of DefaultUpdateLimit (40) per run, set with
// conversation.WithUpdateLimit, so that a sample-sized conversation
// continues as new a few times; a real server accepts 2,000 Updates per
// run (conversation.DefaultUpdateLimit), and the dev server the sample
// starts is told the same 40 (--dynamic-config-value
// history.maxTotalUpdates=40), so that it agrees with the workflow and
// suggests continuing as new at the same 36.
//
// Exit status: 0 when the run showed everything it should, 1 when it
// failed, 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its inputs and outputs given, for the tests.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "conversation: %v\nRun 'go run ./samples/conversation -h' for the flags.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := Run(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line into a Config. Bad flags are an error
// naming the flag, never a panic.
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	cfg := Config{}
	in := DefaultInput()
	fs := flag.NewFlagSet("conversation", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.Namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.StringVar(&cfg.DataDir, "data", "", "the `directory` for the worker log and the histories (default: a temporary directory, removed when the run succeeds)")
	fs.StringVar(&cfg.HistoryDir, "history", "", "record every run and sub-agent into this `directory` (default: in the data directory)")
	fs.IntVar(&in.Ceiling, "ceiling", in.Ceiling, "the attempts the whole conversation may spend, sub-agents included")
	fs.IntVar(&in.MaxTurns, "turns", in.MaxTurns, "the turns the conversation takes at most")
	verbose := fs.Bool("v", false, "write the SDK's log to stderr instead of the data directory")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: go run ./samples/conversation [flags]\n\nRuns one long conversation with temporaladk: one budget across continue-as-new and sub-agents,\nand a report of what each run spent, read from the histories recorded of it.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q: the sample takes flags only", fs.Arg(0))
	}
	if cfg.Address != "" {
		host, port, err := net.SplitHostPort(cfg.Address)
		if err != nil || host == "" {
			return cfg, fmt.Errorf("-address %q is not host:port (for example localhost:7233)", cfg.Address)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return cfg, fmt.Errorf("-address %q: port %q is not a number from 1 to 65535", cfg.Address, port)
		}
	}
	if cfg.Namespace == "" {
		return cfg, errors.New("-namespace is empty")
	}
	if in.Ceiling < 1 {
		return cfg, fmt.Errorf("-ceiling is %d: it must be at least 1", in.Ceiling)
	}
	if in.MaxTurns < 1 {
		return cfg, fmt.Errorf("-turns is %d: it must be at least 1", in.MaxTurns)
	}
	if *verbose {
		cfg.Log = stderr
	}
	cfg.Input = &in
	return cfg, nil
}
