package guard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/samples/guard"
	"github.com/temporaladk/adk-go/testsuite"
	"github.com/temporaladk/adk-go/workflowguard"
)

// TestMain shares one real Temporal dev server among the integration tests;
// `go test -run Unit` starts none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// TestUnitGuardReportsBothDraws runs the analyzer over this package, as
// `go run ./workflowguard/cmd/workflowguard ./samples/guard/...` does, and
// expects the two findings the README shows: the draw in the workflow and
// the one a helper makes for it. FixedWorkflow has none.
func TestUnitGuardReportsBothDraws(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, ".")
	require.NoError(t, err)
	require.Len(t, pkgs, 1)
	require.Empty(t, pkgs[0].Errors)
	graph, err := checker.Analyze([]*analysis.Analyzer{workflowguard.Analyzer}, pkgs, nil)
	require.NoError(t, err)
	var got []string
	for _, act := range graph.Roots {
		require.NoError(t, act.Err)
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(pos.Filename), pos.Line, strings.Fields(d.Message)[0]))
		}
	}
	sort.Strings(got)
	// The lines marked "// ADK-W00N:" in guard.go.
	src, err := os.ReadFile("guard.go")
	require.NoError(t, err)
	var want []string
	for i, line := range strings.Split(string(src), "\n") {
		if _, code, ok := strings.Cut(line, "// ADK-W00"); ok {
			want = append(want, fmt.Sprintf("guard.go:%d ADK-W00%s", i+1, code[:1]))
		}
	}
	sort.Strings(want)
	require.Len(t, want, 2)
	assert.Equal(t, want, got)
}

func TestUnitBothWorkflowsRunInTheTestEnvironment(t *testing.T) {
	for _, wf := range []any{guard.JitterWorkflow, guard.FixedWorkflow} {
		var suite sdktestsuite.WorkflowTestSuite
		env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
		require.NoError(t, err)
		env.RegisterWorkflow(wf)
		env.RegisterActivity(guard.Fetch)
		env.ExecuteWorkflow(wf, guard.FetchRequest{Query: "q", Failures: 2})
		require.NoError(t, env.GetWorkflowError(), "the hazard does not show when the workflow runs")
		var doc string
		require.NoError(t, env.GetWorkflowResult(&doc))
		assert.Equal(t, "document for q", doc)
	}
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterWorkflow(guard.FixedWorkflow)
	env.RegisterActivity(guard.Fetch)
	env.ExecuteWorkflow(guard.FixedWorkflow, guard.FetchRequest{Query: "q", Failures: 1})
	require.NoError(t, env.GetWorkflowError())
	calls := env.Recorder.CallsOf("Fetch")
	require.Len(t, calls, 1, "the retries stay on the server")
	assert.Equal(t, int32(3), calls[0].MaxAttempts(), "RETRIEVAL's attempts")
	assert.Equal(t, 30*time.Second, calls[0].Options.StartToCloseTimeout)
}

// TestIntegrationFixedWorkflowOnAServer runs both workflows on a real server:
// both complete, which is the point, the hazard is invisible at run time. The
// fixed one's retry wait was drawn in the activity and its history replays
// with the kit's plugin.
func TestIntegrationFixedWorkflowOnAServer(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	w := worker.New(srv.Client(), "guard-sample", worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(guard.JitterWorkflow)
	w.RegisterWorkflow(guard.FixedWorkflow)
	w.RegisterActivity(guard.Fetch)
	require.NoError(t, w.Start())
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	for _, wf := range []any{guard.JitterWorkflow, guard.FixedWorkflow} {
		id := fmt.Sprintf("guard-%d", time.Now().UnixNano())
		run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "guard-sample"}, wf, guard.FetchRequest{Query: "q", Failures: 1})
		require.NoError(t, err)
		var doc string
		require.NoError(t, run.Get(ctx, &doc))
		assert.Equal(t, "document for q", doc)
		require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), id, run.GetRunID(), filepath.Join(dir, id+".json")))
	}
	fixed, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, fixed, 2)
	require.NoError(t, testsuite.ReplayDir(dir, testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{{Func: guard.JitterWorkflow}, {Func: guard.FixedWorkflow}},
		Plugins:   []worker.Plugin{plugin},
	}), "the replayer compares commands, not timer lengths: a replay of the jittered run passes while drawing other waits, which is why the guard is static")
}
