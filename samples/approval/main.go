// Command approval runs an agent whose effectful tool BookSeat needs a
// person's approval: the agent asks to book two seats, the command lists
// the pending approvals as a web handler would (approvals.List, with only
// the workflow ID), approves the first and denies the second, and prints
// what ran.
//
//	go run ./samples/approval
//	go run ./samples/approval -address localhost:7233
//
// Against your own server, list, approve and deny are commands of their
// own, for a workflow another process runs:
//
//	go run ./samples/approval -address localhost:7233 list -workflow trip-1
//	go run ./samples/approval -address localhost:7233 approve -workflow trip-1 -call approval-1 -digest <digest> -by ana
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TaskQueue is the sample's task queue.
const TaskQueue = "temporaladk-approval-sample"

// Seat is BookSeat's argument.
type Seat struct {
	Flight string `json:"flight"`
	Seat   string `json:"seat"`
}

// Trip books each seat, all at once, and reports each outcome as a line.
func Trip(ctx workflow.Context, seats []Seat) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	futures := make([]workflow.Future, len(seats))
	for i, s := range seats {
		futures[i] = workflow.ExecuteActivity(ctx, "BookSeat", s)
	}
	out := make([]string, len(seats))
	for i, f := range futures {
		var booked string
		err := f.Get(ctx, &booked)
		var denied *temporaladk.ApprovalDeniedError
		switch {
		case err == nil:
			out[i] = booked
		case errors.As(err, &denied):
			out[i] = fmt.Sprintf("%s/%s not booked: %v", seats[i].Flight, seats[i].Seat, denied)
		default:
			return nil, err
		}
	}
	return out, nil
}

// BookSeat is the effectful tool.
func BookSeat(ctx context.Context, s Seat) (string, error) {
	return fmt.Sprintf("%s/%s booked", s.Flight, s.Seat), nil
}

// KitOptions declare BookSeat an effectful tool that needs approval,
// waiting an hour at most, that any named approver approves alone (open
// mode, asked for in so many words).
func KitOptions() interceptors.Options {
	return interceptors.Options{
		Activities: map[string]temporaladk.Declaration{
			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true, ApprovalTimeout: time.Hour},
		},
		Approvals: interceptors.ApprovalOptions{Tools: map[string]approvals.Approvers{"BookSeat": {Open: true, Required: 1}}},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	address, namespace string
	command            string
	workflowID         string
	decision           approvals.Decision
}

// run is main with its outputs given, for the tests.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "approval: %v\nRun 'go run ./samples/approval -h' for the flags.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := execute(ctx, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "approval: %v\n", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("approval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.namespace, "namespace", "default", "the `namespace` to use with -address")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.command = "run"
	if fs.NArg() > 0 {
		cfg.command = fs.Arg(0)
	}
	if cfg.command == "run" {
		if fs.NArg() > 1 {
			return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(1))
		}
		return cfg, nil
	}
	switch cfg.command {
	case "list", "approve", "deny":
	default:
		return cfg, fmt.Errorf("unknown command %q (want run, list, approve or deny)", cfg.command)
	}
	if cfg.address == "" {
		return cfg, fmt.Errorf("%s needs -address: the workflow runs on a server of its own", cfg.command)
	}
	sub := flag.NewFlagSet(cfg.command, flag.ContinueOnError)
	sub.SetOutput(stderr)
	sub.StringVar(&cfg.workflowID, "workflow", "", "the workflow `ID`")
	sub.StringVar(&cfg.decision.Call, "call", "", "the pending call's `ID` (approval-N), for approve and deny")
	sub.StringVar(&cfg.decision.Digest, "digest", "", "the pending call's argument `digest`, as list prints it")
	sub.StringVar(&cfg.decision.By, "by", "", "who decides")
	sub.StringVar(&cfg.decision.Reason, "reason", "", "why (optional)")
	if err := sub.Parse(fs.Args()[1:]); err != nil {
		return cfg, err
	}
	if strings.TrimSpace(cfg.workflowID) == "" {
		return cfg, errors.New("-workflow is empty")
	}
	return cfg, nil
}

func execute(ctx context.Context, cfg config, stdout io.Writer) error {
	clientOpts := client.Options{Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), Identity: "temporaladk-approval-sample"}
	var c client.Client
	if cfg.address == "" {
		fmt.Fprintln(stdout, "starting a Temporal dev server (the first run builds the Temporal CLI)")
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ClientOptions: clientOpts})
		if err != nil {
			return fmt.Errorf("starting the dev server: %w", err)
		}
		defer srv.Stop()
		c = srv.Client()
	} else {
		clientOpts.HostPort, clientOpts.Namespace = cfg.address, cfg.namespace
		var err error
		if c, err = client.DialContext(ctx, clientOpts); err != nil {
			return fmt.Errorf("connecting to %s: %w", cfg.address, err)
		}
		defer c.Close()
	}
	switch cfg.command {
	case "list":
		return list(ctx, c, cfg.workflowID, stdout)
	case "approve":
		return approvals.Approve(ctx, c, cfg.workflowID, cfg.decision)
	case "deny":
		return approvals.Deny(ctx, c, cfg.workflowID, cfg.decision)
	}
	return trip(ctx, c, stdout)
}

func list(ctx context.Context, c client.Client, workflowID string, stdout io.Writer) error {
	pending, err := approvals.List(ctx, c, workflowID)
	if err != nil {
		return err
	}
	for _, p := range pending {
		fmt.Fprintf(stdout, "%s  %s  digest %s  until %s\n", p.Call, p.Summary, p.Digest, p.Deadline.UTC().Format(time.RFC3339))
	}
	return nil
}

// trip runs the whole story: a worker, the agent, and the person who
// approves the first seat and denies the second.
func trip(ctx context.Context, c client.Client, stdout io.Writer) error {
	plugin, err := interceptors.NewPlugin(KitOptions())
	if err != nil {
		return err
	}
	w := worker.New(c, TaskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(Trip)
	w.RegisterActivity(BookSeat)
	if err := w.Start(); err != nil {
		return fmt.Errorf("starting the worker: %w", err)
	}
	defer w.Stop()

	seats := []Seat{{"LH454", "12A"}, {"LH454", "12B"}}
	id := fmt.Sprintf("trip-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, Trip, seats)
	if err != nil {
		return fmt.Errorf("starting the agent: %w", err)
	}
	fmt.Fprintf(stdout, "agent %s asks to book %d seats\n", id, len(seats))
	var pending []approvals.Pending
	for len(pending) < len(seats) {
		if pending, err = approvals.List(ctx, c, id); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	fmt.Fprintln(stdout, "pending approvals:")
	if err := list(ctx, c, id, stdout); err != nil {
		return err
	}
	// The approver checks that the first pending call is the seat it means
	// to approve: an approval names the call's argument digest.
	want, err := approvals.Digest(seats[0])
	if err != nil {
		return err
	}
	for _, p := range pending {
		d := approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}
		if p.Digest == want {
			fmt.Fprintf(stdout, "ana approves %s\n", p.Call)
			err = approvals.Approve(ctx, c, id, d)
		} else {
			d.Reason = "one seat is enough"
			fmt.Fprintf(stdout, "ana denies %s: %s\n", p.Call, d.Reason)
			err = approvals.Deny(ctx, c, id, d)
		}
		if err != nil {
			return err
		}
	}
	var out []string
	if err := run.Get(ctx, &out); err != nil {
		return fmt.Errorf("the agent: %w", err)
	}
	for _, line := range out {
		fmt.Fprintln(stdout, line)
	}
	return nil
}
