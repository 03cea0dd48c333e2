// Command providers runs the agent sample (samples/agent) with a real
// provider's model and an MCP server's tools: the MODEL calls go through the
// official OpenAI or Anthropic Go SDK (contrib/openai, contrib/anthropic),
// and the run calls a tool of an MCP server it starts in-process
// (contrib/mcp), declared to the kit from its annotations.
//
//	go run ./samples/providers                                  # the stand-in model, no network
//	go run ./samples/providers -provider openai                 # key in OPENAI_API_KEY
//	go run ./samples/providers -provider anthropic              # key in ANTHROPIC_API_KEY
//
// It is a module of its own, so that the core module (and samples/agent in
// it) does not depend on the provider SDKs. Exit status: 0 when the run
// showed everything it should, 1 when it failed, 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/temporaladk/adk-go/contrib/anthropic"
	"github.com/temporaladk/adk-go/contrib/mcp"
	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/temporaladk"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// options are the command line.
type options struct {
	provider, model, baseURL string
	address, namespace, data string
	mcp                      bool
	apiKey                   string
}

// defaultModels are the models used when -model is not given.
var defaultModels = map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5"}

// keyVariables are where each provider's key is read from.
var keyVariables = map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (options, error) {
	var o options
	fs := flag.NewFlagSet("providers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.provider, "provider", "standin", "the model provider: `standin` (the sample's stand-in, no network), openai or anthropic")
	fs.StringVar(&o.model, "model", "", "the `model` (default: gpt-4o-mini for openai, claude-sonnet-4-5 for anthropic)")
	fs.StringVar(&o.baseURL, "base-url", "", "the provider API's base `URL` (default: the SDK's)")
	fs.BoolVar(&o.mcp, "mcp", true, "start an MCP server in-process and call its baggage_rules tool")
	fs.StringVar(&o.address, "address", "", "an existing Temporal frontend `host:port` (default: start a dev server)")
	fs.StringVar(&o.namespace, "namespace", "default", "the `namespace` to use with -address")
	fs.StringVar(&o.data, "data", "", "the `directory` for the run's files (default: a new temporary directory)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: the sample takes flags only", fs.Arg(0))
	}
	switch o.provider {
	case "standin":
		if o.model != "" || o.baseURL != "" {
			return o, errors.New("-model and -base-url are for -provider openai or anthropic; the stand-in needs neither")
		}
	case "openai", "anthropic":
		if o.model == "" {
			o.model = defaultModels[o.provider]
		}
		if o.apiKey = getenv(keyVariables[o.provider]); o.apiKey == "" {
			return o, fmt.Errorf("-provider %s needs an API key in %s", o.provider, keyVariables[o.provider])
		}
	default:
		return o, fmt.Errorf("-provider %q is not one of standin, openai, anthropic", o.provider)
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	o, err := parseFlags(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "providers: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := runAgent(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

// runAgent runs the agent sample with the provider and tools o asks for.
func runAgent(ctx context.Context, o options, out, progress io.Writer) (*agent.Report, error) {
	cfg := agent.Config{Address: o.address, Namespace: o.namespace, DataDir: o.data}
	input := agent.DefaultInput()
	switch o.provider {
	case "openai":
		m, err := openai.New(openai.Options{APIKey: o.apiKey, BaseURL: o.baseURL, Model: o.model})
		if err != nil {
			return nil, err
		}
		cfg.Provider, cfg.ProviderName = modelFunc(func(ctx context.Context, msgs []chat.Message) (string, int64, int64, error) {
			res, err := m.Chat(ctx, openai.Request{Messages: convert[openai.Message](msgs)})
			return res.Text, res.Usage.OutputTokens, res.Chunks, err
		}), "openai "+o.model+" (contrib/openai)"
	case "anthropic":
		m, err := anthropic.New(anthropic.Options{APIKey: o.apiKey, BaseURL: o.baseURL, Model: o.model, MaxTokens: 1024})
		if err != nil {
			return nil, err
		}
		cfg.Provider, cfg.ProviderName = modelFunc(func(ctx context.Context, msgs []chat.Message) (string, int64, int64, error) {
			res, err := m.Message(ctx, anthropic.Request{Messages: convert[anthropic.Message](msgs)})
			return res.Text, res.Usage.OutputTokens, res.Chunks, err
		}), "anthropic "+o.model+" (contrib/anthropic)"
	}
	if o.mcp {
		tools, err := mcp.New(ctx, mcp.Options{Server: TravelServer, Transport: inProcess(newTravelServer()), Timeout: 10 * time.Second})
		if err != nil {
			return nil, err
		}
		defer tools.Close()
		fmt.Fprintf(progress, "MCP server %q in-process: %d tools, declared from their annotations\n", TravelServer, len(tools.Tools()))
		cfg.Tools = tools
		input.ExternalTool = &agent.ExternalTool{ListActivity: mcp.ListActivity(TravelServer), Tool: "baggage_rules", Args: map[string]any{"flight": input.Flights[0]}}
	}
	cfg.Input = &input
	return agent.Run(ctx, cfg, out, progress)
}

// modelFunc adapts a provider's call to the sample's Chat activity: the
// reply's counts come from the provider's stream and the kit's heartbeater.
func modelFunc(call func(ctx context.Context, msgs []chat.Message) (text string, tokens, chunks int64, err error)) agent.ModelFunc {
	return func(ctx context.Context, req agent.ChatRequest) (chat.Reply, error) {
		text, tokens, chunks, err := call(ctx, req.Messages)
		if err != nil {
			return chat.Reply{}, err
		}
		return chat.Reply{Text: text, Tokens: tokens, Chunks: chunks, Beats: temporaladk.HeartbeaterFrom(ctx).Beats()}, nil
	}
}

// convert turns the sample's messages into a provider module's.
func convert[M openai.Message | anthropic.Message](msgs []chat.Message) []M {
	out := make([]M, len(msgs))
	for i, m := range msgs {
		out[i] = M{Role: m.Role, Content: m.Content}
	}
	return out
}
