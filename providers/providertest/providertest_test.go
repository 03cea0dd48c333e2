package providertest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/temporaladk"
)

func post(t *testing.T, ctx context.Context, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"prompt":"hi"}`))
	require.NoError(t, err)
	return http.DefaultClient.Do(req)
}

func TestServerCountsAndServesOnlyItsPath(t *testing.T) {
	t.Parallel()
	var seen []int64
	srv := providertest.NewServer(t, "/v1/chat", func(w http.ResponseWriter, r *http.Request, n int64) {
		seen = append(seen, n)
		_, _ = io.WriteString(w, "ok")
	})
	for range 2 {
		resp, err := post(t, context.Background(), srv.URL()+"/v1/chat")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "ok", string(body))
	}
	resp, err := http.Get(srv.URL() + "/v1/chat")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "a GET is not the API")
	assert.Equal(t, []int64{1, 2}, seen, "respond gets the request's number")
	assert.Equal(t, int64(3), srv.Requests(), "every request is counted")
}

func TestTransportFailuresMapToTheKit(t *testing.T) {
	t.Parallel()
	now := testclock.Epoch(t)
	srv := providertest.NewServer(t, "/p", func(w http.ResponseWriter, r *http.Request, n int64) {
		switch n {
		case 1:
			providertest.Reset(t, w)
		case 2:
			providertest.DropMidStream(t, w, "data: {}\n\n")
		default:
			providertest.Silent(w, r, ": ping\n\n")
		}
	})

	_, err := post(t, context.Background(), srv.URL()+"/p")
	providertest.AssertKitError(t, providers.ClassifyHTTP("p", nil, err, now), "p", "hi",
		providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})

	resp, err := post(t, context.Background(), srv.URL()+"/p")
	require.NoError(t, err, "the headers of a dropped stream arrive")
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "data: {}\n\n", string(body), "the chunk before the drop arrives")
	providertest.AssertKitError(t, providers.ClassifyHTTP("p", nil, err, now), "p", "hi",
		providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})

	ctx, cancel := context.WithCancel(context.Background())
	resp, err = post(t, ctx, srv.URL()+"/p")
	require.NoError(t, err)
	preamble := make([]byte, len(": ping\n\n"))
	_, err = io.ReadFull(resp.Body, preamble)
	require.NoError(t, err)
	assert.Equal(t, ": ping\n\n", string(preamble), "a silent stream sends its preamble, then nothing")
	cancel() // the client gives up; Silent returns
	resp.Body.Close()

	_, err = post(t, context.Background(), providertest.RefusedURL(t))
	providertest.AssertKitError(t, providers.ClassifyHTTP("p", nil, err, now), "p", "hi",
		providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})
}

func TestAssertKitErrorChecksTheFields(t *testing.T) {
	t.Parallel()
	err := &temporaladk.RateLimitError{Provider: "p", RetryAfter: 2 * time.Second, Message: "slow down"}
	providertest.AssertKitError(t, err, "p", "the prompt", providertest.Want{Type: temporaladk.TypeRateLimit, RetryAfter: 2 * time.Second, Retryable: true, Says: "slow down"})

	// A failing check fails the test it is given.
	for name, w := range map[string]providertest.Want{
		"type":        {Type: temporaladk.TypeProvider, RetryAfter: 2 * time.Second, Retryable: true},
		"wait":        {Type: temporaladk.TypeRateLimit, Retryable: true},
		"retryable":   {Type: temporaladk.TypeRateLimit, RetryAfter: 2 * time.Second},
		"says":        {Type: temporaladk.TypeRateLimit, RetryAfter: 2 * time.Second, Retryable: true, Says: "quota"},
		"prompt kept": {Type: temporaladk.TypeRateLimit, RetryAfter: 2 * time.Second, Retryable: true},
	} {
		rec := &recorder{TB: t}
		prompt := "the prompt"
		if name == "prompt kept" {
			prompt = "slow"
		}
		providertest.AssertKitError(rec, err, "p", prompt, w)
		assert.True(t, rec.failed, name)
	}
}

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true }
func (r *recorder) Helper()               {}

func TestRecordUsageKeepsEveryReport(t *testing.T) {
	t.Parallel()
	ctx, log := providertest.RecordUsage(t, context.Background())
	assert.Nil(t, log.Reports(), "nothing reported yet")
	for _, u := range []providers.Usage{{InputTokens: 3, OutputTokens: 1}, {InputTokens: 8, CachedInputTokens: 8}} {
		reported, err := providers.ReportUsage(ctx, u)
		require.NoError(t, err)
		assert.True(t, reported)
	}
	got := log.Reports()
	assert.Equal(t, []providers.Usage{{InputTokens: 3, OutputTokens: 1}, {InputTokens: 8, CachedInputTokens: 8}}, got)
	got[0].InputTokens = 99
	assert.Equal(t, int64(3), log.Reports()[0].InputTokens, "Reports is a copy")
}

func TestRecordUsageIsSafeForConcurrentReports(t *testing.T) {
	t.Parallel()
	ctx, log := providertest.RecordUsage(t, context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, _ = providers.ReportUsage(ctx, providers.Usage{OutputTokens: 1})
			_ = log.Reports()
		})
	}
	wg.Wait()
	assert.Len(t, log.Reports(), 8, "every concurrent report is kept (and -race sees no race)")
}
