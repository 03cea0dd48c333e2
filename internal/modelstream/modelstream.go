// Package modelstream holds what the provider contrib modules (contrib/openai,
// contrib/anthropic) share about one streamed model call: the deadline for
// the first token, the provider's wait headers, and the counting of chunks
// for the kit's heartbeater. It is internal: the contrib modules are its only
// users, and it may change with them.
package modelstream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
)

// errNoFirstToken is the cause a FirstToken watch cancels its context with.
var errNoFirstToken = errors.New("no first token before the deadline")

// FirstToken is the deadline for the first token of a stream: if Arrived is
// not called within it, the call's context is cancelled, and Err turns the
// failure into a *temporaladk.ProviderTimeoutError.
type FirstToken struct {
	provider string
	within   time.Duration
	timer    *time.Timer
	once     sync.Once
	cancel   context.CancelCauseFunc
	ctx      context.Context
}

// WatchFirstToken returns a context for the call that is cancelled when no
// token arrived within d. d must be greater than zero. Call Stop when the
// call is over.
func WatchFirstToken(ctx context.Context, provider string, d time.Duration) (context.Context, *FirstToken) {
	callCtx, cancel := context.WithCancelCause(ctx)
	f := &FirstToken{provider: provider, within: d, cancel: cancel, ctx: callCtx}
	f.timer = time.AfterFunc(d, func() { cancel(errNoFirstToken) })
	return callCtx, f
}

// Arrived stops the deadline: the first token came.
func (f *FirstToken) Arrived() { f.once.Do(func() { f.timer.Stop() }) }

// Stop stops the deadline and releases the call's context.
func (f *FirstToken) Stop() {
	f.Arrived()
	f.cancel(context.Canceled)
}

// Missed reports whether the deadline passed without a token.
func (f *FirstToken) Missed() bool { return errors.Is(context.Cause(f.ctx), errNoFirstToken) }

// Err is the failure of a call that missed the deadline, or nil.
func (f *FirstToken) Err(cause error) error {
	if !f.Missed() {
		return nil
	}
	return &temporaladk.ProviderTimeoutError{
		Provider: f.provider,
		Message:  fmt.Sprintf("no first token within %v", f.within),
		Cause:    cause,
	}
}

// RetryAfter is the wait a provider asked for in its response headers:
// retry-after-ms (milliseconds, which OpenAI and Anthropic send) when it
// parses, else Retry-After (seconds or an HTTP-date, read by
// temporaladk.ParseRetryAfter). A header that does not parse is ignored, as
// temporaladk.ClassifyHTTP ignores it: it is the provider's, not the
// caller's input.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err == nil && ms >= 0 && !math.IsInf(ms, 0) && ms < float64(math.MaxInt64/int64(time.Millisecond)) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	d, err := temporaladk.ParseRetryAfter(h.Get("Retry-After"), now)
	if err != nil || h.Get("Retry-After") == "" {
		return 0, false
	}
	return d, true
}

// StatusError turns a provider's error response into the kit's error:
// temporaladk.ClassifyHTTP decides the kind from the status (and a quota from
// the body), and the wait comes from RetryAfter, which also reads
// retry-after-ms. quota is what the provider's structured error said about a
// 429 being a quota.
func StatusError(provider string, resp *http.Response, quota bool, now time.Time) error {
	err := temporaladk.ClassifyHTTP(provider, resp, nil, now)
	wait, asked := RetryAfter(resp.Header, now)
	switch e := err.(type) {
	case *temporaladk.RateLimitError:
		e.Quota = e.Quota || quota
		if asked {
			e.RetryAfter = wait
		}
	case *temporaladk.ProviderError:
		if asked {
			e.RetryAfter = wait
		}
	}
	return err
}

// InvalidRequest is the error of a request the provider rejected as
// malformed or too long (HTTP 400 and its kin): a *temporaladk.ProviderError
// with the status, which the kit never retries, and a message that says the
// same request would fail the same way. kind names what the provider said
// ("context_length_exceeded", "invalid_request_error").
func InvalidRequest(provider string, status int, kind string) error {
	msg := "the provider rejected the request as invalid; the same request fails the same way"
	if kind != "" {
		msg = "the provider rejected the request (" + kind + "); the same request fails the same way"
	}
	return &temporaladk.ProviderError{Provider: provider, StatusCode: status, Message: msg}
}

// Dropped is the error of a stream that ended before the provider said the
// completion was finished: the connection was lost mid-way.
func Dropped(provider string, chunks int64) error {
	return &temporaladk.ProviderUnavailableError{
		Provider: provider,
		Message:  fmt.Sprintf("the stream ended after %d chunks without its final event", chunks),
	}
}

// CheckOptions checks the options both provider modules share, naming the
// field in pkg's Options: the base URL, when set, is an http(s) URL, and the
// first-token timeout is not negative.
func CheckOptions(pkg, baseURL string, firstTokenTimeout time.Duration) error {
	if firstTokenTimeout < 0 {
		return fmt.Errorf("%s: Options.FirstTokenTimeout is %v: it must not be negative (zero means the default)", pkg, firstTokenTimeout)
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: Options.BaseURL %q is not an http(s) URL", pkg, baseURL)
		}
	}
	return nil
}

// Declare adds the declaration of a model activity to opts: class MODEL, so
// the call gets the MODEL policy (its timeout, heartbeat window and
// attempts) without a tag in workflow code. It fails when opts already
// declares the name with another class. It is the one place the provider
// modules speak temporaladk.Declaration.
func Declare(opts *interceptors.Options, pkg, activityName string) error {
	if opts == nil {
		return fmt.Errorf("%s: Declare: opts is nil", pkg)
	}
	decl := temporaladk.Declaration{Class: temporaladk.Model}
	if have, ok := opts.Activities[activityName]; ok && have.Class != decl.Class {
		return fmt.Errorf("%s: Declare: Options.Activities[%q] is already declared with class %q", pkg, activityName, have.Class)
	}
	if opts.Activities == nil {
		opts.Activities = map[string]temporaladk.Declaration{}
	}
	opts.Activities[activityName] = decl
	return nil
}
