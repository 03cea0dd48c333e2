package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/samples/internal/datadir"
	"github.com/temporaladk/adk-go/testsuite"
)

// Config is one run of the sample.
type Config struct {
	// Address is an existing Temporal frontend (host:port). If empty, a dev
	// server is started, told to accept Input.UpdateLimit Updates per run.
	Address string
	// Namespace is used with Address. If empty, "default".
	Namespace string
	// DataDir holds the worker's log and, unless HistoryDir is set, the
	// recorded histories. If empty, a new temporary directory, removed when
	// Run succeeds and kept, its path in the error, when Run fails.
	DataDir string
	// HistoryDir is where every run of the chain and every sub-agent is
	// recorded (run-1.json, ..., subagent-4.json, ...). If empty,
	// DataDir/histories.
	HistoryDir string
	// Input is the conversation. If zero, DefaultInput.
	Input *Input
	// Log receives the SDK's log lines. If nil, DataDir/worker.log.
	Log io.Writer
}

// DevServerArgs are the dev server's arguments for an UpdateLimit: the
// server accepts that many Updates per run (history.maxTotalUpdates), as
// the workflow counts, and suggests continuing as new at nine tenths.
func DevServerArgs(updateLimit int) []string {
	return []string{"--dynamic-config-value", fmt.Sprintf("history.maxTotalUpdates=%d", updateLimit)}
}

// Run runs the sample: a server (started or given), a worker with the kit,
// one conversation followed through every run of its chain, the report
// read back from the histories, the histories recorded and replayed. The
// report goes to out, progress lines to progress. It returns the report,
// and an error when something failed to run or a check failed.
func Run(ctx context.Context, cfg Config, out, progress io.Writer) (report *Report, err error) {
	started := time.Now()
	in := DefaultInput()
	if cfg.Input != nil {
		in = *cfg.Input
	}
	// The workflow ID names the conversation, and its sub-agents after it.
	workflowID := fmt.Sprintf("conversation-%s", started.UTC().Format("20060102T150405.000"))
	in.ID = workflowID
	if err := in.validate(); err != nil {
		return nil, fmt.Errorf("conversation: input: %w", err)
	}
	data, err := datadir.Open(cfg.DataDir, "temporaladk-conversation-")
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	// Deferred first, so it runs last: after the worker, the server and the
	// log file have closed.
	defer data.Close(&err)
	dataDir := data.Path
	logOut := cfg.Log
	if logOut == nil {
		f, err := os.OpenFile(filepath.Join(dataDir, "worker.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("conversation: worker log: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	if data.Temporary {
		fmt.Fprintf(progress, "data directory %s (worker log, histories; removed at the end unless the run fails, -data keeps one)\n", dataDir)
	} else {
		fmt.Fprintf(progress, "data directory %s (worker log, histories)\n", dataDir)
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelInfo})))
	report = &Report{Input: in, WorkflowID: workflowID}

	clientOpts := client.Options{Logger: logger, Identity: "temporaladk-conversation-sample"}
	var c client.Client
	if cfg.Address == "" {
		fmt.Fprintf(progress, "starting a Temporal dev server with history.maxTotalUpdates=%d (testsuite.StartDevServer; the first run builds the Temporal CLI)\n", in.UpdateLimit)
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ClientOptions: clientOpts, ExtraArgs: DevServerArgs(in.UpdateLimit)})
		if err != nil {
			return nil, fmt.Errorf("conversation: starting the dev server: %w", err)
		}
		defer srv.Stop()
		c, report.Server, report.DevServer = srv.Client(), srv.Address(), true
	} else {
		clientOpts.HostPort, clientOpts.Namespace = cfg.Address, cfg.Namespace
		dialCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var err error
		if c, err = client.DialContext(dialCtx, clientOpts); err != nil {
			return nil, fmt.Errorf("conversation: connecting to %s: %w", cfg.Address, err)
		}
		defer c.Close()
		report.Server = cfg.Address
	}
	fmt.Fprintf(progress, "Temporal on %s\n", report.Server)

	plugin, err := newPlugin()
	if err != nil {
		return nil, err
	}
	w := worker.New(c, TaskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(Conversation)
	w.RegisterWorkflow(SubAgent)
	w.RegisterActivity(&Activities{})
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("conversation: starting the worker: %w", err)
	}
	defer w.Stop()

	fmt.Fprintf(progress, "running workflow %s on task queue %s\n", report.WorkflowID, TaskQueue)
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(runCtx, client.StartWorkflowOptions{ID: report.WorkflowID, TaskQueue: TaskQueue}, Conversation, in)
	if err != nil {
		return nil, fmt.Errorf("conversation: starting the workflow: %w", err)
	}
	// Get follows the chain to its last run, and GetRunID with it.
	firstRunID := run.GetRunID()
	if err := run.Get(runCtx, &report.Result); err != nil {
		return nil, fmt.Errorf("conversation: workflow %s failed: %w (the SDK's log is in %s)", report.WorkflowID, err, dataDir)
	}
	if report.Runs, err = ReadChain(runCtx, c, report.WorkflowID, firstRunID); err != nil {
		return nil, err
	}

	report.HistoryDir = cfg.HistoryDir
	if report.HistoryDir == "" {
		report.HistoryDir = filepath.Join(dataDir, "histories")
	}
	if err := recordChain(runCtx, c, report.WorkflowID, report.HistoryDir, report.Runs); err != nil {
		return nil, err
	}
	report.ReplayErr = ReplayDir(report.HistoryDir)

	report.Elapsed = time.Since(started)
	report.evaluate()
	report.Print(out)
	if failed := report.Failed(); len(failed) > 0 {
		return report, fmt.Errorf("conversation: %d check(s) failed, first: %s: %s", len(failed), failed[0].Name, failed[0].Detail)
	}
	return report, nil
}

