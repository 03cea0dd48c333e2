package interceptors_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// keyedOutcome is how a keyed call ended, as the workflow saw it.
type keyedOutcome struct {
	Type    string // the kit error's Type, "" for none
	Timeout bool   // a *temporal.TimeoutError is in the chain
}

// KeyedCallWorkflow calls activity (Book or Charge) with arg, under key when
// it is not empty, and with a retry policy of attempts when attempts > 0
// (none of the caller's otherwise).
func KeyedCallWorkflow(ctx workflow.Context, activity string, arg any, key string, attempts int32) (keyedOutcome, error) {
	opts := workflow.ActivityOptions{StartToCloseTimeout: time.Second}
	if attempts > 0 {
		opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: attempts, InitialInterval: 10 * time.Millisecond}
	}
	ctx = workflow.WithActivityOptions(ctx, opts)
	if key != "" {
		ctx = temporaladk.WithIdempotencyKey(ctx, key)
	}
	err := workflow.ExecuteActivity(ctx, activity, arg).Get(ctx, nil)
	var out keyedOutcome
	if kit, ok := temporaladk.AsError(temporaladk.FromApplicationError(err)); ok {
		out.Type = kit.Type()
	}
	var timeout *temporal.TimeoutError
	out.Timeout = errors.As(err, &timeout)
	return out, nil
}

// TestUnitIdempotencyKeyUnderTheDefaultToolPolicy holds what README and
// temporaladk.WithIdempotencyKey say a key does for an effectful tool: under
// the default TOOL policy (one attempt) it gives no retry; it reaches the
// activity; it makes a timeout of the attempt a plain timeout rather than an
// IndeterminateOutcomeError; and it lets a retry policy's attempts through,
// the caller's or the TOOL policy's, which without a key are cut to one.
func TestUnitIdempotencyKeyUnderTheDefaultToolPolicy(t *testing.T) {
	defaults := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Book":   {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	book := func(t *testing.T, opts interceptors.Options, note, key string, attempts int32) ([]attemptSeen, keyedOutcome) {
		t.Helper()
		acts := &Activities{log: newAttemptLog()}
		env := newEnv(t, opts, acts)
		env.RegisterWorkflow(KeyedCallWorkflow)
		env.ExecuteWorkflow(KeyedCallWorkflow, "Book", Booking{Flight: "LH400", Passenger: "ada", Note: note}, key, attempts)
		require.NoError(t, env.GetWorkflowError())
		var out keyedOutcome
		require.NoError(t, env.GetWorkflowResult(&out))
		return acts.log.get("book:" + note), out
	}

	t.Run("default TOOL policy: one attempt with or without a key", func(t *testing.T) {
		seen, out := book(t, defaults, "keyed", "booking-42", 0)
		require.Len(t, seen, 1, "the key gives no retry: the TOOL policy has one attempt")
		assert.Equal(t, "booking-42", seen[0].Key, "the activity receives the key")
		assert.Equal(t, temporaladk.TypeToolFailure, out.Type)

		seen, _ = book(t, defaults, "unkeyed", "", 0)
		require.Len(t, seen, 1)
		assert.Empty(t, seen[0].Key)
	})

	t.Run("the caller's retry policy: its attempts with a key, one without", func(t *testing.T) {
		seen, _ := book(t, defaults, "keyed", "booking-42", 3)
		assert.Len(t, seen, 3, "a key lets the caller's retry policy through")
		seen, _ = book(t, defaults, "unkeyed", "", 3)
		assert.Len(t, seen, 1, "without a key one attempt, whatever the retry policy says")
	})

	t.Run("the TOOL policy raised: its attempts with a key, one without", func(t *testing.T) {
		tool := mustPolicy(t, temporaladk.Tool)
		tool.Retry.MaxAttempts = 3
		tool.Retry.InitialInterval = 10 * time.Millisecond
		raised := defaults
		raised.Policies = policiesOf(tool)
		seen, _ := book(t, raised, "keyed", "booking-42", 0)
		assert.Len(t, seen, 3)
		seen, _ = book(t, raised, "unkeyed", "", 0)
		assert.Len(t, seen, 1)
	})

	t.Run("a timeout of a keyed call is a timeout, not an indeterminate outcome", func(t *testing.T) {
		acts := &Activities{log: newAttemptLog()}
		env := newEnv(t, defaults, acts)
		env.RegisterWorkflow(KeyedCallWorkflow)
		env.ExecuteWorkflow(KeyedCallWorkflow, "Charge", "charge-keyed", "charge-7", int32(0))
		require.NoError(t, env.GetWorkflowError())
		var out keyedOutcome
		require.NoError(t, env.GetWorkflowResult(&out))
		assert.Len(t, acts.log.get("charge-keyed"), 1)
		assert.True(t, out.Timeout, "the workflow sees the timeout: calling again with the key is safe")
		assert.Empty(t, out.Type, "no IndeterminateOutcomeError")
	})
}
