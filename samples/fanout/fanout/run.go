package fanout

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/testsuite"
)

// Config is one run of the sample.
type Config struct {
	// Address is an existing Temporal frontend (host:port). If empty, a dev
	// server is started and stopped at the end.
	Address string
	// Namespace is used with Address. If empty, "default".
	Namespace string
	// Branches is the fan-out's width. If 0, 10.
	Branches int
	// Pool is the retries the branches share in the pooled runs. If 0, 5.
	Pool int
	// Log receives the SDK's log lines. If nil, they are dropped.
	Log io.Writer
}

// Scenario is one provider behaviour, run without and with the pool.
type Scenario struct {
	Name  string
	Fault string
	// Without and With are the runs' outcomes; Calls are the requests the
	// provider received in each.
	Without, With           Result
	CallsWithout, CallsWith int
}

// Scenarios are the provider behaviours the sample plays.
var Scenarios = []Scenario{
	{Name: "provider down (every call 503)", Fault: "503x99"},
	{Name: "provider blip (each call 503 once)", Fault: "503"},
}

// Run plays every scenario without and with the pool, prints the call counts
// side by side to out, and returns them.
func Run(ctx context.Context, cfg Config, out, progress io.Writer) ([]Scenario, error) {
	if cfg.Branches == 0 {
		cfg.Branches = 10
	}
	if cfg.Pool == 0 {
		cfg.Pool = 5
	}
	logOut := cfg.Log
	if logOut == nil {
		logOut = io.Discard
	}
	clientOpts := client.Options{Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(logOut, nil))), Identity: "temporaladk-fanout-sample"}

	model, err := standin.Start(standin.Options{TokenDelay: time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("fanout: %w", err)
	}
	defer model.Close()
	var c client.Client
	if cfg.Address == "" {
		fmt.Fprintln(progress, "starting a Temporal dev server (the first run builds the Temporal CLI)")
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ClientOptions: clientOpts})
		if err != nil {
			return nil, fmt.Errorf("fanout: starting the dev server: %w", err)
		}
		defer srv.Stop()
		c = srv.Client()
	} else {
		clientOpts.HostPort, clientOpts.Namespace = cfg.Address, cfg.Namespace
		if c, err = client.DialContext(ctx, clientOpts); err != nil {
			return nil, fmt.Errorf("fanout: connecting to %s: %w", cfg.Address, err)
		}
		defer c.Close()
	}
	kitOpts, err := KitOptions()
	if err != nil {
		return nil, fmt.Errorf("fanout: %w", err)
	}
	plugin, err := interceptors.NewPlugin(kitOpts)
	if err != nil {
		return nil, fmt.Errorf("fanout: %w", err)
	}
	w := worker.New(c, TaskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(FanOutWorkflow)
	w.RegisterActivity(&Activities{Model: chat.Client{BaseURL: model.URL()}})
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("fanout: starting the worker: %w", err)
	}
	defer w.Stop()

	stamp := time.Now().UTC().Format("20060102T150405.000")
	scenarios := append([]Scenario(nil), Scenarios...)
	for i := range scenarios {
		s := &scenarios[i]
		for _, usePool := range []bool{false, true} {
			id := fmt.Sprintf("fanout-%s-%d-pool-%v", stamp, i, usePool)
			fmt.Fprintf(progress, "%s, pool %v: workflow %s\n", s.Name, usePool, id)
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, FanOutWorkflow,
				Input{Branches: cfg.Branches, UsePool: usePool, Pool: cfg.Pool, Fault: s.Fault})
			if err != nil {
				return nil, fmt.Errorf("fanout: starting %s: %w", id, err)
			}
			var res Result
			if err := run.Get(ctx, &res); err != nil {
				return nil, fmt.Errorf("fanout: %s: %w", id, err)
			}
			calls := model.RequestsFor(id + "/")
			if usePool {
				s.With, s.CallsWith = res, calls
			} else {
				s.Without, s.CallsWithout = res, calls
			}
		}
	}
	Print(out, cfg, scenarios)
	return scenarios, nil
}

// Print writes the scenarios side by side.
func Print(out io.Writer, cfg Config, scenarios []Scenario) {
	fmt.Fprintf(out, "\n%d branches of one MODEL call each (MODEL policy: 3 attempts); pool: %d retries (temporaladk.Budgets.Retries) shared by all branches\n\n", cfg.Branches, cfg.Pool)
	const label, cell = 38, 17
	line := fmt.Sprintf("%-*s", label, "")
	for _, s := range scenarios {
		line += fmt.Sprintf(" | %-*s", 2*cell+1, s.Name)
	}
	fmt.Fprintln(out, strings.TrimRight(line, " "))
	line = fmt.Sprintf("%-*s", label, "")
	for range scenarios {
		line += fmt.Sprintf(" | %*s %*s", cell, "without pool", cell, "with pool")
	}
	fmt.Fprintln(out, line)
	row := func(name string, get func(s Scenario) (int, int)) {
		line := fmt.Sprintf("%-*s", label, name)
		for _, s := range scenarios {
			without, with := get(s)
			line += fmt.Sprintf(" | %*d %*d", cell, without, cell, with)
		}
		fmt.Fprintln(out, line)
	}
	row("calls at the provider", func(s Scenario) (int, int) { return s.CallsWithout, s.CallsWith })
	row("  of which retries", func(s Scenario) (int, int) { return s.CallsWithout - cfg.Branches, s.CallsWith - cfg.Branches })
	row("branches answered", func(s Scenario) (int, int) { return s.Without.Answered, s.With.Answered })
	row("branches out of attempts", func(s Scenario) (int, int) { return s.Without.Failed, s.With.Failed })
	row("branches refused a retry by the pool", func(s Scenario) (int, int) { return s.Without.Refused, s.With.Refused })
	fmt.Fprintln(out, "\nWithout the pool every branch spends its own three attempts; with it, the retries of all")
	fmt.Fprintln(out, "branches together stop at the pool's size and the rest fail fast with a BudgetExceededError.")
	fmt.Fprintln(out, "First attempts are never refused: they are the work itself.")
}
