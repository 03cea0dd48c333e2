// Command live serves the live page (package live) of an agent's run: a
// person opens the URL it prints and watches the agent look each question
// up and the model's reply appear token by token, marked partial until the
// call ends on what history recorded. The model is a stand-in activity that
// streams through providers.ReportText at -pace a token; its first attempt
// loses its stream mid-way, so the page shows that attempt's text dropped
// and the retry's in its place. The agent starts when the page opens.
//
//	go run ./samples/live
//	go run ./samples/live -listen 127.0.0.1:8080 -pace 120ms
//	go run ./samples/live -address localhost:7233
//
// The worker reports to a live.NewObserver on a live.NewMemoryHub, given
// to the kit in interceptors.Options.Observer; the same process serves the
// hub with live.NewHandler on /live and the page with live.NewPage on /.
// Who may watch which workflow is the application's decision (the
// handler's Authorize hook): the sample allows only the workflow it
// started, and refuses any other stream with 403.
package main

import (
	"context"
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
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TaskQueue is the sample's task queue.
const TaskQueue = "temporaladk-live-sample"

// Questions are what the agent is asked, one MODEL call each.
var Questions = []string{"Is there a window seat on LH454 tomorrow?", "And what does it cost?"}

// Prompt is what the model is asked: the question, the turn and what the
// lookup found.
type Prompt struct {
	Turn     int    `json:"turn"`
	Question string `json:"question"`
	Docs     int    `json:"docs"`
}

// Agent answers each question in turn: it looks the question up, then asks
// the model, whose reply streams to the page. Its calls are under a budget
// of attempts, which the page shows as meters.
func Agent(ctx workflow.Context, questions []string) ([]string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "agent", Attempts: 20})
	if err != nil {
		return nil, err
	}
	var replies []string
	for i, q := range questions {
		var docs int
		if err := workflow.ExecuteActivity(ctx, "Lookup", q).Get(ctx, &docs); err != nil {
			return nil, err
		}
		var reply string
		if err := workflow.ExecuteActivity(ctx, "Chat", Prompt{Turn: i + 1, Question: q, Docs: docs}).Get(ctx, &reply); err != nil {
			return nil, err
		}
		replies = append(replies, reply)
	}
	return replies, nil
}

// Lookup stands in for retrieval.
func Lookup(_ context.Context, question string) (int, error) {
	return len(strings.Fields(question)), nil
}

// Model stands in for a streaming model: it reports its reply a token at a
// time, Pace apart, as a provider reports the deltas it reads.
type Model struct{ Pace time.Duration }

// Chat streams the reply to p. The first attempt of the first turn loses
// its stream after a few tokens, as a connection to a provider does: the
// kit retries it, and the page drops that attempt's text.
func (m Model) Chat(ctx context.Context, p Prompt) (string, error) {
	reply := Reply(p)
	tokens := strings.SplitAfter(reply, " ")
	dies := p.Turn == 1 && activity.GetInfo(ctx).Attempt == 1
	if dies {
		tokens = strings.SplitAfter("Let me check the seat map for", " ")
	}
	for _, tok := range tokens {
		select {
		case <-time.After(m.Pace):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if _, err := providers.ReportText(ctx, providers.Text, tok); err != nil {
			return "", err
		}
	}
	if dies {
		return "", providers.DroppedStream("stand-in", int64(len(tokens)))
	}
	return reply, nil
}

// Reply is the stand-in model's reply to p.
func Reply(p Prompt) string {
	switch p.Turn {
	case 1:
		return fmt.Sprintf("I looked through %d documents. Yes: seat 12A on LH454 tomorrow is a window seat, and it is free. "+
			"Shall I hold it for you while you decide?", p.Docs)
	default:
		return fmt.Sprintf("Seat 12A costs €249 & includes one checked bag <23 kg>. (%d documents read for turn %d.)", p.Docs, p.Turn)
	}
}

// KitOptions declare the agent's activities, and give the kit observer,
// the live stream's (nil for none).
func KitOptions(observer observe.Observer) interceptors.Options {
	return interceptors.Options{Observer: observer, Activities: map[string]temporaladk.Declaration{
		"Chat":   {Class: temporaladk.Model},
		"Lookup": {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly},
	}}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	address, namespace string
	listen             string
	pace               time.Duration
}

// run is main with its outputs given, for the tests.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "live: %v\nRun 'go run ./samples/live -h' for the flags.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "live: %v\n", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&cfg.namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:8080", "the `host:port` the page listens on")
	fs.DurationVar(&cfg.pace, "pace", 80*time.Millisecond, "the stand-in model's pause before each token")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.pace < 0:
		return cfg, fmt.Errorf("-pace is %v: it must not be negative", cfg.pace)
	case strings.TrimSpace(cfg.namespace) == "":
		return cfg, errors.New("-namespace is empty")
	}
	return cfg, nil
}

