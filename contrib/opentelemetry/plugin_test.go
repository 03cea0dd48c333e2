package opentelemetry_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/contrib/opentelemetry"
	"github.com/temporaladk/adk-go/interceptors"
)

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	type key struct{}
	for _, tc := range []struct {
		name string
		opts opentelemetry.Options
		want string
	}{
		{"bad kit options", opentelemetry.Options{Kit: interceptors.Options{DefaultClass: "BOGUS"}}, "opentelemetry: Options.Kit: interceptors: Options.DefaultClass"},
		{"own span context key", opentelemetry.Options{Tracing: temporalotel.TracerOptions{SpanContextKey: key{}}}, "SpanContextKey must be unset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := opentelemetry.New(tc.opts)
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	p, err := opentelemetry.New(opentelemetry.Options{})
	require.NoError(t, err)
	assert.Equal(t, opentelemetry.PluginName, p.Name())
}

// wireNames are the kit's wire types and names, which the plugin must not
// read: it learns what the kit decided from the kit's observer.
var wireNames = map[string]bool{
	"CallHeader": true, "DecodeCallHeader": true, "ChargeRequest": true, "ChargeResult": true, "ChargeUpdateName": true,
}

// TestPluginReadsNoWireType parses the package's non-test files and fails
// on any use of the kit's wire types (CallHeader,
// DecodeCallHeader, ChargeRequest, ChargeResult, ChargeUpdateName): the
// plugin is built on the observe seam, not on the kit's headers and Updates.
func TestPluginReadsNoWireType(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	read := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		read++
		assert.Empty(t, wireUses(t, name), "%s reads the kit's wire protocol", name)
	}
	require.Positive(t, read, "no file of the package was read")
}

// wireUses returns the selectors of src's file name that name a wire type
// of the kit's interceptors package, under whatever name it is imported.
func wireUses(t *testing.T, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
	require.NoError(t, err)
	local := ""
	for _, spec := range f.Imports {
		if path, _ := strconv.Unquote(spec.Path.Value); path == "github.com/temporaladk/adk-go/interceptors" {
			local = "interceptors"
			if spec.Name != nil {
				local = spec.Name.Name
			}
		}
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && local != "" && x.Name == local && wireNames[sel.Sel.Name] {
			uses = append(uses, local+"."+sel.Sel.Name)
		}
		return true
	})
	return uses
}

// TestWireUsesFindsASelector: the check above finds a wire type under a
// renamed import, so that its silence means something.
func TestWireUsesFindsASelector(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "wire.go")
	require.NoError(t, os.WriteFile(name, []byte(`package p

import kit "github.com/temporaladk/adk-go/interceptors"

var _ = kit.ChargeUpdateName
var _ kit.Options
`), 0o600))
	assert.Equal(t, []string{"kit.ChargeUpdateName"}, wireUses(t, name))
}

// TestNamesFollowOpenTelemetryRules: every attribute and event name is under
// the namespace, lower case, dot-separated, and none is the namespace of
// another.
func TestNamesFollowOpenTelemetryRules(t *testing.T) {
	t.Parallel()
	names := []string{
		opentelemetry.AttrClass, opentelemetry.AttrAttemptNumber, opentelemetry.AttrAttemptPlanned,
		opentelemetry.AttrAttemptSingle, opentelemetry.AttrIdempotencyKind, opentelemetry.AttrIdempotencyKeyPresent,
		opentelemetry.AttrBudgetCall, opentelemetry.AttrBudgetBreached, opentelemetry.AttrBudgetLimit,
		opentelemetry.AttrBudgetConsumed, opentelemetry.AttrBudgetRemaining, opentelemetry.AttrBudgetAttempts,
		opentelemetry.AttrErrorType, opentelemetry.AttrRetrySource, opentelemetry.AttrRetryWaitMillis,
		opentelemetry.AttrRetryRequestedMillis, opentelemetry.AttrRetryTruncated, opentelemetry.AttrRetryFinal,
		opentelemetry.AttrRetryReason, opentelemetry.AttrBudgetRefusedAttempt, opentelemetry.AttrActivityType,
		opentelemetry.EventBudgetRefused, opentelemetry.EventApprovalAsked, opentelemetry.EventApprovalDecided,
		opentelemetry.AttrApprovalCall, opentelemetry.AttrApprovalRequired,
		opentelemetry.AttrApprovalOutcome, opentelemetry.AttrApprovalBy, opentelemetry.AttrApprovalWaitMillis,
	}
	valid := regexp.MustCompile(`^` + opentelemetry.Namespace + `(\.[a-z][a-z0-9_]*)+$`)
	seen := map[string]bool{}
	for _, n := range names {
		assert.Regexp(t, valid, n)
		assert.False(t, seen[n], "%s named twice", n)
		seen[n] = true
	}
	for _, a := range names {
		for _, b := range names {
			if a != b && a != opentelemetry.EventBudgetRefused && b != opentelemetry.EventBudgetRefused {
				assert.False(t, strings.HasPrefix(b, a+"."), "%s is the namespace of %s", a, b)
			}
		}
	}
}

// TestConfigureWorkerPlacesTheKitAfter: the plugin adds the SDK's tracing
// interceptor and its own before the kit's, and the kit's plugin still
// configures the worker (its heartbeat throttle).
func TestConfigureWorkerPlacesTheKitAfter(t *testing.T) {
	t.Parallel()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	p, err := opentelemetry.New(opentelemetry.Options{})
	require.NoError(t, err)
	// The kit's interceptor, as its own plugin adds it.
	var bare worker.Options
	require.NoError(t, kit.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerOptions: &bare}))
	require.Len(t, bare.Interceptors, 1)
	var opts worker.Options
	require.NoError(t, p.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerOptions: &opts}))
	require.Len(t, opts.Interceptors, 3)
	assert.IsType(t, bare.Interceptors[0], opts.Interceptors[2], "the kit's interceptor last")
	assert.Equal(t, interceptors.HeartbeatThrottle, opts.MaxHeartbeatThrottleInterval)

	var replay worker.WorkflowReplayerOptions
	require.NoError(t, p.ConfigureWorkflowReplayer(context.Background(), worker.PluginConfigureWorkflowReplayerOptions{WorkflowReplayerOptions: &replay}))
	require.Len(t, replay.Interceptors, 3)
	assert.IsType(t, bare.Interceptors[0], replay.Interceptors[2], "the kit's interceptor last")
}
