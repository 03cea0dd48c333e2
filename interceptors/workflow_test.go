package interceptors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

func newKit(t testing.TB, opts interceptors.Options) *temporal.SimplePlugin {
	t.Helper()
	kit, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	return kit
}

// newEnvKit is the kit's plugin for activities that run in env: their
// charges go through env and their retry policy comes from a Recorder.
func newEnvKit(t testing.TB, env *testsuite.TestWorkflowEnvironment, opts interceptors.Options) *temporal.SimplePlugin {
	t.Helper()
	kit, err := kittest.NewKitPlugin(env, opts)
	require.NoError(t, err)
	return kit
}

// newEnv returns a test workflow environment with the kit registered as a
// worker would have it, and the activities.
func newEnv(t *testing.T, opts interceptors.Options, acts *Activities) *testsuite.TestWorkflowEnvironment {
	env, _ := newProbedEnv(t, opts, acts)
	return env
}

// newProbedEnv is newEnv with a testsuite.Recorder innermost in the chain,
// to read what the kit applied.
func newProbedEnv(t *testing.T, opts interceptors.Options, acts *Activities) (*testsuite.TestWorkflowEnvironment, *kittest.Recorder) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	kit := newEnvKit(t, env, opts)
	p := &kittest.Recorder{}
	// The first interceptor's outbound is the innermost: the recorder sees the
	// options the kit wrote; the kit's plugin adds the kit after it.
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{p}, Plugins: []worker.Plugin{kit}})
	env.SetStartTime(testclock.Epoch(t))
	env.RegisterActivity(Report)
	env.RegisterActivity(acts)
	env.RegisterWorkflow(ClassesWorkflow)
	env.RegisterWorkflow(FailWorkflow)
	env.RegisterWorkflow(BookWorkflow)
	env.RegisterWorkflow(FanOutWorkflow)
	return env, p
}

func policiesOf(ps ...policies.ActivityPolicy) map[temporaladk.Class]policies.ActivityPolicy {
	out := map[temporaladk.Class]policies.ActivityPolicy{}
	for _, p := range ps {
		out[p.Class] = p
	}
	return out
}

func mustPolicy(t testing.TB, c temporaladk.Class) policies.ActivityPolicy {
	t.Helper()
	p, err := policies.Default(c)
	require.NoError(t, err)
	return p
}

func TestUnitWorkflowKitErrorKeepsItsFields(t *testing.T) {
	env := newEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		return &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}
	})
	werr := env.GetWorkflowError()
	var budget *temporaladk.BudgetExceededError
	require.ErrorAs(t, temporaladk.FromApplicationError(werr), &budget)
	assert.Equal(t, "2", budget.Details()["attempts"], "the client reads the fields, not only the message")
}
