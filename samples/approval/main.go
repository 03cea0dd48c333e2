// Command approval runs an agent whose effectful tool BookSeat needs a
// signed approval by ana or bo: the agent asks to book two seats, the
// command lists the pending approvals as a web handler would
// (approvals.List, with only the workflow ID), approves the first and
// denies the second, each signed with the person's key, and prints what
// ran.
//
//	go run ./samples/approval
//	go run ./samples/approval -address localhost:7233
//
// serve runs the same worker and three trips, and serves the approval
// inbox (package approvals/inbox) on -listen, signed in as -as:
//
//	go run ./samples/approval serve -listen 127.0.0.1:8080 -as ana
//
// Against your own server, list, approve and deny are commands of their
// own, for a workflow another process runs:
//
//	go run ./samples/approval -address localhost:7233 list -workflow trip-1
//	go run ./samples/approval -address localhost:7233 approve -workflow trip-1 -call approval-1 -digest <digest> -by ana
//
// The keys are the sample's own, derived from each name (DemoSigner): a
// real deployment keeps each person's private key where only the inbox or
// that person's client reads it, and gives the workers the public keys.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
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
	"github.com/temporaladk/adk-go/approvals/inbox"
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
		// The kit makes a denial in workflow code, so errors.As finds it
		// as it is; a kit error the tool returned would cross as an
		// ApplicationError and need temporaladk.FromApplicationError.
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

// Approvers are the people who may approve a booking: one of them
// suffices.
var Approvers = []string{"ana", "bo"}

// DemoSigner is principal's signer with the sample's key for that name,
// derived from it. Only a sample derives keys from names.
func DemoSigner(principal string) (*approvals.Signer, error) {
	seed := sha256.Sum256([]byte("temporaladk approval sample key " + principal))
	return approvals.NewSigner(principal+"-demo", principal, ed25519.NewKeyFromSeed(seed[:]))
}

// KitOptions declare BookSeat an effectful tool that needs one signed
// approval by ana or bo, waiting an hour at most, with the public keys of
// both and the search attribute the inbox finds waiting runs by.
func KitOptions() (interceptors.Options, error) {
	var keys []approvals.PublicKey
	for _, p := range Approvers {
		s, err := DemoSigner(p)
		if err != nil {
			return interceptors.Options{}, err
		}
		keys = append(keys, s.PublicKey())
	}
	verifier, err := approvals.NewEd25519Verifier(keys...)
	if err != nil {
		return interceptors.Options{}, err
	}
	who, err := verifier.Approvers(1) // ana or bo: the principals of the keys
	if err != nil {
		return interceptors.Options{}, err
	}
	return interceptors.Options{
		Activities: map[string]temporaladk.Declaration{
			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true, ApprovalTimeout: time.Hour},
		},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": who}, Verifier: verifier, SearchAttribute: true},
	}, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	address, namespace string
	command            string
	workflowID         string
	decision           approvals.Decision
	listen, as         string
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
	if cfg.command == "serve" {
		sub := flag.NewFlagSet("serve", flag.ContinueOnError)
		sub.SetOutput(stderr)
		sub.StringVar(&cfg.listen, "listen", "127.0.0.1:8080", "the `host:port` the inbox listens on")
		sub.StringVar(&cfg.as, "as", "ana", "who is signed in when no X-Forwarded-User header says (a sample's stand-in for an authenticating proxy)")
		if err := sub.Parse(fs.Args()[1:]); err != nil {
			return cfg, err
		}
		if sub.NArg() > 0 {
			return cfg, fmt.Errorf("unexpected argument %q", sub.Arg(0))
		}
		return cfg, nil
	}
	switch cfg.command {
	case "list", "approve", "deny":
	default:
		return cfg, fmt.Errorf("unknown command %q (want run, serve, list, approve or deny)", cfg.command)
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
		srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ClientOptions: clientOpts,
			ExtraArgs: []string{"--search-attribute", approvals.SearchAttribute + "=Bool"}})
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
		if cfg.command == "run" || cfg.command == "serve" {
			if err := approvals.RegisterSearchAttribute(ctx, c, cfg.namespace); err != nil {
				return err
			}
		}
	}
	switch cfg.command {
	case "list":
		return list(ctx, c, cfg.workflowID, stdout)
	case "approve", "deny":
		return decideFromFlags(ctx, c, cfg)
	case "serve":
		return serve(ctx, c, cfg, stdout)
	}
	return trip(ctx, c, stdout)
}

