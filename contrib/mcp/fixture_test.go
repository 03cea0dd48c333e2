package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/temporaladk/adk-go/contrib/mcp"
)

// fixture is a go-sdk MCP server, reached through in-memory transports, with
// a tool annotated each way. Each tool fails (isError) while the calls made
// with an argument id are at most the argument fail, then succeeds.
type fixture struct {
	server *sdk.Server
	lists  atomic.Int64

	mu       sync.Mutex
	calls    map[string]int      // by tool and id
	keys     map[string][]string // idempotency keys seen, by tool
	sessions []*sdk.ServerSession
}

type toolArgs struct {
	ID   string `json:"id" jsonschema:"the call's id"`
	Fail int    `json:"fail,omitempty" jsonschema:"fail this many calls with this id"`
}

type toolOut struct {
	Done string `json:"done"`
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// toolAnnotations are the fixture's tools, one per way of annotating.
var toolAnnotations = map[string]*sdk.ToolAnnotations{
	"lookup": {ReadOnlyHint: true},
	"upsert": {IdempotentHint: true, DestructiveHint: no()},
	"charge": {DestructiveHint: yes()},
	"append": {DestructiveHint: no()},
	"note":   nil,
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{calls: map[string]int{}, keys: map[string][]string{}}
	f.server = sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "v1"}, nil)
	for name, ann := range toolAnnotations {
		sdk.AddTool(f.server, &sdk.Tool{Name: name, Description: "the " + name + " tool", Annotations: ann},
			func(ctx context.Context, req *sdk.CallToolRequest, in toolArgs) (*sdk.CallToolResult, toolOut, error) {
				f.mu.Lock()
				f.calls[name+"/"+in.ID]++
				n := f.calls[name+"/"+in.ID]
				if key, ok := req.Params.Meta[mcp.IdempotencyKeyMeta].(string); ok {
					f.keys[name] = append(f.keys[name], key)
				}
				f.mu.Unlock()
				if n <= in.Fail {
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%s is busy (call %d)", name, n)}}}, toolOut{}, nil
				}
				return nil, toolOut{Done: fmt.Sprintf("%s %s", name, in.ID)}, nil
			})
	}
	f.server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				f.lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return f
}

// transport connects a new in-memory session to the fixture.
func (f *fixture) transport(ctx context.Context) (sdk.Transport, error) {
	client, server := sdk.NewInMemoryTransports()
	ss, err := f.server.Connect(context.Background(), server, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, ss)
	f.mu.Unlock()
	return client, nil
}

// dropSessions closes the server's end of every session, as a server that
// restarts does.
func (f *fixture) dropSessions() {
	f.mu.Lock()
	sessions := f.sessions
	f.sessions = nil
	f.mu.Unlock()
	for _, ss := range sessions {
		_ = ss.Close()
	}
}

func (f *fixture) callsOf(tool, id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[tool+"/"+id]
}

func (f *fixture) keysOf(tool string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys[tool]...)
}
