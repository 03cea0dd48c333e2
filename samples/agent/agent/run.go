package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/samples/internal/datadir"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/testsuite"
)

// Config is one run of the sample.
type Config struct {
	// Address is an existing Temporal frontend (host:port). If empty, a dev
	// server is started with testsuite.StartDevServer and stopped at the end.
	Address string
	// Namespace is used with Address. If empty, "default".
	Namespace string
	// UI starts the dev server with its Web UI and keeps it up, after the
	// report, until ctx is done. Not with Address.
	UI bool
	// ModelURL is an OpenAI-compatible endpoint's base URL. If empty, the
	// sample's stand-in model server, which injects the faults.
	ModelURL string
	// Model is the model name sent to ModelURL, and the MODEL calls' entry
	// in the price table (Input.Model) when Input is the default or its
	// Model is empty. If empty, StandInModel.
	Model string
	// Prices are added to the sample's price table (KitOptions), by model
	// name: the price of Model, for a model other than StandInModel.
	Prices map[string]spend.Price
	// APIKey is sent as a bearer token to ModelURL. If empty, none.
	APIKey string
	// DataDir holds the ledger, the memory, the history and the worker's log.
	// If empty, a new temporary directory, removed when Run succeeds and
	// kept, its path in the error, when Run fails.
	DataDir string
	// HistoryPath is where the history is recorded. If empty,
	// DataDir/history/<workflow ID>.json.
	HistoryPath string
	// Input is the run. If nil, DefaultInput; faults are asked of the
	// model only when it is the stand-in. An empty Input.Model is Model, or
	// StandInModel.
	Input *Input
	// Log receives the SDK's log lines. If nil, they go to DataDir/worker.log.
	Log io.Writer
	// Provider, if not nil, serves the MODEL calls instead of the
	// OpenAI-compatible client (see ModelFunc); ProviderName names it in the
	// report. No stand-in is started and no faults are asked for.
	Provider     ModelFunc
	ProviderName string
	// Tools, if not nil, adds tool activities from outside the sample (see
	// ToolSource); Input.ExternalTool says which one the run calls.
	Tools ToolSource
}

