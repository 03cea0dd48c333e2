// Package anthropic turns the official Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2) into a MODEL activity of
// temporaladk: a streamed message whose event and token counts feed the
// kit's heartbeater (never its text), whose failures are the kit's errors,
// and whose retries are Temporal's alone (the SDK's own are switched off).
//
//	model, err := anthropic.New(anthropic.Options{APIKey: os.Getenv("ANTHROPIC_API_KEY"), Model: "claude-sonnet-4-5", MaxTokens: 1024})
//	err = anthropic.Declare(&kitOpts) // before interceptors.NewPlugin(kitOpts): class MODEL
//	model.Register(w)                 // on the worker: activity type anthropic.Message
//
//	// in a workflow:
//	var res anthropic.Result
//	err := workflow.ExecuteActivity(ctx, anthropic.ActivityName, anthropic.Request{Messages: msgs}).Get(ctx, &res)
//
// Model.Stream is the streaming loop on its own, for activities of your own
// that build the SDK's parameters themselves. Every attempt reports the
// provider's own count of input, output and cache-read input tokens with
// providers.ReportUsage, on success and on failure, whenever the provider
// sent one.
//
// Every call streams, and Stream hands each text_delta to providers.ReportText
// as providers.Text and each thinking_delta (extended thinking) as
// providers.Reasoning as it arrives, so that a person watching the kit's live
// stream (package live) reads the reply as the model writes it. The result is
// the same whether anyone watches or not; the thinking never enters it.
//
// How failures map (the kit decides what is retried and how long to wait):
//
//   - 429 rate_limit_error: *temporaladk.RateLimitError with the wait of
//     retry-after-ms, else Retry-After.
//   - billing_error: a quota *temporaladk.RateLimitError, never retried.
//   - 400 invalid_request_error and 413: a *temporaladk.ProviderError with
//     the status (never retried) whose message says the provider rejected
//     the request, and that the prompt is too long when it is.
//   - stop_reason refusal: *temporaladk.GuardrailViolationError.
//   - other statuses, 529 overloaded_error among them, and error events
//     mid-stream (with the status their type stands for):
//     *temporaladk.ProviderError with the status and the wait asked for.
//   - refused or reset connections, a stream that ends before message_stop:
//     *temporaladk.ProviderUnavailableError.
//   - no first token within Options.FirstTokenTimeout:
//     *temporaladk.ProviderTimeoutError.
//
// No part of the provider's error message goes into the kit's error: it may
// echo the prompt.
//
// This is its own Go module, so that the core module does not depend on the
// SDK. It is built on the core's public packages alone (providers for the
// error mapping, waits, first-token deadline and usage).
package anthropic
