package interceptors_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestUnitEffectfulTimeoutIsIndeterminate(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	env := newEnv(t, opts, acts)
	env.RegisterWorkflow(ChargeWorkflow)
	env.ExecuteWorkflow(ChargeWorkflow, "charge")
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("charge"), 1, "never run a second time")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types)
	assert.Contains(t, got.Errors[0], "StartToClose")
}

func TestUnitEffectfulLocalTimeoutIsIndeterminate(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	env := newEnv(t, opts, acts)
	env.RegisterWorkflow(LocalChargeWorkflow)
	env.ExecuteWorkflow(LocalChargeWorkflow, "local-charge")
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Len(t, acts.log.get("local-charge"), 1, "never run a second time")
	assert.Equal(t, []string{temporaladk.TypeIndeterminateOutcome}, got.Types, "a local activity's effect is as uncertain as a remote one's")
}

// The only attempt of an effectful call that runs into its deadline and
// returns context.DeadlineExceeded itself may have made its effect: an
// indeterminate outcome, never retried.
func TestUnitEffectfulDeadlineIsIndeterminate(t *testing.T) {
	t.Parallel()
	h := wire.CallHeader{Class: temporaladk.Tool, Idempotency: "EFFECTFUL", SingleAttempt: true}
	ran, err := runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: headerPayload(t, h)}, func(context.Context) error {
		return context.DeadlineExceeded
	})
	require.True(t, ran)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, temporaladk.TypeIndeterminateOutcome, app.Type())
	assert.True(t, app.NonRetryable())
	var indeterminate *temporaladk.IndeterminateOutcomeError
	require.True(t, errors.As(temporaladk.FromApplicationError(err), &indeterminate))
	assert.Equal(t, "Probe", indeterminate.Tool)

	// The same error from a call that may be repeated stays what it was.
	h.SingleAttempt, h.Idempotency = false, "READ_ONLY"
	_, err = runWithHeader(t, map[string]*commonpb.Payload{wire.HeaderKey: headerPayload(t, h)}, func(context.Context) error {
		return context.DeadlineExceeded
	})
	assert.False(t, errors.As(err, &app) && app.Type() == temporaladk.TypeIndeterminateOutcome)
}
