package providers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

func response(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func TestClassifyHTTPStatuses(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	for status := 200; status < 600; status++ {
		if http.StatusText(status) == "" && status != 425 {
			continue
		}
		err := providers.ClassifyHTTP("openai", response(status, nil, ""), nil, now)
		if status < 400 {
			assert.NoError(t, err, status)
			continue
		}
		kit, ok := temporaladk.AsError(err)
		require.True(t, ok, "status %d gives a kit error", status)
		want := status == 408 || status == 409 || status == 425 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504 || status == 529
		assert.Equal(t, want, kit.Retryable(), "status %d", status)
		if status == 429 {
			assert.IsType(t, &temporaladk.RateLimitError{}, kit)
		} else {
			var pe *temporaladk.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, status, pe.StatusCode)
			assert.Equal(t, "openai", pe.Provider)
		}
	}
}

func TestClassifyHTTPRetryAfter(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	err := providers.ClassifyHTTP("p", response(429, http.Header{"Retry-After": {"2"}}, `{"error":{"code":"rate_limit_exceeded"}}`), nil, now)
	var rl *temporaladk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 2*time.Second, rl.RetryAfter)
	assert.False(t, rl.Quota)
	assert.True(t, rl.Retryable())

	err = providers.ClassifyHTTP("p", response(503, http.Header{"Retry-After": {now.Add(90 * time.Second).UTC().Format(http.TimeFormat)}}, ""), nil, now)
	var pe *temporaladk.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 90*time.Second, pe.RetryAfter)

	err = providers.ClassifyHTTP("p", response(503, http.Header{"Retry-After": {"soon"}}, ""), nil, now)
	require.ErrorAs(t, err, &pe)
	assert.Zero(t, pe.RetryAfter, "an unreadable Retry-After is ignored")
}

func TestClassifyHTTPQuota(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	body := `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`
	err := providers.ClassifyHTTP("openai", response(429, nil, body), nil, now)
	var rl *temporaladk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.True(t, rl.Quota)
	assert.False(t, rl.Retryable(), "a quota does not come back by waiting")
	assert.NotContains(t, err.Error(), "exceeded your current quota", "no part of the body goes into the error")
}

func TestClassifyHTTPTransportErrors(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	// A port nothing listens on: the connection is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := http.Get("http://" + closedAddr + "/")
	require.Error(t, refused)

	// A server that resets the connection.
	resetSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, herr := w.(http.Hijacker).Hijack()
		if herr == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}))
	defer resetSrv.Close()
	_, reset := http.Get(resetSrv.URL)
	require.Error(t, reset)

	// A server that never answers before the client's deadline.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	client := &http.Client{Timeout: 50 * time.Millisecond}
	_, timedOut := client.Get(slow.URL)
	require.Error(t, timedOut)

	tests := []struct {
		name string
		err  error
		want any
	}{
		{"refused", refused, &temporaladk.ProviderUnavailableError{}},
		{"reset", reset, &temporaladk.ProviderUnavailableError{}},
		{"client timeout", timedOut, &temporaladk.ProviderTimeoutError{}},
		{"deadline", fmt.Errorf("stream: %w", context.DeadlineExceeded), &temporaladk.ProviderTimeoutError{}},
		{"dns", &net.DNSError{Err: "no such host", Name: "model.invalid", IsNotFound: true}, &temporaladk.ProviderUnavailableError{}},
		{"dropped stream", io.ErrUnexpectedEOF, &temporaladk.ProviderUnavailableError{}},
		{"other", errors.New("tls: bad certificate"), &temporaladk.ProviderError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := providers.ClassifyHTTP("p", nil, tt.err, now)
			assert.IsType(t, tt.want, got)
			assert.ErrorIs(t, got, tt.err, "the transport error stays the cause")
			kit, ok := temporaladk.AsError(got)
			require.True(t, ok)
			assert.True(t, kit.Retryable())
		})
	}

	canceled := fmt.Errorf("call: %w", context.Canceled)
	assert.Same(t, canceled, providers.ClassifyHTTP("p", nil, canceled, now), "a canceled call is not the provider's fault")
	assert.IsType(t, &temporaladk.ProviderError{}, providers.ClassifyHTTP("p", nil, nil, now), "no response and no error is still an error")
}

// rfc850 is the obsolete HTTP-date form RFC 9110 still asks recipients to
// read; http.TimeFormat is only right for a time in UTC.
const rfc850 = "Monday, 02-Jan-06 15:04:05 GMT"

func TestParseRetryAfter(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "", want: 0},
		{in: "0", want: 0},
		{in: "2", want: 2 * time.Second},
		{in: " 120 ", want: 120 * time.Second},
		{in: now.Add(30 * time.Second).UTC().Format(http.TimeFormat), want: 30 * time.Second},
		{in: now.Add(time.Minute).UTC().Format(rfc850), want: time.Minute},
		{in: now.Add(-time.Hour).UTC().Format(http.TimeFormat), want: 0},
		{in: "-1", wantErr: `"-1" is neither`},
		{in: "1.5", wantErr: `"1.5" is neither`},
		{in: "99999999999999999999", wantErr: "out of range"},
		{in: "tomorrow", wantErr: `"tomorrow" is neither`},
	}
	for _, tt := range tests {
		got, err := providers.ParseRetryAfter(tt.in, now)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	now := testclock.Epoch(f)
	for _, seed := range []string{"", "2", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e9", "99999999999999999999", "Sunday, 30-Nov-26 12:01:00 GMT"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		d, err := providers.ParseRetryAfter(value, now)
		if err == nil && d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v: a wait is never negative", value, d)
		}
		if err != nil && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) returned %v with an error", value, d)
		}
	})
}

func TestClassifyHTTPReadsAt4KiBOfA429Body(t *testing.T) {
	now := testclock.Epoch(t)
	t.Parallel()
	padding := strings.Repeat(" ", 4<<10)
	body := strings.NewReader(padding + `{"error":{"code":"insufficient_quota"}}`)
	err := providers.ClassifyHTTP("p", &http.Response{StatusCode: 429, Header: http.Header{}, Body: io.NopCloser(body)}, nil, now)
	var rl *temporaladk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.False(t, rl.Quota, "a marker past the first 4 KiB is not read")
	assert.Equal(t, int64(len(`{"error":{"code":"insufficient_quota"}}`)), int64(body.Len()), "the rest of the body is left unread")

	body = strings.NewReader(`{"error":"x"}`)
	_ = providers.ClassifyHTTP("p", &http.Response{StatusCode: 503, Header: http.Header{}, Body: io.NopCloser(body)}, nil, now)
	assert.Equal(t, len(`{"error":"x"}`), body.Len(), "the body of another status is not read")
}
