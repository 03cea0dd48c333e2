package payloads_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// The same workflow and DataConverter in the kit's unit-test environment:
// the SDK's test environment stores nothing externally, so payloads stay
// inline and the store's DataConverter passes them through.
func TestAgentInTheKitTestEnvironment(t *testing.T) {
	t.Parallel()
	store, bucket := newDirStore(t, t.TempDir(), 0)
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
	require.NoError(t, err)
	env.SetDataConverter(store.DataConverter(nil))
	env.RegisterActivity(Search)
	env.RegisterActivity(Model)
	env.ExecuteWorkflow(Agent, AgentInput{Turns: 3, ToolBytes: 20_000})
	require.NoError(t, env.GetWorkflowError())
	var res AgentResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 3, res.Turns)
	require.Len(t, env.Recorder.CallsOf("Model"), 3)
	require.Zero(t, bucketSize(t, bucket))
}
