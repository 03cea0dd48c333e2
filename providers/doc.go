// Package providers is what a provider activity (a MODEL call to a model
// provider's API, over HTTP or through the provider's SDK) needs to fail,
// retry and report the way the kit expects: the kit's error for any outcome,
// the wait the provider asked for, a deadline for the first token of a
// stream, the error of a stream lost mid-way, and the usage of the attempt.
//
//	resp, err := client.Do(req)
//	if kerr := providers.ClassifyHTTP("acme", resp, err, time.Now()); kerr != nil {
//		return Reply{}, kerr // a 503 is retried after its Retry-After; a 400 never
//	}
//	_, _ = providers.ReportUsage(ctx, providers.Usage{InputTokens: in, OutputTokens: out})
//
// # Errors
//
// ClassifyHTTP turns an HTTP response or transport error into the kit's
// error (temporaladk.ProviderError, RateLimitError, ProviderTimeoutError,
// ProviderUnavailableError); ClassifyStatus does the same for a status an
// SDK has already read the body of. RetryableStatus says which statuses are
// worth another attempt: 408, 409, 425, 429, 500, 502, 503, 504 and 529.
// InvalidRequest and DroppedStream are the errors of a rejected request and
// of a stream that ended before its final event. No error carries any part
// of a response body: it may echo the prompt.
//
// # Waits
//
// RetryAfter reads the wait a provider asked for in every spelling it is
// sent: retry-after-ms (OpenAI, Anthropic), else Retry-After as
// delay-seconds or an HTTP-date (ParseRetryAfter).
//
// # Streams
//
// WatchFirstToken bounds the wait for the first token of a stream: a
// provider that accepts the request and then sends nothing fails the
// attempt with a retryable ProviderTimeoutError instead of holding it until
// the heartbeat timeout.
//
// # Usage
//
// ReportUsage hands the provider's own count of one call (Usage) to the
// recorder the kit's activity interceptor puts in the activity's context
// (WithUsageRecorder), which settles token and cost budgets with it.
//
// # Live text
//
// ReportText hands each delta of a streamed reply (or of the model's
// reasoning) to the reporter the kit's activity interceptor puts in the
// context when it has an observer (WithTextReporter), which a live stream
// publishes (package live); outside the kit it does nothing. It never
// fails or slows the call: the attempt's result is what it returns.
//
// Package providers/providertest holds stand-in servers and checks for the
// tests of provider activities. The contrib modules (contrib/openai,
// contrib/anthropic) are built on these two packages alone.
//
// ARCHITECTURE.md draws the path of one call, where the usage a provider
// reports settles its budgets.
package providers
