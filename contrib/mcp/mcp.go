package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// IdempotencyKeyMeta is the _meta key under which a tool call carries the
// call's idempotency key (temporaladk.ActivityCall.IdempotencyKey) to the MCP server, when
// it has one: every attempt of one call sends the same key, so a server that
// deduplicates on it lands a second attempt on the first one's result.
const IdempotencyKeyMeta = "io.temporaladk/idempotency-key"

// Options configure Tools.
type Options struct {
	// Server names the MCP server. It prefixes the activity types
	// ("mcp.<Server>.<tool>", "mcp.<Server>.ListTools") and is named in
	// errors. Required; no dots or whitespace.
	Server string
	// Transport returns a new transport to the server, for each session:
	// &mcp.CommandTransport{...}, &mcp.StreamableClientTransport{...}, or
	// one end of mcp.NewInMemoryTransports. Required.
	Transport func(ctx context.Context) (sdk.Transport, error)
	// Timeout is the timeout every tool declares: it becomes the activity's
	// StartToClose and the heartbeat window is derived from it. If not set,
	// the TOOL policy's StartToClose. Must not be negative.
	Timeout time.Duration
	// Timeouts overrides Timeout for the tools it names.
	Timeouts map[string]time.Duration
	// KeyFields names, per tool, the argument fields (JSON names, "a.b" for
	// nested ones) that identify one logical call: every call of such a tool
	// carries an idempotency key derived from them, and an effectful tool
	// then gets the policy's attempts. Each must be a property of the tool's
	// input schema.
	KeyFields map[string][]string
	// Client is the client's name and version sent to the server. If not
	// set, temporaladk's.
	Client *sdk.Implementation
}

// Tool is one tool of the server, as ListTools returns it to a workflow.
type Tool struct {
	// Name is the tool's name on the server.
	Name string `json:"name"`
	// ActivityType is the activity that calls it.
	ActivityType string `json:"activity_type"`
	Description  string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of its arguments.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// Idempotency is what its annotations say (see IdempotencyOf).
	Idempotency string `json:"idempotency"`
}

// Content is one part of a tool's result.
type Content struct {
	// Type is "text", "image", "audio", "resource_link" or "resource".
	Type string `json:"type"`
	// Text is a text part's text.
	Text string `json:"text,omitempty"`
	// Data is a non-text part as the server sent it (JSON).
	Data json.RawMessage `json:"data,omitempty"`
}

