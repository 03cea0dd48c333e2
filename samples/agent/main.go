// Command agent runs the temporaladk agent sample: a Temporal dev server
// started for you (or your own with -address), a worker with the kit, one
// agent run that uses every activity class against a stand-in model server
// that injects faults, and a report of what the kit applied and did, read
// back from the run's history, which is then recorded and replayed.
//
//	go run ./samples/agent
//	go run ./samples/agent -ui
//	go run ./samples/agent -address localhost:7233
//	go run ./samples/agent -model-url https://api.openai.com -model gpt-4o-mini -price 150000,75000,600000   (key in MODEL_API_KEY)
//
// Exit status: 0 when the run showed everything it should, 1 when it failed,
// 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/spend"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run is main with its inputs and outputs given, for the tests.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseFlags(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\nRun 'go run ./samples/agent -h' for the flags.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := agent.Run(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line into a Config. Bad flags are an error
// naming the flag, never a panic.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (agent.Config, error) {
	var cfg agent.Config
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.Namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.BoolVar(&cfg.UI, "ui", false, "start the dev server with its Web UI and keep it up after the report, until Ctrl-C")
	fs.StringVar(&cfg.ModelURL, "model-url", "", "an OpenAI-compatible endpoint's base `URL` (default: the sample's stand-in, which injects faults)")
	fs.StringVar(&cfg.Model, "model", "", "the `model` name sent to -model-url")
	fs.StringVar(&cfg.DataDir, "data", "", "the `directory` for the ledger, memory, history and worker log (default: a temporary directory, removed when the run succeeds)")
	fs.StringVar(&cfg.HistoryPath, "history", "", "record the history to this `file` (default: in the data directory)")
	price := fs.String("price", "", "the price of -model, `input,cached,output` micro-dollars per million tokens (default: the stand-in's, for the stand-in only)")
	verbose := fs.Bool("v", false, "write the SDK's log to stderr instead of the data directory")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: go run ./samples/agent [flags]\n\nRuns one agent workflow with temporaladk on a Temporal server and reports what the kit did.\nThe API key for -model-url is read from MODEL_API_KEY.\n\nFlags:")
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
		if cfg.UI {
			return cfg, errors.New("-ui starts the dev server's Web UI and cannot be used with -address: open your own server's UI instead")
		}
	}
	if cfg.Namespace == "" {
		return cfg, errors.New("-namespace is empty")
	}
	if cfg.ModelURL != "" {
		u, err := url.Parse(cfg.ModelURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, fmt.Errorf("-model-url %q is not an http(s) URL (for example https://api.openai.com)", cfg.ModelURL)
		}
		cfg.APIKey = getenv("MODEL_API_KEY")
	} else if cfg.Model != "" {
		return cfg, errors.New("-model names the model of -model-url; the stand-in needs none")
	}
	if *price != "" {
		p, err := parsePrice(*price)
		if err != nil {
			return cfg, err
		}
		model := cfg.Model
		if model == "" {
			model = agent.StandInModel
		}
		cfg.Prices = map[string]spend.Price{model: p}
	}
	if *verbose {
		cfg.Log = stderr
	}
	return cfg, nil
}

// parsePrice reads -price: three whole numbers of micro-dollars per million
// tokens, input, cached input and output.
func parsePrice(s string) (spend.Price, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return spend.Price{}, fmt.Errorf("-price %q is not input,cached,output (three whole numbers of micro-dollars per million tokens, for example 150000,75000,600000)", s)
	}
	var n [3]int64
	for i, f := range []string{"input", "cached", "output"} {
		v, err := strconv.ParseInt(strings.TrimSpace(parts[i]), 10, 64)
		if err != nil || v < 0 {
			return spend.Price{}, fmt.Errorf("-price %q: the %s price %q is not a whole number of micro-dollars of at least 0", s, f, parts[i])
		}
		n[i] = v
	}
	return spend.Price{Input: spend.Micros(n[0]), CachedInput: spend.Micros(n[1]), Output: spend.Micros(n[2])}, nil
}