// newPlugin is the kit's plugin with KitOptions, for the worker and the
// replayer alike.
func newPlugin() (worker.Plugin, error) {
	opts, err := KitOptions()
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	plugin, err := interceptors.NewPlugin(opts)
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	return plugin, nil
}

// recordChain writes every run's history to dir as run-N.json and every
// sub-agent's as subagent-<turn>.json, after removing the files of those
// names a recording before left there.
func recordChain(ctx context.Context, c client.Client, workflowID, dir string, runs []*RunRecord) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("conversation: history directory: %w", err)
	}
	for _, pattern := range []string{"run-*.json", "subagent-*.json"} {
		old, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return fmt.Errorf("conversation: history directory: %w", err)
		}
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("conversation: removing an earlier recording: %w", err)
			}
		}
	}
	for _, r := range runs {
		if err := testsuite.RecordHistory(ctx, c, workflowID, r.RunID, filepath.Join(dir, fmt.Sprintf("run-%d.json", r.Number))); err != nil {
			return fmt.Errorf("conversation: recording run %d: %w", r.Number, err)
		}
		for _, ch := range r.Children {
			if err := testsuite.RecordHistory(ctx, c, ch.WorkflowID, ch.RunID, filepath.Join(dir, filepath.Base(ch.WorkflowID)+".json")); err != nil {
				return fmt.Errorf("conversation: recording %s: %w", ch.WorkflowID, err)
			}
		}
	}
	return nil
}

// Replay replays one recorded history of Conversation or SubAgent with the
// kit's plugin, as a worker running the current code would.
func Replay(path string) error {
	opts, err := replayOptions()
	if err != nil {
		return err
	}
	return testsuite.ReplayFile(path, opts)
}

// ReplayDir replays every recorded history under dir (see Replay).
func ReplayDir(dir string) error {
	opts, err := replayOptions()
	if err != nil {
		return err
	}
	return testsuite.ReplayDir(dir, opts)
}

func replayOptions() (testsuite.ReplayOptions, error) {
	plugin, err := newPlugin()
	if err != nil {
		return testsuite.ReplayOptions{}, err
	}
	return testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{{Func: Conversation}, {Func: SubAgent}},
		Plugins:   []worker.Plugin{plugin},
	}, nil
}
