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
	// recorded, by testsuite.RecordFamily: run-1.json, run-2.json, ...,
	// and the sub-agents each run started, run-1.child-1-SubAgent.run-1.json,
	// .... If empty, DataDir/histories.
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
// one conversation, every run of its chain and every sub-agent recorded,
// the report read back from those histories, which are then replayed. The
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

	wopts, err := workerOptions()
	if err != nil {
		return nil, err
	}
	w := worker.New(c, TaskQueue, wopts)
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
	// Get follows the chain to its last run.
	if err := run.Get(runCtx, &report.Result); err != nil {
		return nil, fmt.Errorf("conversation: workflow %s failed: %w (the SDK's log is in %s)", report.WorkflowID, err, dataDir)
	}

	report.HistoryDir = cfg.HistoryDir
	if report.HistoryDir == "" {
		report.HistoryDir = filepath.Join(dataDir, "histories")
	}
	files, err := record(runCtx, c, report.WorkflowID, report.HistoryDir)
	if err != nil {
		return nil, err
	}
	if report.Runs, err = ReadChain(report.WorkflowID, files); err != nil {
		return nil, err
	}
	report.ReplayErr = testsuite.ReplayDir(report.HistoryDir, replayOptions(wopts))

	report.Elapsed = time.Since(started)
	report.evaluate()
	report.Print(out)
	if failed := report.Failed(); len(failed) > 0 {
		return report, fmt.Errorf("conversation: %d check(s) failed, first: %s: %s", len(failed), failed[0].Name, failed[0].Detail)
	}
	return report, nil
}

// workerOptions are the worker's options: the kit's plugin with
// KitOptions. The replayer takes the same (testsuite.ReplayOptions.Worker).
func workerOptions() (worker.Options, error) {
	opts, err := KitOptions()
	if err != nil {
		return worker.Options{}, fmt.Errorf("conversation: %w", err)
	}
	plugin, err := interceptors.NewPlugin(opts)
	if err != nil {
		return worker.Options{}, fmt.Errorf("conversation: %w", err)
	}
	return worker.Options{Plugins: []worker.Plugin{plugin}}, nil
}

// replayOptions replay Conversation and SubAgent with the worker's
// options wopts.
func replayOptions(wopts worker.Options) testsuite.ReplayOptions {
	return testsuite.ReplayOptions{Worker: wopts, Workflows: []testsuite.ReplayWorkflow{{Func: Conversation}, {Func: SubAgent}}}
}

// record records the conversation's family into dir
// (testsuite.RecordFamily), after removing the files an earlier recording
// left there: run-*.json, and the subagent-*.json of the sample's earlier
// names, so that a shorter chain leaves nothing stale to replay.
func record(ctx context.Context, c client.Client, workflowID, dir string) ([]string, error) {
	for _, pattern := range []string{"run-*.json", "subagent-*.json"} {
		old, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, fmt.Errorf("conversation: history directory: %w", err)
		}
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return nil, fmt.Errorf("conversation: removing an earlier recording: %w", err)
			}
		}
	}
	files, err := testsuite.RecordFamily(ctx, c, workflowID, dir)
	if err != nil {
		return nil, fmt.Errorf("conversation: recording the histories: %w", err)
	}
	return files, nil
}

// ReplayDir replays every recorded history of Conversation and SubAgent
// under dir with the worker's options, as a worker running the current
// code would.
func ReplayDir(dir string) error {
	wopts, err := workerOptions()
	if err != nil {
		return err
	}
	return testsuite.ReplayDir(dir, replayOptions(wopts))
}