// Result is a tool's successful result.
type Result struct {
	Content    []Content       `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// Tools serves one MCP server's tools as activities. Build one with New;
// Close it when the worker stops.
type Tools struct {
	server    string
	transport func(ctx context.Context) (sdk.Transport, error)
	client    *sdk.Client
	tools     map[string]Tool
	decls     map[string]temporaladk.Declaration

	mu      sync.Mutex
	session *sdk.ClientSession
}

const defaultClientName = "temporaladk"

// New checks opts, connects to the server and lists its tools once, at
// worker start and never on a workflow's path, to declare each tool's
// activity with the idempotency its annotations give. Bad options are an
// error naming the field; a server that cannot be reached is an error too.
func New(ctx context.Context, opts Options) (*Tools, error) {
	switch {
	case opts.Server == "":
		return nil, errors.New("mcp: Options.Server is empty: it names the server in activity types and errors")
	case strings.ContainsAny(opts.Server, ". \t\n"):
		return nil, fmt.Errorf("mcp: Options.Server %q holds a dot or whitespace", opts.Server)
	case opts.Transport == nil:
		return nil, errors.New("mcp: Options.Transport is nil: it opens a session with the server")
	case opts.Timeout < 0:
		return nil, fmt.Errorf("mcp: Options.Timeout is %v: it must not be negative (zero uses the TOOL policy)", opts.Timeout)
	}
	for name, d := range opts.Timeouts {
		if d <= 0 {
			return nil, fmt.Errorf("mcp: Options.Timeouts[%q] is %v: it must be greater than zero", name, d)
		}
	}
	impl := opts.Client
	if impl == nil {
		impl = &sdk.Implementation{Name: defaultClientName, Version: "v0"}
	}
	t := &Tools{server: opts.Server, transport: opts.Transport, client: sdk.NewClient(impl, nil)}
	listed, err := t.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp: listing the tools of %q: %w", opts.Server, err)
	}
	t.tools = make(map[string]Tool, len(listed))
	t.decls = make(map[string]temporaladk.Declaration, len(listed)+1)
	for _, tool := range listed {
		t.tools[tool.Name] = tool
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Timeouts)) {
		if _, ok := t.tools[name]; !ok {
			return nil, fmt.Errorf("mcp: Options.Timeouts names %q, which server %q does not have", name, opts.Server)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(opts.KeyFields)) {
		if _, ok := t.tools[name]; !ok {
			return nil, fmt.Errorf("mcp: Options.KeyFields names %q, which server %q does not have", name, opts.Server)
		}
	}
	for name, tool := range t.tools {
		var idem temporaladk.Idempotency // an unknown name stays Undeclared
		_ = idem.UnmarshalText([]byte(tool.Idempotency))
		timeout := opts.Timeout
		if d, ok := opts.Timeouts[name]; ok {
			timeout = d
		}
		keyFields := slices.Clone(opts.KeyFields[name])
		example := schemaExample(tool.InputSchema)
		if err := (temporaladk.Declaration{KeyFields: keyFields, Input: example}).Validate(tool.ActivityType); err != nil {
			return nil, fmt.Errorf("mcp: Options.KeyFields[%q]: %v", name, err)
		}
		t.decls[tool.ActivityType] = declaration(temporaladk.Tool, idem, timeout, keyFields, example)
	}
	// Listing is a read of the server's catalogue: RETRIEVAL's attempts.
	t.decls[ListActivity(opts.Server)] = declaration(temporaladk.Retrieval, temporaladk.ReadOnly, 0, nil, nil)
	return t, nil
}

// declaration is the kit's declaration of one activity. It is the one place
// that speaks temporaladk.Declaration.
func declaration(class temporaladk.Class, idem temporaladk.Idempotency, timeout time.Duration, keyFields []string, example any) temporaladk.Declaration {
	return temporaladk.Declaration{Class: class, Idempotency: idem, Timeout: timeout, KeyFields: keyFields, Input: example}
}

// schemaExample is a value with the properties of an object schema, nested
// ones too, for checking key fields against; nil when the schema declares no
// properties.
func schemaExample(schema json.RawMessage) any {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || s.Properties == nil {
		return nil
	}
	out := make(map[string]any, len(s.Properties))
	for name, sub := range s.Properties {
		out[name] = schemaExample(sub)
	}
	return out
}

// ToolActivity is the activity type of a tool of server.
func ToolActivity(server, tool string) string { return "mcp." + server + "." + tool }

// ListActivity is the activity type that lists server's tools.
func ListActivity(server string) string { return "mcp." + server + ".ListTools" }

// Tools returns the tools listed when t was built, by name.
func (t *Tools) Tools() []Tool {
	out := make([]Tool, 0, len(t.tools))
	for _, name := range slices.Sorted(maps.Keys(t.tools)) {
		out = append(out, t.tools[name])
	}
	return out
}

// Declare adds to opts the declaration of every tool's activity (class TOOL,
// the idempotency of its annotations, its timeout and key fields) and of
// the ListTools activity (RETRIEVAL, READ_ONLY). It fails when opts already declares
// one of them.
func (t *Tools) Declare(opts *interceptors.Options) error {
	if opts == nil {
		return errors.New("mcp: Declare: opts is nil")
	}
	for _, name := range slices.Sorted(maps.Keys(t.decls)) {
		if _, ok := opts.Activities[name]; ok {
			return fmt.Errorf("mcp: Declare: Options.Activities[%q] is already declared", name)
		}
	}
	if opts.Activities == nil {
		opts.Activities = make(map[string]temporaladk.Declaration, len(t.decls))
	}
	for name, d := range t.decls {
		d.KeyFields = slices.Clone(d.KeyFields)
		opts.Activities[name] = d
	}
	return nil
}

// Register registers the ListTools activity and one activity per tool on r.
func (t *Tools) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(t.ListTools, activity.RegisterOptions{Name: ListActivity(t.server)})
	for name, tool := range t.tools {
		r.RegisterActivityWithOptions(t.caller(name), activity.RegisterOptions{Name: tool.ActivityType})
	}
}

// Close ends the session with the server, if one is open.
func (t *Tools) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == nil {
		return nil
	}
	err := t.session.Close()
	t.session = nil
	return err
}

// ListTools is the activity that lists the server's tools, so that a
// workflow learns them from its history and a replay never asks the server.
func (t *Tools) ListTools(ctx context.Context) ([]Tool, error) {
	return t.list(ctx)
}

func (t *Tools) list(ctx context.Context) ([]Tool, error) {
	cs, err := t.sessionFor(ctx)
	if err != nil {
		return nil, err
	}
	var out []Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, t.failure(cs, "tools/list", err)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		out = append(out, Tool{
			Name:         tool.Name,
			ActivityType: ToolActivity(t.server, tool.Name),
			Description:  tool.Description,
			InputSchema:  schema,
			Idempotency:  IdempotencyOf(tool.Annotations).String(),
		})
	}
	return out, nil
}

// IdempotencyOf is what a tool's annotations say about repeating it:
// readOnlyHint is READ_ONLY; idempotentHint is IDEMPOTENT; anything else,
// destructive, merely additive, or no annotations at all (MCP's defaults
// are destructive and not idempotent), is EFFECTFUL, so the tool gets one
// attempt when called without an idempotency key, and with one the
// attempts its retry policy gives (the TOOL policy's, one by default).
func IdempotencyOf(a *sdk.ToolAnnotations) temporaladk.Idempotency {
	switch {
	case a == nil:
		return temporaladk.Effectful
	case a.ReadOnlyHint:
		return temporaladk.ReadOnly
	case a.IdempotentHint:
		return temporaladk.Idempotent
	}
	return temporaladk.Effectful
}

// caller is the activity that calls one tool with its arguments (a JSON
// object).
func (t *Tools) caller(name string) func(ctx context.Context, args map[string]any) (Result, error) {
	return func(ctx context.Context, args map[string]any) (Result, error) {
		return t.Call(ctx, name, args)
	}
}

// Call calls a tool, for activities of your own. The call's idempotency key,
// when it has one, goes to the server under _meta[IdempotencyKeyMeta].
//
// Failures are the kit's errors: a result with isError is a transient
// *temporaladk.ToolFailureError (retried as the tool's idempotency allows:
// an effectful tool without a key gets one attempt); a JSON-RPC error of the
// server (unknown tool, invalid arguments) is a permanent one; a lost
// connection or a server that cannot be reached is a transient one, and the
// next attempt opens a new session.
func (t *Tools) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	cs, err := t.sessionFor(ctx)
	if err != nil {
		return Result{}, err
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if call, _ := temporaladk.ActivityCallFrom(ctx); call.IdempotencyKey != "" {
		params.Meta = sdk.Meta{IdempotencyKeyMeta: call.IdempotencyKey}
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return Result{}, t.failure(cs, name, err)
	}
	out := Result{Content: contents(res.Content)}
	if res.IsError {
		return Result{}, &temporaladk.ToolFailureError{Tool: name, Transient: true, Reason: "the tool reported an error: " + errorText(out.Content)}
	}
	if res.StructuredContent != nil {
		if out.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			return Result{}, &temporaladk.SchemaViolationError{Schema: name, Path: "structuredContent", Reason: err.Error()}
		}
	}
	return out, nil
}

// sessionFor returns the open session, or opens one.
func (t *Tools) sessionFor(ctx context.Context) (*sdk.ClientSession, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session != nil {
		return t.session, nil
	}
	transport, err := t.transport(ctx)
	if err == nil {
		t.session, err = t.client.Connect(ctx, transport, nil)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &temporaladk.ToolFailureError{Tool: t.server, Transient: true, Reason: "cannot reach the MCP server", Cause: err}
	}
	return t.session, nil
}

// failure turns an error of a session call into the kit's: a JSON-RPC error
// the server answered with is permanent (the same call fails the same way);
// anything else is the transport failing, transient, and the session is
// dropped so that the next attempt opens a new one.
func (t *Tools) failure(cs *sdk.ClientSession, name string, err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && !closing(wire.Code) {
		return &temporaladk.ToolFailureError{Tool: name, Reason: fmt.Sprintf("the MCP server refused the call (JSON-RPC error %d)", wire.Code), Cause: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	t.mu.Lock()
	if t.session == cs {
		t.session = nil
		_ = cs.Close()
	}
	t.mu.Unlock()
	return &temporaladk.ToolFailureError{Tool: name, Transient: true, Reason: "the connection to the MCP server failed", Cause: err}
}

// closing reports whether a JSON-RPC code is one of the SDK's for a
// connection that is shutting down: a transport failure, not an answer.
func closing(code int64) bool { return code == -32003 || code == -32004 }

func contents(in []sdk.Content) []Content {
	out := make([]Content, 0, len(in))
	for _, c := range in {
		switch c := c.(type) {
		case *sdk.TextContent:
			out = append(out, Content{Type: "text", Text: c.Text})
		default:
			data, _ := json.Marshal(c)
			var kind struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(data, &kind)
			out = append(out, Content{Type: kind.Type, Data: data})
		}
	}
	return out
}

// maxReason is how much of a tool's error text its failure carries.
const maxReason = 200

func errorText(content []Content) string {
	var b strings.Builder
	for _, c := range content {
		if c.Type == "text" {
			if b.Len() > 0 {
				b.WriteString(" ")
			}
			b.WriteString(c.Text)
		}
	}
	s := b.String()
	if s == "" {
		return "(no text)"
	}
	if len(s) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
