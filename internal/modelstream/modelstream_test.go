package modelstream_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/modelstream"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestRetryAfterPrefersMilliseconds(t *testing.T) {
	t.Parallel()
	now := testclock.Epoch(t)
	for _, tt := range []struct {
		name   string
		header http.Header
		want   time.Duration
		asked  bool
	}{
		{"ms", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond, true},
		{"fractional ms", http.Header{"Retry-After-Ms": {"0.5"}}, 500 * time.Microsecond, true},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second, true},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).UTC().Format(http.TimeFormat)}}, 90 * time.Second, true},
		{"bad ms falls back to seconds", http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"2"}}, 2 * time.Second, true},
		{"negative ms", http.Header{"Retry-After-Ms": {"-1"}}, 0, false},
		{"garbage", http.Header{"Retry-After": {"later"}}, 0, false},
		{"none", http.Header{}, 0, false},
	} {
		got, asked := modelstream.RetryAfter(tt.header, now)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Equal(t, tt.asked, asked, tt.name)
	}
}

func TestStatusErrorKeepsTheKitsClassification(t *testing.T) {
	t.Parallel()
	now := time.Now()
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After-Ms": {"250"}}}
	var rl *temporaladk.RateLimitError
	require.ErrorAs(t, modelstream.StatusError("p", resp, true, now), &rl)
	assert.True(t, rl.Quota)
	assert.Equal(t, 250*time.Millisecond, rl.RetryAfter)

	resp = &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"3"}}}
	var pe *temporaladk.ProviderError
	require.ErrorAs(t, modelstream.StatusError("p", resp, false, now), &pe)
	assert.Equal(t, 503, pe.StatusCode)
	assert.Equal(t, 3*time.Second, pe.RetryAfter)
}

func TestFirstTokenDeadline(t *testing.T) {
	t.Parallel()
	ctx, first := modelstream.WatchFirstToken(context.Background(), "p", time.Millisecond)
	defer first.Stop()
	<-ctx.Done() // the deadline cancels the call
	err := first.Err(ctx.Err())
	var timeout *temporaladk.ProviderTimeoutError
	require.ErrorAs(t, err, &timeout)
	assert.Contains(t, err.Error(), "no first token within 1ms")

	ctx, first = modelstream.WatchFirstToken(context.Background(), "p", time.Hour)
	first.Arrived()
	assert.NoError(t, ctx.Err(), "a token stops the deadline")
	assert.Nil(t, first.Err(errors.New("other")), "other failures are not a timeout")
	first.Stop()
	assert.Error(t, ctx.Err(), "Stop releases the call's context")
}

// The provider SDKs live in contrib modules of their own: the core module
// must not depend on them.
func TestCoreModuleDoesNotRequireProviderSDKs(t *testing.T) {
	t.Parallel()
	gomod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	for _, sdk := range []string{"openai-go", "anthropic-sdk-go", "modelcontextprotocol"} {
		assert.False(t, strings.Contains(string(gomod), sdk), "the core go.mod requires %s", sdk)
	}
}
