package opentelemetry_test

import (
	"context"
	"regexp"
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
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	type key struct{}
	for _, tc := range []struct {
		name string
		opts opentelemetry.Options
		want string
	}{
		{"no kit", opentelemetry.Options{}, "Options.Kit is required"},
		{"own span context key", opentelemetry.Options{Kit: kit, Tracing: temporalotel.TracerOptions{SpanContextKey: key{}}}, "SpanContextKey must be unset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := opentelemetry.New(tc.opts)
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	p, err := opentelemetry.New(opentelemetry.Options{Kit: kit})
	require.NoError(t, err)
	assert.Equal(t, opentelemetry.PluginName, p.Name())
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
		opentelemetry.EventBudgetRefused,
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

// TestConfigureWorkerPlacesTheKitBetween: the plugin adds the SDK's tracing
// interceptor and its own before the kit's and one after it, and the kit's
// plugin still configures the worker (its heartbeat throttle).
func TestConfigureWorkerPlacesTheKitBetween(t *testing.T) {
	t.Parallel()
	kit, err := interceptors.New(interceptors.Options{})
	require.NoError(t, err)
	kitPlugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	p, err := opentelemetry.New(opentelemetry.Options{Kit: kitPlugin})
	require.NoError(t, err)
	var opts worker.Options
	require.NoError(t, p.ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerOptions: &opts}))
	require.Len(t, opts.Interceptors, 4)
	assert.IsType(t, kit, opts.Interceptors[2], "the kit's interceptor third")
	assert.Equal(t, interceptors.HeartbeatThrottle, opts.MaxHeartbeatThrottleInterval)

	var replay worker.WorkflowReplayerOptions
	require.NoError(t, p.ConfigureWorkflowReplayer(context.Background(), worker.PluginConfigureWorkflowReplayerOptions{WorkflowReplayerOptions: &replay}))
	require.Len(t, replay.Interceptors, 4)
	assert.IsType(t, kit, replay.Interceptors[2], "the kit's interceptor third")
}