// Run runs the sample: a Temporal server (started or given), a worker with
// the kit, one AgentWorkflow, then the report read back from the history,
// the history recorded to a file and replayed with the kit's plugin. The
// report goes to out and progress lines to progress. It returns the report,
// and an error when something failed to run or a check failed.
func Run(ctx context.Context, cfg Config, out, progress io.Writer) (report *Report, err error) {
	started := time.Now()
	if cfg.UI && cfg.Address != "" {
		return nil, errors.New("agent: the Web UI comes with the dev server the sample starts; with an address, open your own server's UI")
	}
	data, err := datadir.Open(cfg.DataDir, "temporaladk-agent-")
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	// Deferred first, so it runs last: after the worker, the server, the
	// stand-in and the log file have closed, and after -ui's wait.
	defer data.Close(&err)
	dataDir := data.Path
	if data.Temporary {
		fmt.Fprintf(progress, "data directory %s (ledger, memory, history, worker log; removed at the end unless the run fails, -data keeps one)\n", dataDir)
	} else {
		fmt.Fprintf(progress, "data directory %s (ledger, memory, history, worker log)\n", dataDir)
	}
	logOut := cfg.Log
	if logOut == nil {
		f, err := os.OpenFile(filepath.Join(dataDir, "worker.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("agent: worker log: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelInfo})))

	input := DefaultInput()
	if cfg.Input != nil {
		input = *cfg.Input
	}
	if cfg.Model != "" && (cfg.Input == nil || input.Model == "") {
		input.Model = cfg.Model
	}
	if input.Model == "" {
		input.Model = StandInModel
	}
	report = &Report{ModelURL: cfg.ModelURL, Input: input}
	kitOpts, err := KitOptions()
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if err := declareExtensions(cfg, &kitOpts); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	for model, p := range cfg.Prices {
		kitOpts.Prices[model] = p
	}
	if _, ok := kitOpts.Prices[input.Model]; !ok && input.CostBudget > 0 {
		return nil, fmt.Errorf("agent: model %q has no price in the sample's price table (it prices %q): give one in Config.Prices (-price)", input.Model, slices.Sorted(maps.Keys(kitOpts.Prices)))
	}
	if cfg.Provider != nil {
		report.ModelURL = cfg.ProviderName
		report.Input.ModelFaults = false
	} else if cfg.ModelURL == "" {
		model, err := standin.Start(standin.Options{})
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		defer model.Close()
		report.ModelURL, report.StandIn = model.URL(), true
		fmt.Fprintf(progress, "stand-in model server on %s (OpenAI-compatible, streams, injects faults)\n", model.URL())
	} else {
		// A real endpoint does not inject faults on request.
		report.Input.ModelFaults = false
	}

	clientOpts := client.Options{Logger: logger, Identity: "temporaladk-agent-sample"}
	var c client.Client
	if cfg.Address == "" {
		fmt.Fprintln(progress, "starting a Temporal dev server (testsuite.StartDevServer; the first run builds the Temporal CLI)")
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{EnableUI: cfg.UI, ClientOptions: clientOpts})
		if err != nil {
			return nil, fmt.Errorf("agent: starting the dev server: %w", err)
		}
		defer srv.Stop()
		c, report.Server, report.DevServer = srv.Client(), srv.Address(), true
		if cfg.UI {
			defer func() {
				if report.RunID == "" {
					return
				}
				fmt.Fprintf(out, "\nWeb UI: http://%s/namespaces/%s/workflows/%s/%s/history\n", srv.UIAddress(), srv.Namespace(), report.WorkflowID, report.RunID)
				fmt.Fprintln(out, "The server stays up until Ctrl-C.")
				<-ctx.Done()
			}()
		}
		fmt.Fprintf(progress, "dev server on %s\n", srv.Address())
	} else {
		clientOpts.HostPort, clientOpts.Namespace = cfg.Address, cfg.Namespace
		dialCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var err error
		if c, err = client.DialContext(dialCtx, clientOpts); err != nil {
			return nil, fmt.Errorf("agent: connecting to %s: %w", cfg.Address, err)
		}
		defer c.Close()
		report.Server = cfg.Address
		fmt.Fprintf(progress, "connected to %s\n", cfg.Address)
	}

	workerOpts, err := workerOptions(kitOpts)
	if err != nil {
		return nil, err
	}
	memory, err := NewMemoryStore(filepath.Join(dataDir, "memory"))
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	ledger := NewLedger(filepath.Join(dataDir, "ledger.jsonl"))
	index, err := ShippedIndex()
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	acts := &Activities{
		Model:  chat.Client{BaseURL: report.ModelURL, Model: cfg.Model, APIKey: cfg.APIKey},
		Ledger: ledger, Memory: memory, Index: index,
	}
	w := worker.New(c, TaskQueue, workerOpts)
	w.RegisterWorkflow(AgentWorkflow)
	w.RegisterActivity(acts)
	registerExtensions(cfg, w)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("agent: starting the worker: %w", err)
	}
	defer w.Stop()

	report.WorkflowID = fmt.Sprintf("agent-%s", time.Now().UTC().Format("20060102T150405.000"))
	fmt.Fprintf(progress, "running workflow %s on task queue %s\n", report.WorkflowID, TaskQueue)
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(runCtx, client.StartWorkflowOptions{ID: report.WorkflowID, TaskQueue: TaskQueue}, AgentWorkflow, report.Input)
	if err != nil {
		return nil, fmt.Errorf("agent: starting the workflow: %w", err)
	}
	report.RunID = run.GetRunID()
	if err := run.Get(runCtx, &report.Result); err != nil {
		return nil, fmt.Errorf("agent: workflow %s failed: %w (the SDK's log is in %s)", report.WorkflowID, err, dataDir)
	}

	events, err := historyOf(runCtx, c, report.WorkflowID, report.RunID)
	if err != nil {
		return nil, err
	}
	if report.Calls, err = CallsFromHistory(events); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	report.HistoryEvents = len(events)
	if report.Budgets, err = budgetsOf(runCtx, c, report.WorkflowID, report.RunID); err != nil {
		return nil, err
	}
	if report.Ledger, err = ledger.Entries(); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	report.LedgerPath, report.MemoryDir = ledger.Path(), memory.Dir()

	report.HistoryPath = cfg.HistoryPath
	if report.HistoryPath == "" {
		report.HistoryPath = filepath.Join(dataDir, "history", report.WorkflowID+".json")
	}
	if err := testsuite.RecordHistory(runCtx, c, report.WorkflowID, report.RunID, report.HistoryPath); err != nil {
		return nil, fmt.Errorf("agent: recording the history: %w", err)
	}
	report.ReplayErr = Replay(report.HistoryPath)

	report.Elapsed = time.Since(started)
	report.evaluate()
	report.Print(out)
	if failed := report.Failed(); len(failed) > 0 {
		return report, fmt.Errorf("agent: %d check(s) failed, first: %s: %s", len(failed), failed[0].Name, failed[0].Detail)
	}
	return report, nil
}

// Replay replays a recorded history of AgentWorkflow with the kit's plugin,
// as a worker running the current code would.
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
	kitOpts, err := KitOptions()
	if err != nil {
		return testsuite.ReplayOptions{}, fmt.Errorf("agent: %w", err)
	}
	workerOpts, err := workerOptions(kitOpts)
	if err != nil {
		return testsuite.ReplayOptions{}, err
	}
	return testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: AgentWorkflow}}, Worker: workerOpts}, nil
}

// workerOptions are the options of the sample's worker, the kit's plugin
// in them; the replayer takes the same (testsuite.ReplayOptions.Worker).
func workerOptions(kitOpts interceptors.Options) (worker.Options, error) {
	plugin, err := interceptors.NewPlugin(kitOpts)
	if err != nil {
		return worker.Options{}, fmt.Errorf("agent: %w", err)
	}
	return worker.Options{Plugins: []worker.Plugin{plugin}}, nil
}

// budgetsOf asks the run for its budgets, attempts, retries, tokens and cost, through the kit's
// Query spend.QueryName; a closed run answers it too, from
// its history.
func budgetsOf(ctx context.Context, c client.Client, workflowID, runID string) ([]spend.State, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, spend.QueryName)
	if err != nil {
		return nil, fmt.Errorf("agent: the Query %s of %s: %w", spend.QueryName, workflowID, err)
	}
	var states []spend.State
	if err := v.Get(&states); err != nil {
		return nil, fmt.Errorf("agent: the Query %s of %s: %w", spend.QueryName, workflowID, err)
	}
	return states, nil
}

func historyOf(ctx context.Context, c client.Client, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
	h, err := testsuite.WorkflowHistory(ctx, c, workflowID, runID)
	if err != nil {
		return nil, fmt.Errorf("agent: reading the history of %s: %w", workflowID, err)
	}
	return h.GetEvents(), nil
}
