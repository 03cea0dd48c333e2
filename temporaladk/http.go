package temporaladk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// quotaMarkers are the words providers put in a 429 body when the limit is a
// spending or usage quota rather than a rate.
var quotaMarkers = [][]byte{[]byte("insufficient_quota"), []byte("quota_exceeded"), []byte("billing_hard_limit")}

// maxBodyPeek is how much of an error response body ClassifyHTTP reads to
// tell a quota from a rate limit.
const maxBodyPeek = 4 << 10

// ClassifyHTTP turns the outcome of an HTTP call to a provider into the kit's
// error for it, so that retries follow what the failure was:
//
//   - err is a timeout (a net.Error that timed out, context.DeadlineExceeded,
//     os.ErrDeadlineExceeded): *ProviderTimeoutError.
//   - err is a refused or reset connection, a DNS failure or a connection
//     closed early: *ProviderUnavailableError.
//   - err is context.Canceled: returned unchanged, it is not the provider's
//     fault.
//   - any other err: *ProviderError without a status (retryable).
//   - status 429: *RateLimitError, a quota when the body says so, with the
//     Retry-After header.
//   - any other status of 400 and above: *ProviderError with the status and
//     Retry-After; retryable for 408, 409, 425, 500, 502, 503, 504.
//   - otherwise: nil.
//
// now is the time a Retry-After HTTP-date is measured from. A Retry-After
// that does not parse is ignored: the provider's header is not the caller's
// input, and the kit's own backoff then applies.
//
// For error statuses up to 4 KiB of the body are read (to tell a quota
// from a rate limit) and the rest is left unread; the caller still closes
// the body. No part of the body is put in the error: it may echo what was
// sent.
func ClassifyHTTP(provider string, resp *http.Response, err error, now time.Time) error {
	if err != nil {
		return classifyTransportError(provider, err)
	}
	if resp == nil {
		return &ProviderError{Provider: provider, Message: "no response and no error"}
	}
	if resp.StatusCode < 400 {
		return nil
	}
	retryAfter, _ := ParseRetryAfter(resp.Header.Get("Retry-After"), now)
	if resp.StatusCode == http.StatusTooManyRequests {
		return &RateLimitError{
			Provider:   provider,
			Quota:      bodyMentionsQuota(resp),
			RetryAfter: retryAfter,
			Message:    "HTTP 429 " + http.StatusText(http.StatusTooManyRequests),
		}
	}
	return &ProviderError{
		Provider:   provider,
		StatusCode: resp.StatusCode,
		RetryAfter: retryAfter,
		Message:    strings.TrimSpace(http.StatusText(resp.StatusCode)),
	}
}

func bodyMentionsQuota(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	peek, _ := io.ReadAll(io.LimitReader(resp.Body, maxBodyPeek))
	for _, marker := range quotaMarkers {
		if bytes.Contains(peek, marker) {
			return true
		}
	}
	return false
}

func classifyTransportError(provider string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return &ProviderTimeoutError{Provider: provider, Cause: err}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &ProviderTimeoutError{Provider: provider, Cause: err}
	}
	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &dnsErr) {
		return &ProviderUnavailableError{Provider: provider, Cause: err}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return &ProviderUnavailableError{Provider: provider, Cause: err}
	}
	return &ProviderError{Provider: provider, Cause: err}
}

// ParseRetryAfter reads a Retry-After header value: delay-seconds ("120") or
// an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"), measured from now. A date
// in the past is a wait of zero. An empty value is (0, nil). Anything else is
// an error naming the value.
func ParseRetryAfter(value string, now time.Time) (time.Duration, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, nil
	}
	if isDigits(value) {
		secs, err := strconv.ParseInt(value, 10, 64)
		if err != nil || secs > int64(maxDurationSeconds) {
			return 0, fmt.Errorf("temporaladk: Retry-After %q is out of range", value)
		}
		return time.Duration(secs) * time.Second, nil
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, fmt.Errorf("temporaladk: Retry-After %q is neither delay-seconds nor an HTTP-date", value)
	}
	if wait := at.Sub(now); wait > 0 {
		return wait, nil
	}
	return 0, nil
}

const maxDurationSeconds = int64(1<<63-1) / int64(time.Second)

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
