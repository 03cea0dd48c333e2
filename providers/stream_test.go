package providers_test

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

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/providers"
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
		got, asked := providers.RetryAfter(tt.header, now)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Equal(t, tt.asked, asked, tt.name)
	}
}

func TestClassifyStatusReadsEveryWaitAndTheQuota(t *testing.T) {
	t.Parallel()
	now := testclock.Epoch(t)
	var rl *temporaladk.RateLimitError
	require.ErrorAs(t, providers.ClassifyStatus("p", 429, http.Header{"Retry-After-Ms": {"250"}}, true, now), &rl)
	assert.True(t, rl.Quota)
	assert.False(t, rl.Retryable(), "a quota is never retried")
	assert.Equal(t, 250*time.Millisecond, rl.RetryAfter)

	require.ErrorAs(t, providers.ClassifyStatus("p", 429, nil, false, now), &rl)
	assert.False(t, rl.Quota)
	assert.True(t, rl.Retryable())
	assert.Zero(t, rl.RetryAfter, "no header, no wait")

	var pe *temporaladk.ProviderError
	require.ErrorAs(t, providers.ClassifyStatus("p", 503, http.Header{"Retry-After": {"3"}}, true, now), &pe)
	assert.Equal(t, 503, pe.StatusCode)
	assert.Equal(t, 3*time.Second, pe.RetryAfter)
	assert.True(t, pe.Retryable())

	require.ErrorAs(t, providers.ClassifyStatus("p", 200, nil, false, now), &pe, "a status that is no failure is still an error, never nil")
	assert.Contains(t, pe.Error(), "status 200")
}

func TestClassifyHTTPReadsRetryAfterMs(t *testing.T) {
	t.Parallel()
	now := testclock.Epoch(t)
	resp := &http.Response{StatusCode: 529, Header: http.Header{"Retry-After-Ms": {"1200"}, "Retry-After": {"9"}}}
	var pe *temporaladk.ProviderError
	require.ErrorAs(t, providers.ClassifyHTTP("anthropic", resp, nil, now), &pe)
	assert.Equal(t, 1200*time.Millisecond, pe.RetryAfter)
	assert.True(t, pe.Retryable(), "529 (overloaded) is retried")
}

func TestRetryableStatusIsTheErrorsDecision(t *testing.T) {
	t.Parallel()
	want := []int{408, 409, 425, 429, 500, 502, 503, 504, 529}
	var got []int
	for status := -1; status < 1000; status++ {
		if providers.RetryableStatus(status) {
			got = append(got, status)
		}
		if status > 0 {
			assert.Equal(t, providers.RetryableStatus(status), (&temporaladk.ProviderError{StatusCode: status}).Retryable(), "status %d", status)
		}
	}
	assert.Equal(t, want, got)
}

func TestFirstTokenDeadline(t *testing.T) {
	t.Parallel()
	ctx, first, err := providers.WatchFirstToken(context.Background(), "p", time.Millisecond)
	require.NoError(t, err)
	defer first.Stop()
	<-ctx.Done() // the deadline cancels the call
	assert.True(t, first.Missed())
	err = first.Err(ctx.Err())
	var timeout *temporaladk.ProviderTimeoutError
	require.ErrorAs(t, err, &timeout)
	assert.True(t, timeout.Retryable())
	assert.Equal(t, "p", timeout.Provider)
	assert.Contains(t, err.Error(), "no first token within 1ms")

	ctx, first, err = providers.WatchFirstToken(context.Background(), "p", time.Hour)
	require.NoError(t, err)
	first.Arrived()
	first.Arrived()
	assert.NoError(t, ctx.Err(), "a token stops the deadline")
	assert.False(t, first.Missed())
	assert.Nil(t, first.Err(errors.New("other")), "other failures are not a timeout")
	first.Stop()
	assert.Error(t, ctx.Err(), "Stop releases the call's context")
	assert.False(t, first.Missed(), "a released call did not miss its deadline")
}

func TestWatchFirstTokenRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		ctx, first, err := providers.WatchFirstToken(context.Background(), "p", d)
		assert.Nil(t, ctx)
		assert.Nil(t, first)
		assert.ErrorContains(t, err, "must be greater than zero", d)
	}
	//nolint:staticcheck // a nil context is the bad input under test
	_, _, err := providers.WatchFirstToken(nil, "p", time.Second)
	assert.ErrorContains(t, err, "ctx is nil")
}

func TestInvalidRequestAndDroppedStream(t *testing.T) {
	t.Parallel()
	var pe *temporaladk.ProviderError
	require.ErrorAs(t, providers.InvalidRequest("p", 400, "context_length_exceeded"), &pe)
	assert.Equal(t, 400, pe.StatusCode)
	assert.False(t, pe.Retryable(), "the same request fails the same way")
	assert.Contains(t, pe.Error(), "rejected the request (context_length_exceeded)")
	assert.Contains(t, providers.InvalidRequest("p", 422, "").Error(), "rejected the request as invalid")

	var un *temporaladk.ProviderUnavailableError
	require.ErrorAs(t, providers.DroppedStream("p", 7), &un)
	assert.True(t, un.Retryable())
	assert.Contains(t, un.Error(), "after 7 chunks")
}

func TestCheckBaseURL(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{"": true, "https://api.example.com/v1": true, "http://127.0.0.1:8080": true, "ftp://x": false, "http://": false, "api.example.com": false, "://": false} {
		err := providers.CheckBaseURL(in)
		if ok {
			assert.NoError(t, err, in)
		} else {
			assert.ErrorContains(t, err, "is not an http(s) URL", in)
		}
	}
}

func TestDeclareModel(t *testing.T) {
	t.Parallel()
	acts, err := providers.DeclareModel(nil, "acme.Chat")
	require.NoError(t, err)
	assert.Equal(t, temporaladk.Model, acts["acme.Chat"].Class)

	acts, err = providers.DeclareModel(acts, "acme.Chat")
	require.NoError(t, err, "declaring it again as MODEL is no clash")
	assert.Len(t, acts, 1)

	clash := map[string]temporaladk.Declaration{"acme.Chat": {Class: temporaladk.Tool}}
	_, err = providers.DeclareModel(clash, "acme.Chat")
	assert.ErrorContains(t, err, `"acme.Chat" is already declared with class "TOOL"`)
	assert.Equal(t, temporaladk.Tool, clash["acme.Chat"].Class, "a clash changes nothing")

	_, err = providers.DeclareModel(nil, "")
	assert.ErrorContains(t, err, "activity name is empty")
}

// The provider SDKs live in contrib modules of their own: the core module
// must not depend on them.
func TestCoreModuleDoesNotRequireProviderSDKs(t *testing.T) {
	t.Parallel()
	gomod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	for _, sdk := range []string{"openai-go", "anthropic-sdk-go", "modelcontextprotocol"} {
		assert.False(t, strings.Contains(string(gomod), sdk), "the core go.mod requires %s", sdk)
	}
}
