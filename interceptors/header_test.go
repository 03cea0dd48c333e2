package interceptors_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// runWithHeader runs fn as an activity under the kit's activity interceptor
// with the given Temporal header fields, and says whether fn ran.
func runWithHeader(t *testing.T, fields map[string]*commonpb.Payload, fn func(context.Context) error) (bool, error) {
	t.Helper()
	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newKit(t, interceptors.Options{})}})
	env.SetHeader(&commonpb.Header{Fields: fields})
	ran := false
	env.RegisterActivityWithOptions(func(ctx context.Context) error { ran = true; return fn(ctx) }, activity.RegisterOptions{Name: "Probe"})
	_, err := env.ExecuteActivity("Probe")
	return ran, err
}

func headerPayload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

// A header that does not decode, or that names an unknown class, fails the
// attempt non-retryably, naming the header, before the user's code runs:
// another attempt would read the same header.
func TestUnitBadCallHeaderIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload *commonpb.Payload
		want    string
	}{
		{"does not decode", &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte("{not json")}, `"temporaladk-call" does not decode`},
		{"unknown class", headerPayload(t, wire.CallHeader{Class: "FAST"}), `unknown activity class "FAST"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ran, err := runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: tt.payload}, func(context.Context) error { return nil })
			assert.False(t, ran, "the user's code does not run")
			var app *temporal.ApplicationError
			require.True(t, errors.As(err, &app), "%v", err)
			assert.Equal(t, temporaladk.TypeBadCallHeader, app.Type())
			assert.True(t, app.NonRetryable())
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
