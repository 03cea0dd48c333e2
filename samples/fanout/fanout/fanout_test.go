package fanout_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/samples/fanout/fanout"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one real Temporal dev server among the integration tests;
// `go test -run Unit` starts none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

func TestUnitPoolCapsTheRetries(t *testing.T) {
	// A pool of no retries is not a pool: WithBudgets refuses it, naming
	// what is missing, and the workflow fails before it schedules anything.
	t.Run("pool of 0", func(t *testing.T) {
		opts, err := fanout.KitOptions()
		require.NoError(t, err)
		var suite sdktestsuite.WorkflowTestSuite
		env, err := testsuite.NewKitTestEnvironment(&suite, opts)
		require.NoError(t, err)
		env.RegisterWorkflow(fanout.FanOutWorkflow)
		env.RegisterActivity(&fanout.Activities{})
		env.ExecuteWorkflow(fanout.FanOutWorkflow, fanout.Input{Branches: 10, UsePool: true, Pool: 0})
		require.Error(t, env.GetWorkflowError())
		assert.Contains(t, env.GetWorkflowError().Error(), "Input.Pool")
		assert.Empty(t, env.Recorder.CallsOf("Ask"))
	})
	tests := []struct {
		name      string
		in        fanout.Input
		scheduled int
		want      fanout.Result
	}{
		{"down, pool of 5", fanout.Input{Branches: 10, UsePool: true, Pool: 5, Fault: "503x99"}, 10, fanout.Result{Refused: 10, PoolUsed: 5}},
		{"blip, pool of 5", fanout.Input{Branches: 10, UsePool: true, Pool: 5, Fault: "503"}, 10, fanout.Result{Answered: 5, Refused: 5, PoolUsed: 5}},
		{"blip, pool of 1", fanout.Input{Branches: 10, UsePool: true, Pool: 1, Fault: "503"}, 10, fanout.Result{Answered: 1, Refused: 9, PoolUsed: 1}},
		{"blip, no pool", fanout.Input{Branches: 10, Fault: "503"}, 10, fanout.Result{Answered: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := fanout.KitOptions()
			require.NoError(t, err)
			var suite sdktestsuite.WorkflowTestSuite
			env, err := testsuite.NewKitTestEnvironment(&suite, opts)
			require.NoError(t, err)
			model, err := standin.Start(standin.Options{TokenDelay: time.Millisecond})
			require.NoError(t, err)
			defer model.Close()
			env.RegisterWorkflow(fanout.FanOutWorkflow)
			env.RegisterActivity(&fanout.Activities{Model: chat.Client{BaseURL: model.URL()}})
			env.ExecuteWorkflow(fanout.FanOutWorkflow, tt.in)
			require.NoError(t, env.GetWorkflowError())
			var got fanout.Result
			require.NoError(t, env.GetWorkflowResult(&got))
			if tt.in.Fault == "503x99" {
				// With the provider down, a branch whose retries all came
				// from the pool runs out of attempts instead of being
				// refused; which branches do depends on the drawn waits.
				got.Refused, got.Failed = got.Refused+got.Failed, 0
			}
			assert.Equal(t, tt.want, got)
			calls := env.Recorder.CallsOf("Ask")
			assert.Len(t, calls, tt.scheduled, "one schedule per branch: with a pool or without, the retries stay on the server")
			assert.Equal(t, 900*time.Second, calls[0].Options.StartToCloseTimeout, "MODEL")
			assert.Equal(t, 100*time.Millisecond, calls[0].Options.RetryPolicy.InitialInterval, "the sample's tuned backoff")
			if !tt.in.UsePool {
				assert.Equal(t, int32(3), calls[0].MaxAttempts(), "without a pool the server retries up to MODEL's attempts")
			}
		})
	}
}

func TestIntegrationStormSideBySide(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	scenarios, err := fanout.Run(ctx, fanout.Config{Address: srv.Address(), Namespace: srv.Namespace()}, io.Discard, io.Discard)
	require.NoError(t, err)
	require.Len(t, scenarios, 2)
	down, blip := scenarios[0], scenarios[1]
	assert.Equal(t, 30, down.CallsWithout, "ten branches each retrying three times is thirty calls")
	assert.Equal(t, 15, down.CallsWith, "ten first attempts and the pool's five retries")
	assert.Equal(t, fanout.Result{Failed: 10}, down.Without)
	// A branch whose retries all came from the pool runs out of attempts
	// instead of being refused; which branches do depends on the drawn waits.
	assert.Equal(t, 10, down.With.Refused+down.With.Failed, "every branch ended without an answer")
	down.With.Refused, down.With.Failed = 0, 0
	assert.Equal(t, fanout.Result{PoolUsed: 5}, down.With)
	assert.Equal(t, 20, blip.CallsWithout)
	assert.Equal(t, 15, blip.CallsWith)
	assert.Equal(t, 10, blip.Without.Answered)
	assert.Equal(t, fanout.Result{Answered: 5, Refused: 5, PoolUsed: 5}, blip.With)
}
