package agent

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/samples/internal/chat"
)

// What a program built on this package can plug in without the package
// depending on it: a model served by a provider's SDK (contrib/openai,
// contrib/anthropic) and tools served by an MCP server (contrib/mcp). The
// core module does not depend on those SDKs; samples/providers, a module of
// its own, does.

// ModelFunc serves the sample's MODEL calls in place of its own
// OpenAI-compatible client: it is registered as the Chat activity. A real
// provider ignores the stand-in's faults, so none are asked for.
type ModelFunc func(ctx context.Context, req ChatRequest) (chat.Reply, error)

// ToolSource is a set of tool activities from outside the sample: Declare
// adds their declarations to the kit's options, Register registers them on
// the worker. contrib/mcp's *mcp.Tools is one.
type ToolSource interface {
	Declare(opts *interceptors.Options) error
	Register(r worker.ActivityRegistry)
}

// ExternalTool is a tool the run lists and calls through a ToolSource, after
// the retrieval, putting its text into the model's context.
type ExternalTool struct {
	// ListActivity lists the source's tools (contrib/mcp's ListActivity).
	ListActivity string `json:"list_activity"`
	// Tool is the name of the tool to call, as listed.
	Tool string `json:"tool"`
	// Args are its arguments.
	Args map[string]any `json:"args,omitempty"`
}

// listedTool is what ListActivity returns, in the fields the workflow reads
// (contrib/mcp's Tool).
type listedTool struct {
	Name         string `json:"name"`
	ActivityType string `json:"activity_type"`
	Idempotency  string `json:"idempotency"`
}

// toolResult is a tool's result, in the fields the workflow reads
// (contrib/mcp's Result).
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// externalToolStep lists the tools (in an activity, so that a replay reads
// the list from history) and calls the one asked for. The classes and the
// idempotency come from the source's declarations: no tag.
func externalToolStep(ctx workflow.Context, in ExternalTool) (string, error) {
	var listed []listedTool
	if err := workflow.ExecuteActivity(ctx, in.ListActivity).Get(ctx, &listed); err != nil {
		return "", fmt.Errorf("agent: listing the external tools: %w", err)
	}
	for _, tool := range listed {
		if tool.Name != in.Tool {
			continue
		}
		var res toolResult
		if err := workflow.ExecuteActivity(ctx, tool.ActivityType, in.Args).Get(ctx, &res); err != nil {
			return "", fmt.Errorf("agent: external tool %s: %w", in.Tool, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			text.WriteString(c.Text)
		}
		return text.String(), nil
	}
	return "", fmt.Errorf("agent: the external tools have no %q", in.Tool)
}

// declareExtensions adds the declarations of what cfg plugs in.
func declareExtensions(cfg Config, opts *interceptors.Options) error {
	if cfg.Tools == nil {
		return nil
	}
	return cfg.Tools.Declare(opts)
}

// registerExtensions registers what cfg plugs in, after the Activities.
func registerExtensions(cfg Config, w worker.ActivityRegistry) {
	if cfg.Tools != nil {
		cfg.Tools.Register(w)
	}
	if cfg.Provider != nil {
		// Replaces the Activities' own Chat, registered before.
		w.RegisterActivityWithOptions(cfg.Provider, activity.RegisterOptions{Name: "Chat", DisableAlreadyRegisteredCheck: true})
	}
}
