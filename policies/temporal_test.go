package policies_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestActivityOptionsMapping(t *testing.T) {
	t.Parallel()
	for _, c := range allClasses {
		p := mustDefault(t, c)
		opts := p.ActivityOptions()
		assert.Equal(t, p.StartToClose, opts.StartToCloseTimeout)
		assert.Equal(t, p.Heartbeat, opts.HeartbeatTimeout)
		rp := opts.RetryPolicy
		require.NotNil(t, rp)
		assert.Equal(t, int32(p.Retry.MaxAttempts), rp.MaximumAttempts)
		assert.Equal(t, p.Retry.InitialInterval, rp.InitialInterval)
		assert.Equal(t, p.Retry.MaxInterval, rp.MaximumInterval)
		assert.Equal(t, p.Retry.BackoffCoefficient, rp.BackoffCoefficient)
		assert.ElementsMatch(t, vocab.NeverRetryableTypes(), rp.NonRetryableErrorTypes)
		local := p.LocalActivityOptions()
		assert.Equal(t, p.StartToClose, local.StartToCloseTimeout)
		assert.ElementsMatch(t, vocab.NeverRetryableTypes(), local.RetryPolicy.NonRetryableErrorTypes)
	}
}

func TestWithNeverRetryable(t *testing.T) {
	t.Parallel()
	mine := &temporal.RetryPolicy{MaximumAttempts: 5, NonRetryableErrorTypes: []string{"MyError", temporaladk.TypeBudgetExceeded}}
	got := policies.WithNeverRetryable(mine)
	assert.Equal(t, int32(5), got.MaximumAttempts)
	assert.ElementsMatch(t, append([]string{"MyError"}, vocab.NeverRetryableTypes()...), got.NonRetryableErrorTypes, "no duplicates, the caller's own kept")
	assert.Equal(t, []string{"MyError", temporaladk.TypeBudgetExceeded}, mine.NonRetryableErrorTypes, "the caller's policy is not changed")
	assert.ElementsMatch(t, vocab.NeverRetryableTypes(), policies.WithNeverRetryable(nil).NonRetryableErrorTypes)
}

func TestApply(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model)
	tool := mustDefault(t, temporaladk.Tool)
	callers := &temporal.RetryPolicy{MaximumAttempts: 5, InitialInterval: 3 * time.Second, NonRetryableErrorTypes: []string{"MyError"}}
	tests := []struct {
		name            string
		opts            workflow.ActivityOptions
		policy          policies.ActivityPolicy
		singleAttempt   bool
		wantSTC, wantHB time.Duration
		wantAttempts    int32
		wantInitial     time.Duration
		wantTypes       []string
	}{
		{name: "empty options take the class", policy: model, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 3, wantInitial: s},
		{name: "caller's StartToClose stays, window derived", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s}, policy: model, wantSTC: 120 * s, wantHB: 12 * s, wantAttempts: 3, wantInitial: s},
		{name: "caller's heartbeat stays", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s, HeartbeatTimeout: 7 * s}, policy: model, wantSTC: 120 * s, wantHB: 7 * s, wantAttempts: 3, wantInitial: s},
		{name: "TOOL with caller's StartToClose stays without heartbeat", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s}, policy: tool, wantSTC: 120 * s, wantAttempts: 1, wantInitial: 500 * time.Millisecond},
		{name: "caller's retry policy stays and gains the names", opts: workflow.ActivityOptions{RetryPolicy: callers}, policy: model, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 5, wantInitial: 3 * s, wantTypes: []string{"MyError"}},
		{name: "effectful: one attempt even in the caller's policy", opts: workflow.ActivityOptions{RetryPolicy: callers}, policy: tool, singleAttempt: true, wantSTC: 60 * s, wantAttempts: 1, wantInitial: 3 * s, wantTypes: []string{"MyError"}},
		{name: "effectful under a class of 3", policy: model, singleAttempt: true, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 1, wantInitial: s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.opts
			got, err := policies.Apply(tt.opts, tt.policy, tt.singleAttempt)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSTC, got.StartToCloseTimeout)
			assert.Equal(t, tt.wantHB, got.HeartbeatTimeout)
			require.NotNil(t, got.RetryPolicy)
			assert.Equal(t, tt.wantAttempts, got.RetryPolicy.MaximumAttempts)
			assert.Equal(t, tt.wantInitial, got.RetryPolicy.InitialInterval)
			assert.ElementsMatch(t, append(tt.wantTypes, vocab.NeverRetryableTypes()...), got.RetryPolicy.NonRetryableErrorTypes)
			assert.Equal(t, before, tt.opts, "the caller's options are not changed")
		})
	}
	assert.Equal(t, int32(5), callers.MaximumAttempts, "the caller's retry policy is not changed")
	assert.Equal(t, []string{"MyError"}, callers.NonRetryableErrorTypes)

	_, err := policies.Apply(workflow.ActivityOptions{}, policies.ActivityPolicy{}, false)
	assert.ErrorContains(t, err, "ActivityPolicy.Class")
}

func TestApplyLocal(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model)
	got, err := policies.ApplyLocal(workflow.LocalActivityOptions{}, model, false)
	require.NoError(t, err)
	assert.Equal(t, 900*s, got.StartToCloseTimeout)
	assert.Equal(t, int32(3), got.RetryPolicy.MaximumAttempts)
	assert.ElementsMatch(t, vocab.NeverRetryableTypes(), got.RetryPolicy.NonRetryableErrorTypes)

	callers := &temporal.RetryPolicy{MaximumAttempts: 5}
	got, err = policies.ApplyLocal(workflow.LocalActivityOptions{StartToCloseTimeout: 5 * s, RetryPolicy: callers}, model, true)
	require.NoError(t, err)
	assert.Equal(t, 5*s, got.StartToCloseTimeout)
	assert.Equal(t, int32(1), got.RetryPolicy.MaximumAttempts)
	assert.Equal(t, int32(5), callers.MaximumAttempts, "the caller's policy is not changed")
	sdkDefault := &temporal.RetryPolicy{InitialInterval: s, BackoffCoefficient: 2, MaximumInterval: 100 * s}
	got, err = policies.ApplyLocal(workflow.LocalActivityOptions{RetryPolicy: sdkDefault}, model, false)
	require.NoError(t, err)
	assert.Equal(t, int32(3), got.RetryPolicy.MaximumAttempts, "the SDK's filled-in default is not a policy the caller brought")

	_, err = policies.ApplyLocal(workflow.LocalActivityOptions{}, policies.ActivityPolicy{}, false)
	assert.ErrorContains(t, err, "ActivityPolicy.Class")
}
