// Command fanout plays the retry storm: ten branches of a MODEL call against
// a struggling stand-in provider, without and with a shared pool of
// retries (temporaladk.Budgets.Retries), and prints the provider's call counts side by
// side.
//
//	go run ./samples/fanout
//	go run ./samples/fanout -pool 3 -address localhost:7233
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
	"syscall"

	"github.com/temporaladk/adk-go/samples/fanout/fanout"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outputs given, for the tests.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "fanout: %v\nRun 'go run ./samples/fanout -h' for the flags.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := fanout.Run(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (fanout.Config, error) {
	var cfg fanout.Config
	fs := flag.NewFlagSet("fanout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.Namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.IntVar(&cfg.Branches, "branches", 10, "how many branches fan out")
	fs.IntVar(&cfg.Pool, "pool", 5, "the retries the branches share in the pooled runs")
	verbose := fs.Bool("v", false, "write the SDK's log to stderr")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected argument %q: the sample takes flags only", fs.Arg(0))
	case cfg.Branches < 1 || cfg.Branches > 100:
		return cfg, fmt.Errorf("-branches %d: want 1 to 100", cfg.Branches)
	case cfg.Pool < 1:
		return cfg, fmt.Errorf("-pool %d: want at least 1 (a pool of 0 allows no retry at all)", cfg.Pool)
	case cfg.Namespace == "":
		return cfg, errors.New("-namespace is empty")
	}
	if cfg.Address != "" {
		if host, _, err := net.SplitHostPort(cfg.Address); err != nil || host == "" {
			return cfg, fmt.Errorf("-address %q is not host:port (for example localhost:7233)", cfg.Address)
		}
	}
	if *verbose {
		cfg.Log = stderr
	}
	return cfg, nil
}
