package mcp_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/mcp"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func newTools(t *testing.T, f *fixture, opts mcp.Options) *mcp.Tools {
	t.Helper()
	opts.Server = "fixture"
	opts.Transport = f.transport
	tools, err := mcp.New(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tools.Close() })
	return tools
}

func TestIdempotencyOfAnnotations(t *testing.T) {
	t.Parallel()
	want := map[string]temporaladk.Idempotency{
		"lookup": temporaladk.ReadOnly, "upsert": temporaladk.Idempotent,
		"charge": temporaladk.Effectful, "append": temporaladk.Effectful, "note": temporaladk.Effectful,
	}
	for name, ann := range toolAnnotations {
		assert.Equal(t, want[name], mcp.IdempotencyOf(ann), name)
	}
}

func TestNewDeclaresEachToolFromItsAnnotations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tools := newTools(t, f, mcp.Options{Timeout: 20 * time.Second, Timeouts: map[string]time.Duration{"charge": 45 * time.Second},
		KeyFields: map[string][]string{"charge": {"id"}}})
	assert.Equal(t, int64(1), f.lists.Load(), "listed once, at worker start")
	var names []string
	for _, tool := range tools.Tools() {
		names = append(names, tool.Name)
		assert.Equal(t, mcp.ToolActivity("fixture", tool.Name), tool.ActivityType)
		assert.Contains(t, string(tool.InputSchema), `"id"`, "the input schema travels with the tool")
	}
	assert.Equal(t, []string{"append", "charge", "lookup", "note", "upsert"}, names)

	var opts interceptors.Options
	require.NoError(t, tools.Declare(&opts))
	decl := func(tool string) temporaladk.Declaration {
		return opts.Activities[mcp.ToolActivity("fixture", tool)]
	}
	assert.Equal(t, temporaladk.ReadOnly, decl("lookup").Idempotency)
	assert.Equal(t, temporaladk.Idempotent, decl("upsert").Idempotency)
	assert.Equal(t, temporaladk.Effectful, decl("charge").Idempotency)
	assert.Equal(t, temporaladk.Effectful, decl("note").Idempotency)
	assert.Equal(t, temporaladk.Tool, decl("note").Class)
	assert.Equal(t, 20*time.Second, decl("lookup").Timeout)
	assert.Equal(t, 45*time.Second, decl("charge").Timeout)
	assert.Equal(t, []string{"id"}, decl("charge").KeyFields)
	assert.Equal(t, temporaladk.ReadOnly, opts.Activities[mcp.ListActivity("fixture")].Idempotency)
	assert.Equal(t, temporaladk.Retrieval, opts.Activities[mcp.ListActivity("fixture")].Class, "listing is a read")
	_, err := interceptors.NewPlugin(opts)
	require.NoError(t, err, "the kit accepts every declaration")
	require.ErrorContains(t, tools.Declare(&opts), "already declared")
	require.Error(t, tools.Declare(nil))
}

func TestCallMapsResultsAndFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tools := newTools(t, f, mcp.Options{})
	ctx := context.Background()

	res, err := tools.Call(ctx, "lookup", map[string]any{"id": "ok"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	assert.JSONEq(t, `{"done":"lookup ok"}`, string(res.Structured))

	_, err = tools.Call(ctx, "lookup", map[string]any{"id": "busy", "fail": 1})
	var tf *temporaladk.ToolFailureError
	require.ErrorAs(t, err, &tf)
	assert.True(t, tf.Retryable(), "isError is transient: the idempotency decides the attempts")
	assert.Contains(t, tf.Reason, "lookup is busy (call 1)")

	_, err = tools.Call(ctx, "nosuchtool", map[string]any{})
	require.ErrorAs(t, err, &tf)
	assert.False(t, tf.Retryable(), "a JSON-RPC error answer fails the same way again")
	assert.Contains(t, tf.Reason, "JSON-RPC error")

	keyed := testsuite.ActivityContext(ctx, temporaladk.ActivityCall{IdempotencyKey: "k-123"})
	_, err = tools.Call(keyed, "charge", map[string]any{"id": "c1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"k-123"}, f.keysOf("charge"), "the key reached the server in _meta")
}

func TestTransportFailureIsTransientAndReconnects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tools := newTools(t, f, mcp.Options{})
	ctx := context.Background()
	f.dropSessions()

	_, err := tools.Call(ctx, "lookup", map[string]any{"id": "a"})
	var tf *temporaladk.ToolFailureError
	require.ErrorAs(t, err, &tf)
	assert.True(t, tf.Retryable(), "a lost connection is worth another attempt")
	assert.Contains(t, tf.Reason, "connection")

	_, err = tools.Call(ctx, "lookup", map[string]any{"id": "a"})
	require.NoError(t, err, "the next attempt opened a new session")
	assert.Equal(t, 1, f.callsOf("lookup", "a"), "the failed call never reached the tool")
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := f.transport
	for _, tt := range []struct {
		opts mcp.Options
		says string
	}{
		{mcp.Options{Transport: tr}, "Options.Server is empty"},
		{mcp.Options{Server: "a.b", Transport: tr}, "dot"},
		{mcp.Options{Server: "s"}, "Options.Transport is nil"},
		{mcp.Options{Server: "s", Transport: tr, Timeout: -time.Second}, "Options.Timeout"},
		{mcp.Options{Server: "s", Transport: tr, Timeouts: map[string]time.Duration{"lookup": 0}}, `Options.Timeouts["lookup"]`},
		{mcp.Options{Server: "s", Transport: tr, Timeouts: map[string]time.Duration{"nope": time.Second}}, `"nope"`},
		{mcp.Options{Server: "s", Transport: tr, KeyFields: map[string][]string{"nope": {"id"}}}, `"nope"`},
		{mcp.Options{Server: "s", Transport: tr, KeyFields: map[string][]string{"charge": {"amount"}}}, `"amount"`},
		{mcp.Options{Server: "s", Transport: func(context.Context) (sdk.Transport, error) { return nil, context.DeadlineExceeded }}, "cannot reach"},
	} {
		tools, err := mcp.New(context.Background(), tt.opts)
		assert.Nil(t, tools)
		require.Error(t, err, tt.says)
		assert.Contains(t, err.Error(), tt.says)
	}
}
