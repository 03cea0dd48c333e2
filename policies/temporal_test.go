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
	for _, c := range vocab.Classes() {
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
	callers := &temporal.RetryPolicy{MaximumAttempts: 5, InitialInterval: 3 * time.Second, NonRetryableErrorTypes: []string{"MyError"}}
	effectful := &temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.Effectful}
	tests := []struct {
		name            string
		opts            workflow.ActivityOptions
		call            policies.Call
		wantSTC, wantHB time.Duration
		wantAttempts    int32
		wantInitial     time.Duration
		wantTypes       []string
	}{
		{name: "empty options take the class", call: policies.Call{Tag: temporaladk.Model}, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 3, wantInitial: s},
		{name: "caller's StartToClose stays, window derived", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s}, call: policies.Call{Tag: temporaladk.Model}, wantSTC: 120 * s, wantHB: 12 * s, wantAttempts: 3, wantInitial: s},
		{name: "caller's heartbeat stays", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s, HeartbeatTimeout: 7 * s}, call: policies.Call{Tag: temporaladk.Model}, wantSTC: 120 * s, wantHB: 7 * s, wantAttempts: 3, wantInitial: s},
		{name: "TOOL with caller's StartToClose stays without heartbeat", opts: workflow.ActivityOptions{StartToCloseTimeout: 120 * s}, call: policies.Call{Tag: temporaladk.Tool}, wantSTC: 120 * s, wantAttempts: 1, wantInitial: 500 * time.Millisecond},
		{name: "caller's retry policy stays and gains the names", opts: workflow.ActivityOptions{RetryPolicy: callers}, call: policies.Call{Tag: temporaladk.Model, Retry: callers}, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 5, wantInitial: 3 * s, wantTypes: []string{"MyError"}},
		{name: "effectful: one attempt even in the caller's policy", opts: workflow.ActivityOptions{RetryPolicy: callers}, call: policies.Call{Declaration: effectful, Retry: callers}, wantSTC: 60 * s, wantAttempts: 1, wantInitial: 3 * s, wantTypes: []string{"MyError"}},
		{name: "effectful under a class of 3", call: policies.Call{Tag: temporaladk.Model, Declaration: effectful}, wantSTC: 900 * s, wantHB: 60 * s, wantAttempts: 1, wantInitial: s},
		{name: "not planned: only the never-retryable types", opts: workflow.ActivityOptions{StartToCloseTimeout: 7 * s, RetryPolicy: callers}, call: policies.Call{Retry: callers}, wantSTC: 7 * s, wantAttempts: 5, wantInitial: 3 * s, wantTypes: []string{"MyError"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.opts
			tt.call.ActivityType = "Act"
			plan, _, err := policies.PlanCall(tt.call)
			require.NoError(t, err)
			got, err := policies.Apply(tt.opts, plan)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSTC, got.StartToCloseTimeout)
			assert.Equal(t, tt.wantHB, got.HeartbeatTimeout)
			require.NotNil(t, got.RetryPolicy)
			assert.Equal(t, tt.wantAttempts, got.RetryPolicy.MaximumAttempts)
			assert.Equal(t, tt.wantAttempts, plan.RetryPolicy.MaximumAttempts, "the plan holds the one attempt count")
			assert.Equal(t, tt.wantInitial, got.RetryPolicy.InitialInterval)
			assert.ElementsMatch(t, append(tt.wantTypes, vocab.NeverRetryableTypes()...), got.RetryPolicy.NonRetryableErrorTypes)
			assert.Equal(t, before, tt.opts, "the caller's options are not changed")
		})
	}
	assert.Equal(t, int32(5), callers.MaximumAttempts, "the caller's retry policy is not changed")
	assert.Equal(t, []string{"MyError"}, callers.NonRetryableErrorTypes)

	_, err := policies.Apply(workflow.ActivityOptions{}, policies.Plan{Class: temporaladk.Model})
	assert.ErrorContains(t, err, "ActivityPolicy.Class")
}

func TestApplyLocal(t *testing.T) {
	t.Parallel()
	plan := func(c policies.Call) policies.Plan {
		c.ActivityType, c.Local = "Act", true
		p, _, err := policies.PlanCall(c)
		require.NoError(t, err)
		return p
	}
	got, err := policies.ApplyLocal(workflow.LocalActivityOptions{}, plan(policies.Call{Tag: temporaladk.Model}))
	require.NoError(t, err)
	assert.Equal(t, 900*s, got.StartToCloseTimeout)
	assert.Equal(t, int32(3), got.RetryPolicy.MaximumAttempts)
	assert.ElementsMatch(t, vocab.NeverRetryableTypes(), got.RetryPolicy.NonRetryableErrorTypes)

	callers := &temporal.RetryPolicy{MaximumAttempts: 5}
	got, err = policies.ApplyLocal(workflow.LocalActivityOptions{StartToCloseTimeout: 5 * s, RetryPolicy: callers}, plan(policies.Call{Tag: temporaladk.Model, Retry: callers, Budgeted: true}))
	require.NoError(t, err)
	assert.Equal(t, 5*s, got.StartToCloseTimeout)
	assert.Equal(t, int32(1), got.RetryPolicy.MaximumAttempts, "a local activity under a budget gets the one attempt charged")
	assert.Equal(t, int32(5), callers.MaximumAttempts, "the caller's policy is not changed")
	sdkDefault := &temporal.RetryPolicy{InitialInterval: s, BackoffCoefficient: 2, MaximumInterval: 100 * s}
	got, err = policies.ApplyLocal(workflow.LocalActivityOptions{RetryPolicy: sdkDefault}, plan(policies.Call{Tag: temporaladk.Model, Retry: sdkDefault}))
	require.NoError(t, err)
	assert.Equal(t, int32(3), got.RetryPolicy.MaximumAttempts, "the SDK's filled-in default is not a policy the caller brought")

	unplanned := plan(policies.Call{Retry: sdkDefault})
	assert.Nil(t, unplanned.RetryPolicy, "a local activity the kit does not plan, without a budget, is left alone")
	budgeted := plan(policies.Call{Retry: sdkDefault, Budgeted: true})
	require.NotNil(t, budgeted.RetryPolicy)
	assert.Equal(t, int32(1), budgeted.RetryPolicy.MaximumAttempts, "one attempt under a budget, planned or not")

	_, err = policies.ApplyLocal(workflow.LocalActivityOptions{}, policies.Plan{Class: temporaladk.Model})
	assert.ErrorContains(t, err, "ActivityPolicy.Class")
}
