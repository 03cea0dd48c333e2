// Package openai turns the official OpenAI Go SDK
// (github.com/openai/openai-go/v3) into a MODEL activity of temporaladk: a
// streamed chat completion whose chunk and token counts feed the kit's
// heartbeater (never its text), whose failures are the kit's errors, and
// whose retries are Temporal's alone (the SDK's own are switched off).
//
//	model, err := openai.New(openai.Options{APIKey: os.Getenv("OPENAI_API_KEY"), Model: "gpt-4o-mini"})
//	err = openai.Declare(&kitOpts) // before interceptors.NewPlugin(kitOpts): class MODEL
//	model.Register(w)              // on the worker: activity type openai.Chat
//
//	// in a workflow:
//	var res openai.Result
//	err := workflow.ExecuteActivity(ctx, openai.ActivityName, openai.Request{Messages: msgs}).Get(ctx, &res)
//
// Model.Stream is the streaming loop on its own, for activities of your own
// that build the SDK's parameters themselves. Every attempt reports the
// provider's own count of prompt, completion and cached prompt tokens with
// providers.ReportUsage, on success and on failure, whenever the provider
// sent one.
//
// Every call streams, and Stream hands each content delta of the reply to
// providers.ReportText as it arrives, so that a person watching the kit's live
// stream (package live) reads the reply as the model writes it. The result is
// the same whether anyone watches or not. Chat Completions streams no
// reasoning, and a refusal is not reported: it is not the reply's text.
//
// How failures map (the kit decides what is retried and how long to wait):
//
//   - 429: *temporaladk.RateLimitError with the wait of retry-after-ms, else
//     Retry-After; insufficient_quota makes it a quota, never retried.
//   - 400 and 422: a *temporaladk.ProviderError with the status (never
//     retried) whose message says the provider rejected the request and
//     names its code (context_length_exceeded, invalid_request_error, ...).
//   - content_policy_violation, a content_filter finish, a refusal without
//     content: *temporaladk.GuardrailViolationError.
//   - other statuses (408, 409, 425, 5xx, ...): *temporaladk.ProviderError
//     with the status and the wait asked for.
//   - refused or reset connections, a stream that ends before its finish:
//     *temporaladk.ProviderUnavailableError; an error event mid-stream: a
//     *temporaladk.ProviderError without a status.
//   - no first token within Options.FirstTokenTimeout:
//     *temporaladk.ProviderTimeoutError.
//
// No part of the provider's error message goes into the kit's error: it may
// echo the prompt. Only its code does.
//
// This is its own Go module, so that the core module does not depend on the
// SDK. It is built on the core's public packages alone (providers for the
// error mapping, waits, first-token deadline and usage).
package openai
