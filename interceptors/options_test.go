package interceptors_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
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
			i, err := interceptors.New(tt.opts)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, i)
			plugin, err := interceptors.NewPlugin(tt.opts)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, plugin)
		})
	}
}

func TestNewKeepsNoReferenceToOptions(t *testing.T) {
	t.Parallel()
	model, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	ps := map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model}
	i, err := interceptors.New(interceptors.Options{Policies: ps})
	require.NoError(t, err)
	changed := model
	changed.Retry.MaxAttempts = 99
	ps[temporaladk.Model] = changed
	got, ok := i.Policy(temporaladk.Model)
	require.True(t, ok)
	assert.Equal(t, 3, got.Retry.MaxAttempts)

	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	assert.Equal(t, interceptors.PluginName, plugin.Name())
}

func TestDecodeCallHeader(t *testing.T) {
	t.Parallel()
	h, ok, err := interceptors.DecodeCallHeader(nil)
	require.NoError(t, err)
	assert.False(t, ok, "no header: not a kit call")
	assert.Equal(t, interceptors.CallHeader{}, h)
	_, ok, err = interceptors.DecodeCallHeader(map[string]*commonpb.Payload{interceptors.HeaderKey: {Data: []byte("{not json")}})
	assert.False(t, ok)
	assert.ErrorContains(t, err, `the call header "temporaladk-call" does not decode`)
	unknown, err := converter.GetDefaultDataConverter().ToPayload(interceptors.CallHeader{Class: "FAST"})
	require.NoError(t, err)
	_, ok, err = interceptors.DecodeCallHeader(map[string]*commonpb.Payload{interceptors.HeaderKey: unknown})
	assert.False(t, ok)
	assert.ErrorContains(t, err, `unknown activity class "FAST"`)
}

// TestDecodeCallHeaderOfAnEarlierBuild decodes a header as an earlier build
// wrote it, with a copy of the retry policy: the fields this build no longer
// has are ignored, and the rest reads as written.
func TestDecodeCallHeaderOfAnEarlierBuild(t *testing.T) {
	t.Parallel()
	p, err := converter.GetDefaultDataConverter().ToPayload(map[string]any{
		"class": "MEMORY", "max_retry_after": int64(60e9),
		"max_attempts": 3, "initial_interval": int64(250e6), "backoff_coefficient": 2, "max_interval": int64(5e9),
		"budget": "call-4",
	})
	require.NoError(t, err)
	h, ok, err := interceptors.DecodeCallHeader(map[string]*commonpb.Payload{interceptors.HeaderKey: p})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, interceptors.CallHeader{Class: "MEMORY", MaxRetryAfter: time.Minute, Budget: "call-4"}, h)
}

func TestWorkerOptionsLowersTheHeartbeatThrottle(t *testing.T) {
	t.Parallel()
	kit, err := interceptors.New(interceptors.Options{})
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
		opts := kit.WorkerOptions(worker.Options{Interceptors: mine, MaxHeartbeatThrottleInterval: tt.given, Identity: "w"})
		require.Len(t, opts.Plugins, 1, "WorkerOptions adds the kit's plugin")
		assert.Equal(t, interceptors.PluginName, opts.Plugins[0].Name())
		// What worker.New does with a plugin.
		require.NoError(t, opts.Plugins[0].ConfigureWorker(context.Background(), worker.PluginConfigureWorkerOptions{WorkerOptions: &opts}))
		assert.Equal(t, tt.want, opts.MaxHeartbeatThrottleInterval, tt.name)
		assert.Equal(t, []interceptor.WorkerInterceptor{other, kit}, opts.Interceptors, "the kit after the caller's interceptors")
		assert.Equal(t, "w", opts.Identity, "the rest is kept")
	}
	assert.Len(t, mine, 1, "the caller's slice is not changed")
}
