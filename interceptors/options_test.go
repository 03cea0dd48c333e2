package interceptors_test

import (
	"context"
	"errors"
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
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/spend"
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
		assert.Equal(t, "w"+interceptors.IdentityMark, opts.Identity, "the identity is marked")
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
	assert.Equal(t, []string{"DefaultFleetInterval", "ErrRegisteredTwice", "FleetOptions", "HeartbeatThrottle", "IdentityMark", "NewPlugin", "Options", "PluginName"}, exported,
		"besides the Metric and Type constants")

	workerInterceptor := reflect.TypeFor[interceptor.WorkerInterceptor]()
	for _, typ := range []reflect.Type{reflect.TypeFor[*interceptors.Options](), reflect.TypeFor[*approvals.WorkerOptions]()} {
		assert.False(t, typ.Implements(workerInterceptor), "%v is no worker interceptor", typ)
	}
	var newPlugin func(interceptors.Options) (*temporal.SimplePlugin, error) = interceptors.NewPlugin
	assert.NotNil(t, newPlugin, "NewPlugin hands out a plugin, not the interceptor")
}

// kitCall is one workflow-side call of the kit, made on ctx.
type kitCall struct {
	name string
	call func(ctx workflow.Context) error
}

// kitCalls are every exported workflow-side call of the kit's packages that
// asks something of the kit's interceptor.
func kitCalls() []kitCall {
	return []kitCall{
		{"temporaladk.WithClass", func(ctx workflow.Context) error { temporaladk.WithClass(ctx, temporaladk.Tool); return nil }},
		{"temporaladk.WithTenant", func(ctx workflow.Context) error { temporaladk.WithTenant(ctx, "acme"); return nil }},
		{"temporaladk.WithIdempotencyKey", func(ctx workflow.Context) error { temporaladk.WithIdempotencyKey(ctx, "k"); return nil }},
		// Every kind of budget at once, then the cap and the model alone.
		{"temporaladk.WithBudgets", func(ctx workflow.Context) error {
			_, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "b", Attempts: 3, Retries: 1, Tokens: 100, Cost: 100, MaxTokens: 10, Model: "m"})
			return err
		}},
		{"temporaladk.WithBudgets", func(ctx workflow.Context) error {
			_, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{MaxTokens: 10, Model: "m"})
			return err
		}},
		{"approvals.WithApproval", func(ctx workflow.Context) error {
			_, err := approvals.WithApproval(ctx, approvals.Options{})
			return err
		}},
		{"conversation.WithUpdateLimit", func(ctx workflow.Context) error { _, err := conversation.WithUpdateLimit(ctx, 10); return err }},
		{"conversation.WithHistoryByteLimit", func(ctx workflow.Context) error {
			_, err := conversation.WithHistoryByteLimit(ctx, 1<<20)
			return err
		}},
		{"conversation.Updates", func(ctx workflow.Context) error { conversation.Updates(ctx); return nil }},
		{"conversation.ShouldContinueAsNew", func(ctx workflow.Context) error { conversation.ShouldContinueAsNew(ctx); return nil }},
		{"conversation.ContinueAsNew", func(ctx workflow.Context) error {
			return conversation.ContinueAsNew(ctx, func(workflow.Context) error { return nil })
		}},
	}
}

// Every workflow-side kit call in a workflow that runs without the kit's
// interceptor fails the workflow task (a panic, the SDK's default
// BlockWorkflow policy), naming the call and the fix, so that a mixed fleet
// retries the task until a worker with the kit takes it: never a budget,
// class or gate silently ignored. The same calls under the kit run.
func TestUnitKitCallsWithoutTheKitFailTheWorkflowTask(t *testing.T) {
	t.Parallel()
	for _, c := range kitCalls() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wf := func(ctx workflow.Context) error {
				err := c.call(ctx)
				var can *workflow.ContinueAsNewError
				if errors.As(err, &can) {
					return nil
				}
				return err
			}
			var suite sdktestsuite.WorkflowTestSuite
			plain := suite.NewTestWorkflowEnvironment()
			plain.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "Agent"})
			plain.ExecuteWorkflow("Agent")
			err := plain.GetWorkflowError()
			require.Error(t, err)
			var panicked *temporal.PanicError
			require.True(t, errors.As(err, &panicked), "a panic, which fails the workflow task on a real worker: %v", err)
			assert.Contains(t, err.Error(), c.name, "names the call")
			assert.Contains(t, err.Error(), "without the kit's interceptor")
			assert.Contains(t, err.Error(), "interceptors.NewPlugin", "names the fix")

			kit, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
			require.NoError(t, err)
			kit.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "Agent"})
			kit.ExecuteWorkflow("Agent")
			require.NoError(t, kit.GetWorkflowError(), "under the kit the call runs")
		})
	}
}

