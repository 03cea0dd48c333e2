package providers

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

	"github.com/temporaladk/adk-go/temporaladk"
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
//     os.ErrDeadlineExceeded): *temporaladk.ProviderTimeoutError.
//   - err is a refused or reset connection, a DNS failure or a connection
//     closed early: *temporaladk.ProviderUnavailableError.
//   - err is context.Canceled: returned unchanged, it is not the provider's
//     fault.
//   - any other err: *temporaladk.ProviderError without a status
//     (retryable).
//   - status 429: *temporaladk.RateLimitError, a quota when the body says so
//     (never retried), else retryable, with the wait the provider asked for.
//   - any other status of 400 and above: *temporaladk.ProviderError with the
//     status and the wait asked for; retryable for 408, 409, 425, 500, 502,
//     503, 504 and 529 (overloaded), as RetryableStatus says.
//   - otherwise: nil.
//
// The wait is the one RetryAfter reads from the headers: retry-after-ms,
// else Retry-After. now is the time a Retry-After HTTP-date is measured
// from. A header that does not parse is ignored: it is the provider's, not
// the caller's input, and the kit's own backoff then applies.
//
// For a 429 up to 4 KiB of the body are read (to tell a quota from a rate
// limit) and the rest is left unread; the caller still closes the body. No
// part of the body is put in the error: it may echo what was sent.
func ClassifyHTTP(provider string, resp *http.Response, err error, now time.Time) error {
	if err != nil {
		return classifyTransportError(provider, err)
	}
	if resp == nil {
		return &temporaladk.ProviderError{Provider: provider, Message: "no response and no error"}
	}
	if resp.StatusCode < 400 {
		return nil
	}
	quota := resp.StatusCode == http.StatusTooManyRequests && bodyMentionsQuota(resp)
	return ClassifyStatus(provider, resp.StatusCode, resp.Header, quota, now)
}

// ClassifyStatus is ClassifyHTTP for an error status whose body a provider's
// SDK has already read: the kit's error from the status and the headers
// alone. quota says whether the provider's own error (its code or type) calls
// a 429 a spending quota rather than a rate limit; it is ignored for other
// statuses. A status below 400 is not an error status: ClassifyStatus
// returns a *temporaladk.ProviderError that says so, never nil, since the
// caller had a failure to classify.
func ClassifyStatus(provider string, status int, header http.Header, quota bool, now time.Time) error {
	wait, _ := RetryAfter(header, now)
	switch {
	case status == http.StatusTooManyRequests:
		return &temporaladk.RateLimitError{
			Provider:   provider,
			Quota:      quota,
			RetryAfter: wait,
			Message:    "HTTP 429 " + http.StatusText(http.StatusTooManyRequests),
		}
	case status < 400:
		return &temporaladk.ProviderError{Provider: provider, StatusCode: status, Message: fmt.Sprintf("status %d classified as a failure", status)}
	}
	return &temporaladk.ProviderError{
		Provider:   provider,
		StatusCode: status,
		RetryAfter: wait,
		Message:    strings.TrimSpace(http.StatusText(status)),
	}
}

// RetryableStatus reports whether an HTTP status from a provider is worth
// another attempt: 408, 409, 425, 429, 500, 502, 503, 504, and 529, which
// providers (Anthropic) answer when they are overloaded. Other 5xx (501 Not
// Implemented, 505) say the request cannot succeed: not retried. It is what
// (*temporaladk.ProviderError).Retryable decides for a status.
func RetryableStatus(code int) bool {
	return code > 0 && (&temporaladk.ProviderError{StatusCode: code}).Retryable()
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
		return &temporaladk.ProviderTimeoutError{Provider: provider, Cause: err}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &temporaladk.ProviderTimeoutError{Provider: provider, Cause: err}
	}
	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &dnsErr) {
		return &temporaladk.ProviderUnavailableError{Provider: provider, Cause: err}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return &temporaladk.ProviderUnavailableError{Provider: provider, Cause: err}
	}
	return &temporaladk.ProviderError{Provider: provider, Cause: err}
}

// ParseRetryAfter reads a Retry-After header value: delay-seconds ("120") or
// an HTTP-date in any of the three forms HTTP allows (IMF-fixdate "Wed, 21
// Oct 2015 07:28:00 GMT", RFC 850, asctime), measured from now. A date in
// the past is a wait of zero. An empty value is (0, nil). Anything else is an
// error naming the value.
func ParseRetryAfter(value string, now time.Time) (time.Duration, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, nil
	}
	if strings.TrimLeft(value, "0123456789") == "" {
		secs, err := strconv.ParseInt(value, 10, 64)
		if err != nil || secs > int64(maxDurationSeconds) {
			return 0, fmt.Errorf("providers: Retry-After %q is out of range", value)
		}
		return time.Duration(secs) * time.Second, nil
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, fmt.Errorf("providers: Retry-After %q is neither delay-seconds nor an HTTP-date", value)
	}
	if wait := at.Sub(now); wait > 0 {
		return wait, nil
	}
	return 0, nil
}

const maxDurationSeconds = int64(1<<63-1) / int64(time.Second)
