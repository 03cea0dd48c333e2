package policies_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestBackoffWindow(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model).Retry // 1s × 2^(n-1), max 30s
	tests := []struct {
		n    int
		want time.Duration
	}{{0, s}, {1, s}, {2, 2 * s}, {3, 4 * s}, {5, 16 * s}, {6, 30 * s}, {1000, 30 * s}, {math.MaxInt, 30 * s}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, model.BackoffWindow(tt.n), "attempt %d", tt.n)
	}
	noCap := model
	noCap.MaxInterval = 0
	assert.Equal(t, 100*s, noCap.BackoffWindow(60), "a zero MaxInterval is 100 × InitialInterval, as Temporal reads it")
	huge := policies.RetryConfig{MaxAttempts: 3, InitialInterval: time.Duration(math.MaxInt64 / 2), BackoffCoefficient: 2}
	assert.Greater(t, huge.BackoffWindow(10), time.Duration(0), "never overflows")
	// Found by FuzzActivityPolicy: a zero InitialInterval and MaxInterval
	// with a large coefficient and attempt made 0 × +Inf = NaN, converted to
	// a negative window.
	zero := policies.RetryConfig{MaxAttempts: 3, BackoffCoefficient: 50.166666666666664}
	assert.Zero(t, zero.BackoffWindow(185), "a zero InitialInterval is a zero window")
}

func TestFullJitter(t *testing.T) {
	t.Parallel()
	r := mustDefault(t, temporaladk.Model).Retry
	tests := []struct {
		n    int
		u    float64
		want time.Duration
	}{
		{1, 0, 0},
		{1, 0.5, 500 * time.Millisecond},
		{3, 0.25, s},
		{3, 0.999999, 3999996 * time.Microsecond},
		{10, 0.5, 15 * s},
	}
	for _, tt := range tests {
		got, err := r.FullJitter(tt.n, tt.u)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "attempt %d, u %v", tt.n, tt.u)
		assert.Less(t, got, r.BackoffWindow(tt.n)+1, "inside the window")
		d, err := r.JitterDecision(tt.n, tt.u)
		require.NoError(t, err)
		assert.Equal(t, temporaladk.RetryDecision{Source: "jitter", Requested: tt.want, Wait: tt.want}, d)
	}
	for _, u := range []float64{-0.1, 1, 1.5, math.NaN(), math.Inf(1)} {
		_, err := r.FullJitter(1, u)
		assert.ErrorContains(t, err, "is not in [0, 1)", "u %v", u)
	}
}

func TestTruncateWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		wait, timeout, elapsed time.Duration
		want                   time.Duration
		truncated, final       bool
		reason                 string
	}{
		{name: "fits: unchanged", wait: 2 * s, timeout: 60 * s, elapsed: s, want: 2 * s},
		{name: "cut to what is left: no time for the attempt", wait: 30 * s, timeout: 10 * s, elapsed: 8 * s, want: 2 * s, truncated: true, final: true, reason: "wait of 30s cut to 2s: that is what is left of the 10s deadline, no time for another attempt"},
		{name: "just fits", wait: 2*s - 1, timeout: 10 * s, elapsed: 8 * s, want: 2*s - 1},
		{name: "nothing left", wait: 30 * s, timeout: 10 * s, elapsed: 10 * s, want: 0, truncated: true, final: true, reason: "no time left of the 10s deadline"},
		{name: "past the deadline", wait: s, timeout: 10 * s, elapsed: 12 * s, want: 0, truncated: true, final: true, reason: "of the 10s deadline"},
		{name: "exactly what is left: final, not cut", wait: 2 * s, timeout: 10 * s, elapsed: 8 * s, want: 2 * s, final: true, reason: "no time for another attempt"},
		{name: "no deadline", wait: time.Hour, timeout: 0, elapsed: time.Hour, want: time.Hour},
		{name: "no wait and no time", wait: 0, timeout: 10 * s, elapsed: 10 * s, want: 0, final: true, reason: "no time left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := policies.Fit(temporaladk.RetryDecision{Requested: tt.wait, Wait: tt.wait}, tt.timeout, tt.elapsed)
			assert.Equal(t, tt.want, d.Wait)
			assert.Equal(t, tt.wait, d.Requested)
			assert.Equal(t, tt.truncated, d.Truncated)
			assert.Equal(t, tt.final, d.Final)
			if tt.reason == "" {
				assert.Empty(t, d.Reason)
			} else {
				assert.Contains(t, d.Reason, tt.reason)
				assert.Contains(t, d.Reason, "deadline", "the reason names the deadline")
			}
		})
	}
}

func TestFitKeepsTheDecision(t *testing.T) {
	t.Parallel()
	r := mustDefault(t, temporaladk.Model).Retry
	honoured := r.RetryAfterDecision(2 * s)
	assert.Equal(t, temporaladk.RetryDecision{Source: "retry-after", Requested: 2 * s, Wait: 2 * s}, honoured)
	fitted := policies.Fit(honoured, 10*s, 9*s)
	assert.Equal(t, "retry-after", fitted.Source)
	assert.Equal(t, s, fitted.Wait)
	assert.True(t, fitted.Truncated)

	beyond := r.RetryAfterDecision(61 * s)
	assert.True(t, beyond.Final, "a Retry-After beyond MaxRetryAfter stops")
	assert.Zero(t, beyond.Wait)
	assert.Contains(t, beyond.Reason, "beyond MaxRetryAfter 1m0s")
	assert.Equal(t, beyond, policies.Fit(beyond, 10*s, 0), "a final decision stays final")

	assert.False(t, r.RetryAfterDecision(60*s).Final, "exactly MaxRetryAfter is honoured")
	none := r
	none.MaxRetryAfter = 0
	assert.True(t, none.RetryAfterDecision(s).Final, "a zero MaxRetryAfter honours none")
}

func TestRetryConfigActivityAttempts(t *testing.T) {
	t.Parallel()
	r := mustDefault(t, temporaladk.Retrieval).Retry
	a := r.ActivityAttempts()
	assert.Equal(t, r, a.Retry, "the loop follows the class's retry settings")
	assert.Nil(t, a.Random, "jitter from math/rand/v2 unless set")
	assert.Nil(t, a.Clock, "the real clock unless set")
}