// decideFromFlags signs the decision the flags give with the sample's key
// of -by, for the call -call with digest -digest, as it waits now.
func decideFromFlags(ctx context.Context, c client.Client, cfg config) error {
	s, err := DemoSigner(cfg.decision.By)
	if err != nil {
		return err
	}
	pending, err := approvals.List(ctx, c, cfg.workflowID)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if p.Call != cfg.decision.Call || p.Digest != cfg.decision.Digest {
			continue
		}
		var req approvals.Request
		if cfg.command == "approve" {
			req, err = s.Approve(p, cfg.decision.Reason, time.Now().Add(10*time.Minute))
		} else {
			req, err = s.Deny(p, cfg.decision.Reason, time.Now().Add(10*time.Minute))
		}
		if err != nil {
			return err
		}
		return approvals.Decide(ctx, c, cfg.workflowID, req)
	}
	return fmt.Errorf("workflow %s has no call %s with digest %s waiting", cfg.workflowID, cfg.decision.Call, cfg.decision.Digest)
}

// startWorker runs the kit's worker of the sample on c.
func startWorker(c client.Client) (worker.Worker, error) {
	opts, err := KitOptions()
	if err != nil {
		return nil, err
	}
	plugin, err := interceptors.NewPlugin(opts)
	if err != nil {
		return nil, err
	}
	w := worker.New(c, TaskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(Trip)
	w.RegisterActivity(BookSeat)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("starting the worker: %w", err)
	}
	return w, nil
}

// Inbox is the sample's approval inbox: it signs with the sample's keys of
// ana and bo, and the person signed in is the X-Forwarded-User header an
// authenticating proxy sets, else as.
func Inbox(c client.Client, as string) (http.Handler, error) {
	var signers []*approvals.Signer
	for _, p := range Approvers {
		s, err := DemoSigner(p)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
	}
	return inbox.New(inbox.Options{Client: c, Signers: signers, Title: "Seats waiting for approval",
		Identity: func(r *http.Request) (string, error) {
			if u := r.Header.Get("X-Forwarded-User"); u != "" {
				return u, nil
			}
			return as, nil
		}})
}

// serve runs the worker and three trips, and serves the inbox until ctx
// ends.
func serve(ctx context.Context, c client.Client, cfg config, stdout io.Writer) error {
	w, err := startWorker(c)
	if err != nil {
		return err
	}
	defer w.Stop()
	for i, seats := range [][]Seat{{{"LH454", "12A"}}, {{"LH454", "12B"}, {"LH454", "12C"}}, {{"AF1", "3D"}}} {
		id := fmt.Sprintf("trip-%d-%d", i+1, time.Now().UnixNano())
		if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, Trip, seats); err != nil {
			return fmt.Errorf("starting trip %s: %w", id, err)
		}
		fmt.Fprintf(stdout, "trip %s asks to book %d seats\n", id, len(seats))
	}
	h, err := Inbox(c, cfg.as)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(stdout, "inbox on http://%s/ (signed in as %s unless X-Forwarded-User says); Ctrl-C ends\n", ln.Addr(), cfg.as)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func list(ctx context.Context, c client.Client, workflowID string, stdout io.Writer) error {
	pending, err := approvals.List(ctx, c, workflowID)
	if err != nil {
		return err
	}
	for _, p := range pending {
		args, err := json.Marshal(p.Args)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s  %s  args %s  digest %s  until %s  approvals %d of %d\n", p.Call, p.Summary, args, p.Digest, p.Deadline.UTC().Format(time.RFC3339), len(p.Approvals), p.Approvers.Required)
	}
	return nil
}

// trip runs the whole story: a worker, the agent, and the person who
// approves the first seat and denies the second.
func trip(ctx context.Context, c client.Client, stdout io.Writer) error {
	w, err := startWorker(c)
	if err != nil {
		return err
	}
	defer w.Stop()
	ana, err := DemoSigner("ana")
	if err != nil {
		return err
	}

	seats := []Seat{{"LH454", "12A"}, {"LH454", "12B"}}
	id := fmt.Sprintf("trip-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, Trip, seats)
	if err != nil {
		return fmt.Errorf("starting the agent: %w", err)
	}
	fmt.Fprintf(stdout, "agent %s asks to book %d seats\n", id, len(seats))
	pending, err := approvals.WaitPending(ctx, c, id, len(seats))
	if err != nil {
		return err
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
		// A signed decision is valid for ten minutes: the workflow compares
		// the expiry with its own time.
		expires := time.Now().Add(10 * time.Minute)
		var req approvals.Request
		if p.Digest == want {
			fmt.Fprintf(stdout, "ana approves %s, signed\n", p.Call)
			req, err = ana.Approve(p, "", expires)
		} else {
			reason := "one seat is enough"
			fmt.Fprintf(stdout, "ana denies %s, signed: %s\n", p.Call, reason)
			req, err = ana.Deny(p, reason, expires)
		}
		if err == nil {
			err = approvals.Decide(ctx, c, id, req)
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
