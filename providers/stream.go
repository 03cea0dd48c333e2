package providers

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

	"github.com/temporaladk/adk-go/temporaladk"
)

// errNoFirstToken is the cause a FirstToken watch cancels its context with.
var errNoFirstToken = errors.New("no first token before the deadline")

// FirstToken is the deadline for the first token of a streamed call: if
// Arrived is not called within it, the call's context is cancelled, and Err
// turns the failure into a *temporaladk.ProviderTimeoutError. A provider that
// accepts the request and then sends nothing fails the attempt within the
// deadline instead of holding it until the heartbeat or StartToClose timeout.
type FirstToken struct {
	provider string
	within   time.Duration
	timer    *time.Timer
	once     sync.Once
	cancel   context.CancelCauseFunc
	ctx      context.Context
}

// WatchFirstToken returns a context for the call, derived from ctx, that is
// cancelled when no token arrived within d, and the watch. d must be greater
// than zero; provider names the provider in the error. Call Stop when the
// call is over, typically with defer.
func WatchFirstToken(ctx context.Context, provider string, d time.Duration) (context.Context, *FirstToken, error) {
	if ctx == nil {
		return nil, nil, errors.New("providers: WatchFirstToken: ctx is nil")
	}
	if d <= 0 {
		return nil, nil, fmt.Errorf("providers: WatchFirstToken: the deadline is %v: it must be greater than zero", d)
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	f := &FirstToken{provider: provider, within: d, cancel: cancel, ctx: callCtx}
	f.timer = time.AfterFunc(d, func() { cancel(errNoFirstToken) })
	return callCtx, f, nil
}

// Arrived stops the deadline: the first token came. Later calls do nothing.
func (f *FirstToken) Arrived() { f.once.Do(func() { f.timer.Stop() }) }

// Stop stops the deadline and releases the call's context.
func (f *FirstToken) Stop() {
	f.Arrived()
	f.cancel(context.Canceled)
}

// Missed reports whether the deadline passed without a token.
func (f *FirstToken) Missed() bool { return errors.Is(context.Cause(f.ctx), errNoFirstToken) }

// Err is the failure of a call that missed the deadline, a
// *temporaladk.ProviderTimeoutError with cause (what the stream returned,
// or nil), or nil when the deadline was not missed: the call's own error
// then stands.
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

// RetryAfter is the wait a provider asked for in its response headers, and
// whether it asked: retry-after-ms (milliseconds, possibly fractional, which
// OpenAI and Anthropic send) when it parses, else Retry-After (delay-seconds
// or an HTTP-date, read by ParseRetryAfter against now). A header that does
// not parse is ignored: it is the provider's, not the caller's input.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err == nil && ms >= 0 && !math.IsInf(ms, 0) && ms < float64(math.MaxInt64/int64(time.Millisecond)) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if h.Get("Retry-After") == "" {
		return 0, false
	}
	d, err := ParseRetryAfter(h.Get("Retry-After"), now)
	if err != nil {
		return 0, false
	}
	return d, true
}

// InvalidRequest is the error of a request the provider rejected as
// malformed or too long (HTTP 400 and its kin): a *temporaladk.ProviderError
// with the status, which the kit never retries, and a message that says the
// same request would fail the same way. kind names what the provider said
// ("context_length_exceeded", "invalid_request_error"); it may be empty. No
// part of the provider's message goes in: it may echo the prompt.
func InvalidRequest(provider string, status int, kind string) error {
	msg := "the provider rejected the request as invalid; the same request fails the same way"
	if kind != "" {
		msg = "the provider rejected the request (" + kind + "); the same request fails the same way"
	}
	return &temporaladk.ProviderError{Provider: provider, StatusCode: status, Message: msg}
}

// DroppedStream is the error of a stream that ended before the provider said
// the completion was finished (its final event, finish reason or stop): the
// connection was lost mid-way. It is a *temporaladk.ProviderUnavailableError,
// retried, and says how many chunks had come.
func DroppedStream(provider string, chunks int64) error {
	return &temporaladk.ProviderUnavailableError{
		Provider: provider,
		Message:  fmt.Sprintf("the stream ended after %d chunks without its final event", chunks),
	}
}

// CheckBaseURL checks a provider API's base URL as options give it: empty
// (the SDK's default) or an absolute http(s) URL with a host. The error names
// the value.
func CheckBaseURL(baseURL string) error {
	if baseURL == "" {
		return nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http(s) URL", baseURL)
	}
	return nil
}

// DeclareModel adds to activities (an interceptors.Options.Activities map,
// which may be nil) the declaration of activityName as class MODEL, so that
// its calls get the MODEL policy (timeout, heartbeat window, attempts)
// without a tag in workflow code, and returns the map. It fails when the map
// already declares the name with another class, or the name is empty.
func DeclareModel(activities map[string]temporaladk.Declaration, activityName string) (map[string]temporaladk.Declaration, error) {
	if activityName == "" {
		return activities, errors.New("providers: DeclareModel: the activity name is empty")
	}
	decl := temporaladk.Declaration{Class: temporaladk.Model}
	if have, ok := activities[activityName]; ok && have.Class != decl.Class {
		return activities, fmt.Errorf("providers: DeclareModel: %q is already declared with class %q", activityName, have.Class)
	}
	if activities == nil {
		activities = map[string]temporaladk.Declaration{}
	}
	activities[activityName] = decl
	return activities, nil
}