// serve runs the worker, serves the page and its stream, starts the agent
// when the page first opens its stream, and serves until ctx ends.
func serve(ctx context.Context, cfg config, stdout io.Writer) error {
	clientOpts := client.Options{Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), Identity: "temporaladk-live-sample"}
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

	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	if err != nil {
		return err
	}
	obs, err := live.NewObserver(hub, live.Options{})
	if err != nil {
		return err
	}
	defer obs.Close()
	kit, err := interceptors.NewPlugin(KitOptions(obs))
	if err != nil {
		return err
	}
	w := worker.New(c, TaskQueue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(Agent)
	w.RegisterActivity(Lookup)
	w.RegisterActivityWithOptions(Model{Pace: cfg.pace}.Chat, activity.RegisterOptions{Name: "Chat"})
	if err := w.Start(); err != nil {
		return fmt.Errorf("starting the worker: %w", err)
	}
	defer w.Stop()

	id := fmt.Sprintf("live-agent-%d", time.Now().UnixNano())
	mux, opened, err := Mux(hub, id)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "live page on http://%s/?stream=%s (the agent starts when it opens; Ctrl-C ends)\n", ln.Addr(), id)

	// agent returns when the run ends, or ctx does.
	if err = agent(ctx, c, id, opened, stdout); err == nil {
		<-ctx.Done()
	}
	_ = srv.Close()
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		return errors.Join(err, serr)
	}
	return err
}

// agent starts the agent once opened is closed, and prints its replies as
// history recorded them.
func agent(ctx context.Context, c client.Client, id string, opened <-chan struct{}, stdout io.Writer) error {
	select {
	case <-opened:
	case <-ctx.Done():
		return nil
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, Agent, Questions)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("starting the agent: %w", err)
	}
	fmt.Fprintf(stdout, "agent %s started\n", id)
	var replies []string
	if err := run.Get(ctx, &replies); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("the agent: %w", err)
	}
	fmt.Fprintf(stdout, "agent %s done; history recorded %d replies, which the page ends on:\n", id, len(replies))
	for _, r := range replies {
		fmt.Fprintf(stdout, "  %q\n", r)
	}
	return nil
}

// Mux serves the page on / and the stream of hub on /live. Its Authorize
// hook lets a request watch the workflow id only: a real application
// checks who the person is and which workflows they may watch. opened is
// closed when a request first opens that stream.
func Mux(hub live.Hub, id string) (mux *http.ServeMux, opened <-chan struct{}, err error) {
	events, err := live.NewHandler(hub, live.HandlerOptions{Authorize: func(_ *http.Request, stream string) error {
		if stream != id {
			return fmt.Errorf("the sample shows only its workflow %s", id)
		}
		return nil
	}})
	if err != nil {
		return nil, nil, err
	}
	page, err := live.NewPage(live.PageOptions{Events: "/live", Title: "Agent, live"})
	if err != nil {
		return nil, nil, err
	}
	first := make(chan struct{})
	var once sync.Once
	mux = http.NewServeMux()
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /live", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("stream") == id {
			once.Do(func() { close(first) })
		}
		events.ServeHTTP(w, r)
	}))
	return mux, first, nil
}
