package interceptors_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// beatProbe is an activity that reports -1 when the kit gave it no
// heartbeater, else waits for the heartbeater's first beat (sent as it
// starts) and reports its interval.
func beatProbe(ctx context.Context) (time.Duration, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	if call.Heartbeater == nil {
		return -1, nil
	}
	for call.Heartbeater.Beats() == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		runtime.Gosched()
	}
	return call.Heartbeater.Interval(), nil
}

// beatWorkflow calls beatProbe as a MODEL call with the given heartbeat
// window (zero: none).
func beatWorkflow(ctx workflow.Context, window time.Duration) (time.Duration, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: window})
	var interval time.Duration
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), beatProbe).Get(ctx, &interval)
	return interval, err
}

// A call with a heartbeat window of two seconds is beaten for from its start;
// a call without a window gets no heartbeater and no beat.
func TestUnitHeartbeatsStartForEveryWindowAndOnlyWithOne(t *testing.T) {
	t.Parallel()
	silent, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	silent.Heartbeat = 0
	tests := []struct {
		name   string
		window time.Duration
		kit    interceptors.Options
		want   time.Duration
	}{
		{"a 2s window beats", 2 * time.Second, interceptors.Options{}, 2 * time.Second / 3},
		{"no window, no beat", 0, interceptors.Options{Policies: policiesOf(silent)}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var suite sdktestsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(t, tt.kit)}})
			env.RegisterActivity(beatProbe)
			env.RegisterWorkflow(beatWorkflow)
			env.ExecuteWorkflow(beatWorkflow, tt.window)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			var got time.Duration
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, tt.want, got, "beat on a third of the window; -1 is no heartbeater")
		})
	}
}
