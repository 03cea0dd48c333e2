package interceptors_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	model, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	wide := model
	wide.Heartbeat = 2 * wide.StartToClose
	nan := model
	nan.Retry.BackoffCoefficient = math.NaN()
	tests := []struct {
		name    string
		opts    interceptors.Options
		wantErr string
	}{
		{"unknown default class", interceptors.Options{DefaultClass: "REASONING"}, `Options.DefaultClass is "REASONING"`},
		{"policy for an unknown class", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{"LLM": model}}, `policy for "LLM"`},
		{"two policies for one class", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{"model": model, temporaladk.Model: model}}, `two policies for class MODEL, under "MODEL" and "model"`},
		{"policy under another class", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: model}}, "Options.Policies[TOOL] is a policy for class MODEL"},
		{"heartbeat wider than the activity", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: wide}}, "Options.Policies[MODEL]: policies: ActivityPolicy.Heartbeat"},
		{"NaN coefficient", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: nan}}, "Retry.BackoffCoefficient"},
		{"nameless declaration", interceptors.Options{Activities: map[string]temporaladk.Declaration{"": {}}}, `declaration of "": activity type is empty`},
		{"declared unknown class", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {Class: "LLM"}}}, `Options.Activities: temporaladk: declaration of "Book": Class is "LLM"`},
		{"declared bad idempotency", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {Idempotency: 7}}}, `declaration of "Book": Idempotency is Idempotency(7)`},
		{"negative timeout", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {Timeout: -time.Second}}}, `declaration of "Book": Timeout is -1s`},
		{"timeout too short for a window", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Stream": {Class: temporaladk.Model, Timeout: 1}}}, `Options.Activities["Stream"].Timeout`},
		{"key field the input lacks", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {KeyFields: []string{"seat"}, Input: Booking{}}}}, `declaration of "Book": KeyFields names "seat"`},
		{"key field left out of the JSON when zero", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {KeyFields: []string{"note"}, Input: struct {
			Note string `json:"note,omitempty"`
		}{}}}}, `field "note" is tagged omitempty`},
		{"malformed key field", interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": {KeyFields: []string{"a..b"}}}}, "not a field path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plugin, err := interceptors.NewPlugin(tt.opts)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, plugin)
		})
	}
}

func TestNewPluginName(t *testing.T) {
	t.Parallel()
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	assert.Equal(t, interceptors.PluginName, plugin.Name())
}

func TestNewPluginLowersTheHeartbeatThrottle(t *testing.T) {
	t.Parallel()
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	other := &testsuite.Recorder{}
	mine := []interceptor.WorkerInterceptor{other}
	tests := []struct {
		name  string
		given time.Duration
		want  time.Duration
	}{
		{"unset: the SDK would send one beat per 0.8 × window", 0, interceptors.HeartbeatThrottle},
		{"higher than the kit needs", 10 * time.Second, interceptors.HeartbeatThrottle},
		{"lower: kept", 200 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		opts := worker.Options{Interceptors: mine, MaxHeartbeatThrottleInterval: tt.given, Identity: "w", Plugins: []worker.Plugin{kit}}
		// What worker.New does with a plugin.
		require.NoError(t, opts.Plugins[0].ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerOptions: &opts}))
		assert.Equal(t, tt.want, opts.MaxHeartbeatThrottleInterval, tt.name)
		require.Len(t, opts.Interceptors, 2, "the plugin adds the kit's interceptor")
		assert.Same(t, other, opts.Interceptors[0], "the kit after the caller's interceptors")
		assert.Equal(t, "w", opts.Identity, "the rest is kept")
	}
	assert.Len(t, mine, 1, "the caller's slice is not changed")
}

// TestExportsOnlyTheRegistrationPath holds the package's surface: NewPlugin,
// its options, and the names a user matches on or reads (error types,
// metrics, the plugin's name and throttle). No exported name is the kit's
// interceptor or a wire type, so that NewPlugin is the one path that puts
// the kit on a worker.
func TestExportsOnlyTheRegistrationPath(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	var exported []string
	for _, f := range pkgs["interceptors"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					exported = append(exported, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported = append(exported, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && !strings.HasPrefix(n.Name, "Metric") && !strings.HasPrefix(n.Name, "Type") {
								exported = append(exported, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(exported)
	assert.Equal(t, []string{"ApprovalOptions", "ErrRegisteredTwice", "HeartbeatThrottle", "NewPlugin", "Options", "PluginName"}, exported,
		"besides the Metric and Type constants")

	workerInterceptor := reflect.TypeFor[interceptor.WorkerInterceptor]()
	for _, typ := range []reflect.Type{reflect.TypeFor[*interceptors.Options](), reflect.TypeFor[*interceptors.ApprovalOptions]()} {
		assert.False(t, typ.Implements(workerInterceptor), "%v is no worker interceptor", typ)
	}
	var newPlugin func(interceptors.Options) (*temporal.SimplePlugin, error) = interceptors.NewPlugin
	assert.NotNil(t, newPlugin, "NewPlugin hands out a plugin, not the interceptor")
}
