package interceptors_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// unconfiguredWarnings counts the warnings that say the kit was registered
// without its plugin, and checks that each names the throttle it misses.
func unconfiguredWarnings(t *testing.T, logged *warnings) int {
	t.Helper()
	logged.mu.Lock()
	defer logged.mu.Unlock()
	var n int
	for msg, times := range logged.seen {
		if strings.Contains(msg, "registered without its plugin") {
			assert.Contains(t, msg, "MaxHeartbeatThrottleInterval", "the warning names the throttle")
			n += times
		}
	}
	return n
}

// An interceptor placed in worker.Options.Interceptors directly, without
// the plugin, says so once, however many activities it serves; one
// registered through WorkerOptions (its plugin) says nothing.
func TestUnitRegistrationWithoutThePluginIsLoggedOnce(t *testing.T) {
	t.Parallel()
	noop := func(context.Context) error { return nil }
	run := func(t *testing.T, register func(*interceptors.Interceptor) worker.Options) int {
		kit := newKit(t, interceptors.Options{})
		logged := &warnings{seen: map[string]int{}}
		var suite sdktestsuite.WorkflowTestSuite
		suite.SetLogger(sdklog.NewStructuredLogger(slog.New(logged.handler())))
		for range 3 {
			env := suite.NewTestActivityEnvironment()
			env.SetWorkerOptions(register(kit))
			env.RegisterActivityWithOptions(noop, activity.RegisterOptions{Name: "Noop"})
			_, err := env.ExecuteActivity("Noop")
			require.NoError(t, err)
		}
		return unconfiguredWarnings(t, logged)
	}
	direct := run(t, func(kit *interceptors.Interceptor) worker.Options {
		return worker.Options{Interceptors: []interceptor.WorkerInterceptor{kit}}
	})
	assert.Equal(t, 1, direct, "registered directly: one warning for three activities")
	plugin := run(t, func(kit *interceptors.Interceptor) worker.Options { return kit.WorkerOptions(worker.Options{}) })
	assert.Zero(t, plugin, "registered through the plugin: no warning")
}

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
			env.SetWorkerOptions(newKit(t, tt.kit).WorkerOptions(worker.Options{}))
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
