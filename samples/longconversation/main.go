// Command longconversation runs an agent for hundreds of turns with large
// tool outputs on the kit's payload store (package payloads), on a real
// Temporal server, and prints what history and the store held.
//
//	go run ./samples/longconversation                    # 300 turns, 50 KB searches, a dev server
//	go run ./samples/longconversation -turns 1000 -bucket /tmp/payloads
//
// Every turn the model reads the whole conversation (real chat messages:
// a tool call, the search's JSON results, the answer) and the conversation
// grows by the tool's output. Inline, the SDK's run is terminated at turn 42
// (the model's input passes 2 MiB); here the conversation is a
// conversation.Log on the kit's payload store (a directory bucket,
// content-addressed and chunked by content): each model call's input is the
// conversation's head, and the model activities read it from the store. The
// workflow continues as new when its history reaches -history-limit bytes
// (conversation.WithHistoryByteLimit), carrying the Log in its input.
//
// Exit status: 0 when the conversation ran to its end and its last run
// replayed, 1 when not, 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/samples/internal/datadir"
	"github.com/temporaladk/adk-go/testsuite"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Config is the command line.
type Config struct {
	Address, Namespace, Bucket string
	Input                      Input
}

func parseFlags(args []string, stderr io.Writer) (Config, error) {
	cfg := Config{Input: Input{Turns: 300, ToolBytes: 50_000, HistoryByteLimit: 256 << 10}}
	fs := flag.NewFlagSet("longconversation", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.Namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.StringVar(&cfg.Bucket, "bucket", "", "the store's `directory` (default: a temporary directory, removed when the run succeeds)")
	fs.IntVar(&cfg.Input.Turns, "turns", cfg.Input.Turns, "the conversation's turns")
	fs.IntVar(&cfg.Input.ToolBytes, "tool-bytes", cfg.Input.ToolBytes, "the bytes each web search returns")
	fs.IntVar(&cfg.Input.HistoryByteLimit, "history-limit", cfg.Input.HistoryByteLimit, "continue as new when a run's history nears this many `bytes`")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	switch {
	case cfg.Input.Turns < 1:
		return Config{}, fmt.Errorf("-turns is %d: it must be at least 1", cfg.Input.Turns)
	case cfg.Input.ToolBytes < 1:
		return Config{}, fmt.Errorf("-tool-bytes is %d: it must be at least 1", cfg.Input.ToolBytes)
	case cfg.Input.HistoryByteLimit < 1:
		return Config{}, fmt.Errorf("-history-limit is %d: it must be at least 1", cfg.Input.HistoryByteLimit)
	case cfg.Namespace == "":
		return Config{}, errors.New("-namespace is empty")
	}
	return cfg, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "longconversation: %v\n", err)
		return 2
	}
	if err := Run(context.Background(), cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "longconversation: %v\n", err)
		return 1
	}
	return 0
}

// Run runs the conversation and prints the report. Without cfg.Bucket,
// the store is a temporary directory, removed when Run succeeds and kept,
// its path in the error, when Run fails.
func Run(ctx context.Context, cfg Config, out io.Writer) (err error) {
	if cfg.Address == "" {
		fmt.Fprintln(out, "starting a Temporal dev server (the first run builds the Temporal CLI)")
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{})
		if err != nil {
			return err
		}
		defer srv.Stop()
		cfg.Address, cfg.Namespace = srv.Address(), srv.Namespace()
	}
	data, err := datadir.Open(cfg.Bucket, "longconversation-payloads-")
	if err != nil {
		return err
	}
	// Deferred before the worker and the client, so it runs after they
	// have stopped.
	defer data.Close(&err)
	cfg.Bucket = data.Path
	bucket, err := payloads.NewDirBucket(cfg.Bucket)
	if err != nil {
		return err
	}
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	if err != nil {
		return err
	}
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	opts, err := store.ClientOptions(client.Options{HostPort: cfg.Address, Namespace: cfg.Namespace, Logger: quiet})
	if err != nil {
		return err
	}
	c, err := client.Dial(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	const queue = "longconversation"
	// The workflow counts its history through the conversation package,
	// which needs the kit's interceptor: the kit's plugin on the worker and
	// on the replayer below.
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	if err != nil {
		return err
	}
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(Agent)
	w.RegisterActivity(Plan)
	w.RegisterActivity(WebSearch)
	w.RegisterActivity(Answer)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()

	fmt.Fprintf(out, "%d turns, %d-byte web searches, payloads in %s\n", cfg.Input.Turns, cfg.Input.ToolBytes, cfg.Bucket)
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, Agent, cfg.Input)
	if err != nil {
		return err
	}
	var res Result
	if err := wr.Get(ctx, &res); err != nil {
		return fmt.Errorf("the conversation failed: %w", err)
	}
	// The run handle followed the chain to its last run; walk back.
	var runs []int64
	var maxHistory int64
	lastRun := wr.GetRunID()
	for runID := lastRun; runID != ""; {
		desc, err := c.DescribeWorkflowExecution(ctx, wr.GetID(), runID)
		if err != nil {
			return err
		}
		size := desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
		runs = append([]int64{size}, runs...)
		maxHistory = max(maxHistory, size)
		h, err := testsuite.WorkflowHistory(ctx, c, wr.GetID(), runID)
		if err != nil {
			return err
		}
		runID = h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	var total int64
	for _, r := range runs {
		total += r
	}
	var stored int64
	if err := bucket.List(ctx, "", func(o payloads.Object) error { stored += o.Size; return nil }); err != nil {
		return err
	}
	st := store.Stats()
	fmt.Fprintf(out, "%d turns, %d messages, a %d-byte conversation, in %d runs\n", res.Turns, res.Messages, res.Bytes, len(runs))
	fmt.Fprintf(out, "history: %d bytes in all, %d per turn; the largest run %d bytes (limit %d)\n", total, total/int64(res.Turns), maxHistory, cfg.Input.HistoryByteLimit)
	fmt.Fprintf(out, "store: %d bytes for the conversation (%.2f×), %d given to it; read %d bytes from the bucket for %d decoded\n",
		stored, float64(stored)/float64(res.Bytes), st.BytesStored, st.BytesRead, st.BytesDecoded)

	path := filepath.Join(os.TempDir(), "longconversation-"+lastRun+".json")
	if err := testsuite.RecordHistory(ctx, c, wr.GetID(), lastRun, path); err != nil {
		return err
	}
	defer os.Remove(path)
	ropts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Agent}}, Plugins: []worker.Plugin{kit}}
	if ropts.ExternalStorage, ropts.DataConverter, err = store.Configure(ropts.ExternalStorage, ropts.DataConverter); err != nil {
		return err
	}
	if err := testsuite.ReplayFile(path, ropts); err != nil {
		return fmt.Errorf("replaying the last run: %w", err)
	}
	fmt.Fprintln(out, "the last run's history replays with the store")
	return nil
}