// A nil context is refused by every workflow-side kit call: an error where
// the call returns one, else a panic naming the call (a programming error
// in workflow code, which fails the task).
func TestUnitKitCallsRefuseANilContext(t *testing.T) {
	t.Parallel()
	for _, c := range kitCalls() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = errors.New(strings.TrimSpace(anyString(r)))
					}
				}()
				err = c.call(nil)
			}()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "ctx is nil")
			assert.Contains(t, err.Error(), c.name[strings.Index(c.name, ".")+1:], "names the call")
		})
	}
}

func anyString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "panic"
}

// Registration is idempotent: the kit's plugin given twice applies once:
// each attempt of a call under a budget is charged once. Two different
// kits are refused as the worker starts, naming the mistake. (The
// interceptor itself is not handed out; options_internal_test.go
// holds what a kit interceptor placed twice in a chain does.)
func TestUnitRegisteredTwiceAppliesOnce(t *testing.T) {
	t.Parallel()
	type result struct{ Spent, Attempts int }
	paths := map[string]func(kit *temporal.SimplePlugin) worker.Options{
		"plugin twice": func(kit *temporal.SimplePlugin) worker.Options {
			return worker.Options{Plugins: []worker.Plugin{kit, kit}}
		},
		"once": func(kit *temporal.SimplePlugin) worker.Options {
			return worker.Options{Plugins: []worker.Plugin{kit}}
		},
	}
	for name, register := range paths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var suite sdktestsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			kit := newEnvKit(t, env, interceptors.Options{})
			env.SetWorkerOptions(register(kit))
			attempts := 0
			env.RegisterActivityWithOptions(func(ctx context.Context) error {
				attempts++
				if attempts < 2 {
					return &temporaladk.ProviderError{Provider: "p", StatusCode: 503}
				}
				return nil
			}, activity.RegisterOptions{Name: "Think"})
			env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (result, error) {
				ctx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model), temporaladk.Budgets{Name: "agent", Attempts: 5})
				if err != nil {
					return result{}, err
				}
				err = workflow.ExecuteActivity(ctx, "Think").Get(ctx, nil)
				return result{Spent: attemptsSpent(ctx)}, err
			}, workflow.RegisterOptions{Name: "Agent"})
			env.ExecuteWorkflow("Agent")
			require.NoError(t, env.GetWorkflowError())
			var got result
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, 2, attempts)
			assert.Equal(t, 2, got.Spent, "each of the two attempts charged once")
		})
	}

	t.Run("two different kits", func(t *testing.T) {
		t.Parallel()
		one, other := newKit(t, interceptors.Options{}), newKit(t, interceptors.Options{})
		// Through the plugin, the worker is built and refused as it
		// starts: the SDK's test environment starts it in ExecuteWorkflow,
		// and panics with the start's error where a worker returns it.
		var psuite sdktestsuite.WorkflowTestSuite
		penv := psuite.NewTestWorkflowEnvironment()
		penv.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{one, other}})
		penv.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
		assert.PanicsWithError(t, "interceptors: "+interceptors.ErrRegisteredTwice.Error(), func() {
			penv.ExecuteWorkflow("Agent")
		})
	})
}

// The kit's Update and Query handlers carry a description, as
// `temporal workflow metadata` shows them (the SDK's metadata Query).
func TestUnitKitHandlersAreDescribed(t *testing.T) {
	t.Parallel()
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Agent"})
	env.ExecuteWorkflow("Agent")
	require.NoError(t, env.GetWorkflowError())
	v, err := env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	described := map[string]string{}
	for _, d := range md.GetDefinition().GetUpdateDefinitions() {
		described[d.GetName()] = d.GetDescription()
	}
	for _, d := range md.GetDefinition().GetQueryDefinitions() {
		described[d.GetName()] = d.GetDescription()
	}
	for _, name := range []string{wire.ChargeUpdateName, spend.QueryName, approvals.UpdateName, approvals.QueryName} {
		assert.Contains(t, described[name], "temporaladk: ", "%s is described", name)
	}
}

// TestUnitNewRefusesABadPriority: interceptors.NewPlugin names the class and the
// field of a priority the server would refuse or clamp.
func TestUnitNewRefusesABadPriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		priority temporal.Priority
		want     string
	}{
		{temporal.Priority{PriorityKey: 7}, "interceptors: Options.Policies[MODEL]: policies: ActivityPolicy.Priority.PriorityKey of class MODEL is 7: it must be from 1 (first) to 5 (last), or 0 for none"},
		{temporal.Priority{PriorityKey: -1}, "ActivityPolicy.Priority.PriorityKey of class MODEL is -1"},
		{temporal.Priority{FairnessKey: strings.Repeat("x", 65)}, "ActivityPolicy.Priority.FairnessKey of class MODEL is 65 bytes long"},
		{temporal.Priority{FairnessWeight: -1}, "ActivityPolicy.Priority.FairnessWeight of class MODEL is -1"},
	}
	for _, tt := range tests {
		p, err := policies.Default(temporaladk.Model)
		require.NoError(t, err)
		p.Priority = tt.priority
		_, err = interceptors.NewPlugin(interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: p}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
	}
}
