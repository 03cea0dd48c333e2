package policies_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestDecideWait(t *testing.T) {
	t.Parallel()
	retry := policies.RetryConfig{MaxAttempts: 3, InitialInterval: 10 * s, BackoffCoefficient: 2, MaxInterval: 30 * s, MaxRetryAfter: 20 * s}
	blip := &temporaladk.ProviderError{StatusCode: 503}
	tests := []struct {
		name    string
		in      policies.WaitInput
		want    temporaladk.RetryDecision
		draws   int
		reasons string
	}{
		{name: "never-retryable", in: policies.WaitInput{Err: &temporaladk.BudgetExceededError{}}, want: temporaladk.RetryDecision{Final: true}, reasons: "never retried"},
		{name: "not retryable", in: policies.WaitInput{Err: &temporaladk.ProviderError{StatusCode: 400}}, want: temporaladk.RetryDecision{Final: true}, reasons: "not retryable"},
		{name: "outside the hierarchy", in: policies.WaitInput{Err: errors.New("disk full")}, want: temporaladk.RetryDecision{Final: true}, reasons: "outside the kit's hierarchy"},
		{name: "out of attempts", in: policies.WaitInput{Err: blip, Attempt: 3}, want: temporaladk.RetryDecision{Final: true}, reasons: "attempt 3 of 3"},
		{name: "jitter", in: policies.WaitInput{Err: blip, Attempt: 2}, want: temporaladk.RetryDecision{Source: "jitter", Requested: 10 * s, Wait: 10 * s}, draws: 1},
		{name: "jitter fitted", in: policies.WaitInput{Err: blip, Attempt: 2, HasDeadline: true, Left: 4 * s}, want: temporaladk.RetryDecision{Source: "jitter", Requested: 10 * s, Wait: 4 * s, Truncated: true, Final: true}, draws: 1, reasons: "no time for another attempt"},
		{name: "Retry-After", in: policies.WaitInput{Err: &temporaladk.RateLimitError{RetryAfter: 3 * s}, Attempt: 1}, want: temporaladk.RetryDecision{Source: "retry-after", Requested: 3 * s, Wait: 3 * s}},
		{name: "Retry-After beyond MaxRetryAfter", in: policies.WaitInput{Err: &temporaladk.RateLimitError{RetryAfter: 21 * s}, Attempt: 1}, want: temporaladk.RetryDecision{Source: "retry-after", Requested: 21 * s, Final: true}, reasons: "beyond MaxRetryAfter"},
		{name: "unlimited attempts", in: policies.WaitInput{Err: blip, Attempt: 50, MaxAttempts: -1}, want: temporaladk.RetryDecision{Source: "jitter", Requested: 15 * s, Wait: 15 * s}, draws: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			draws := 0
			tt.in.Retry = retry
			if tt.in.MaxAttempts == 0 {
				tt.in.MaxAttempts = retry.MaxAttempts
			}
			tt.in.Random = func() float64 { draws++; return 0.5 }
			got, err := policies.DecideWait(tt.in)
			require.NoError(t, err)
			reason := got.Reason
			got.Reason = ""
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.draws, draws, "the random source is drawn from only for a jitter wait")
			if tt.reasons == "" {
				assert.Empty(t, reason)
			} else {
				assert.Contains(t, reason, tt.reasons)
			}
		})
	}
	_, err := policies.DecideWait(policies.WaitInput{Err: blip, Attempt: 1, MaxAttempts: 3, Retry: retry})
	assert.ErrorContains(t, err, "WaitInput.Random is nil")
	_, err = policies.DecideWait(policies.WaitInput{Err: blip, Attempt: 1, MaxAttempts: 3, Retry: retry, Random: func() float64 { return 1 }})
	assert.ErrorContains(t, err, "jitter draw 1 is not in [0, 1)")
	d, err := policies.DecideWait(policies.WaitInput{Err: &temporaladk.GuardrailViolationError{}})
	require.NoError(t, err, "a decision that draws nothing needs no random source")
	assert.True(t, d.Final)
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	assert.False(t, policies.Retryable(&temporaladk.GuardrailViolationError{}))
	assert.False(t, policies.Retryable(errors.New("outside")))
	assert.False(t, policies.Retryable(nil))
	assert.True(t, policies.Retryable(&temporaladk.ProviderError{StatusCode: 529}))
	assert.False(t, policies.Retryable(&temporaladk.RateLimitError{Quota: true}))
	assert.True(t, policies.Retryable(&temporaladk.ToolFailureError{Transient: true}))
}
