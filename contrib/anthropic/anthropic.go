package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ActivityName is the activity type of Model.Message, as Register registers
// it and Declare declares it.
const ActivityName = "anthropic.Message"

// Provider is the provider name the kit's errors carry.
const Provider = "anthropic"

// DefaultFirstTokenTimeout is how long a stream may take to deliver its
// first token when Options.FirstTokenTimeout is not set.
const DefaultFirstTokenTimeout = 60 * time.Second

// Options configure a Model.
type Options struct {
	// APIKey is sent as the x-api-key header. If not set, the SDK's
	// credential chain (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ...); New
	// fails when APIKey, both variables and RequestOptions are all empty.
	APIKey string
	// BaseURL is the API's base URL. If not set, the SDK's
	// (ANTHROPIC_BASE_URL, else https://api.anthropic.com).
	BaseURL string
	// Model is the model of requests that name none. If not set, every
	// Request must name its model.
	Model string
	// MaxTokens is the max_tokens of requests that set none (the API
	// requires one). If not set, every Request must set it.
	MaxTokens int64
	// FirstTokenTimeout is how long a stream may take to deliver its first
	// token before the attempt fails with a *temporaladk.ProviderTimeoutError.
	// If not set, DefaultFirstTokenTimeout. Must not be negative.
	FirstTokenTimeout time.Duration
	// HTTPClient makes the requests. If not set, the SDK's default client.
	HTTPClient *http.Client
	// RequestOptions are further SDK options (headers, credentials, ...).
	// The SDK's own retries stay off whatever they say: Temporal retries,
	// and the kit decides the wait.
	RequestOptions []option.RequestOption
	// Now is the clock Retry-After dates are measured from. If not set,
	// time.Now.
	Now func() time.Time
}

// Model streams messages through the official Anthropic SDK as a MODEL
// activity. Build one with New.
type Model struct {
	client            sdk.Client
	model             string
	maxTokens         int64
	firstTokenTimeout time.Duration
	now               func() time.Time
}

// New checks opts and returns a Model. Bad options are an error naming the
// field.
func New(opts Options) (*Model, error) {
	if err := providers.CheckBaseURL(opts.BaseURL); err != nil {
		return nil, fmt.Errorf("anthropic: Options.BaseURL: %w", err)
	}
	switch {
	case opts.FirstTokenTimeout < 0:
		return nil, fmt.Errorf("anthropic: Options.FirstTokenTimeout is %v: it must not be negative (zero means the default)", opts.FirstTokenTimeout)
	case opts.MaxTokens < 0:
		return nil, fmt.Errorf("anthropic: Options.MaxTokens is %d: it must not be negative (zero means every request sets its own)", opts.MaxTokens)
	case opts.APIKey == "" && len(opts.RequestOptions) == 0 && os.Getenv("ANTHROPIC_API_KEY") == "" && os.Getenv("ANTHROPIC_AUTH_TOKEN") == "":
		return nil, errors.New("anthropic: Options.APIKey is empty and neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set: the API needs a credential")
	}
	for i, o := range opts.RequestOptions {
		if o == nil {
			return nil, fmt.Errorf("anthropic: Options.RequestOptions[%d] is nil", i)
		}
	}
	m := &Model{model: opts.Model, maxTokens: opts.MaxTokens, firstTokenTimeout: opts.FirstTokenTimeout, now: opts.Now}
	if m.firstTokenTimeout == 0 {
		m.firstTokenTimeout = DefaultFirstTokenTimeout
	}
	if m.now == nil {
		m.now = time.Now
	}
	reqOpts := slices.Clone(opts.RequestOptions)
	if opts.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(opts.APIKey))
	}
	if opts.BaseURL != "" {
		reqOpts = append(reqOpts, option.WithBaseURL(opts.BaseURL))
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	// Last, so that no option given above turns the SDK's retries back on.
	reqOpts = append(reqOpts, option.WithMaxRetries(0))
	m.client = sdk.NewClient(reqOpts...)
	return m, nil
}

// Declare adds the declaration of ActivityName to opts: class MODEL, so the
// call gets the MODEL policy (its timeout, heartbeat window and attempts)
// without a tag in workflow code. It fails if opts already declares the
// name differently.
func Declare(opts *interceptors.Options) error {
	if opts == nil {
		return errors.New("anthropic: Declare: opts is nil")
	}
	acts, err := providers.DeclareModel(opts.Activities, ActivityName)
	if err != nil {
		return fmt.Errorf("anthropic: Declare: Options.Activities: %w", err)
	}
	opts.Activities = acts
	return nil
}

// Register registers m.Message on r as ActivityName.
func (m *Model) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(m.Message, activity.RegisterOptions{Name: ActivityName})
}

// Message is one message of a conversation.
type Message struct {
	// Role is "system", "user" or "assistant". System messages become the
	// request's system prompt, in order.
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one message completion.
type Request struct {
	// Model is the model. If not set, Options.Model.
	Model    string    `json:"model,omitempty"`
	Messages []Message `json:"messages"`
	// Conversation, if set, is the conversation before Messages, by
	// reference (a conversation.Log on the kit's payload store): the
	// activity reads it from the store, so that the workflow's call encodes
	// what the turn added, not the conversation.
	Conversation *conversation.Log[Message] `json:"conversation,omitempty"`
	// MaxTokens caps the completion. If not set, Options.MaxTokens.
	MaxTokens int64 `json:"max_tokens,omitempty"`
}

// Result is a finished message.
type Result struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Text  string `json:"text"`
	// StopReason is the provider's: "end_turn", "max_tokens", "tool_use", ...
	StopReason string `json:"stop_reason"`
	// Usage is the provider's count. InputTokens are all the prompt's
	// tokens: Anthropic's input_tokens plus the ones read from and written
	// to its prompt cache; CachedInputTokens are the ones read from it
	// (cache_read_input_tokens).
	Usage providers.Usage `json:"usage"`
	// Chunks is how many events the stream delivered.
	Chunks int64 `json:"chunks"`
}

// Message is the MODEL activity: it streams the reply to req and returns it
// whole. Its failures are the kit's errors (see Stream).
func (m *Model) Message(ctx context.Context, req Request) (Result, error) {
	if req.Conversation != nil {
		earlier, err := req.Conversation.Messages(ctx)
		if err != nil {
			return Result{}, err
		}
		req.Messages = append(earlier, req.Messages...)
	}
	params, err := m.params(req)
	if err != nil {
		return Result{}, err
	}
	return m.Stream(ctx, params)
}

func (m *Model) params(req Request) (sdk.MessageNewParams, error) {
	invalid := func(path, reason string) (sdk.MessageNewParams, error) {
		return sdk.MessageNewParams{}, &temporaladk.SchemaViolationError{Schema: "anthropic.Request", Path: path, Reason: reason}
	}
	model, maxTokens := req.Model, req.MaxTokens
	if model == "" {
		model = m.model
	}
	if maxTokens == 0 {
		maxTokens = m.maxTokens
	}
	switch {
	case model == "":
		return invalid("model", "is empty and Options.Model is not set")
	case maxTokens < 0:
		return invalid("max_tokens", fmt.Sprintf("is %d: it must be positive", maxTokens))
	case maxTokens == 0:
		return invalid("max_tokens", "is not set and Options.MaxTokens is not set: the API requires it")
	}
	params := sdk.MessageNewParams{Model: model, MaxTokens: maxTokens}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "system":
			params.System = append(params.System, sdk.TextBlockParam{Text: msg.Content})
		case "user":
			params.Messages = append(params.Messages, sdk.NewUserMessage(sdk.NewTextBlock(msg.Content)))
		case "assistant":
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(sdk.NewTextBlock(msg.Content)))
		default:
			return invalid(fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("is %q: want system, user or assistant", msg.Role))
		}
	}
	if len(params.Messages) == 0 {
		return invalid("messages", "has no user or assistant message")
	}
	return params, nil
}

// Stream streams one message with the SDK, for activities of your own: it
// feeds the call's heartbeater (temporaladk.HeartbeaterFrom) one chunk per
// SSE event and one token per content delta (counts, never text), hands
// each text and thinking delta to the live stream with providers.ReportText
// as it arrives, and returns the text of the reply. The SDK makes exactly
// one HTTP request: its own retries are off. When the provider counted the
// call's tokens (in message_start and message_delta), Stream reports them
// with providers.ReportUsage, whether the call then succeeds or fails (a
// stream dropped after message_start reports its input tokens), so that the
// kit settles the attempt's token budget with them.
//
// Failures are the kit's errors: a 429 is a *temporaladk.RateLimitError with
// the wait of retry-after-ms or Retry-After; a billing_error is a quota
// *temporaladk.RateLimitError, never retried; a 400 is a non-retryable
// *temporaladk.ProviderError that says the request was rejected (a prompt
// that is too long says so); a refusal stop is a
// *temporaladk.GuardrailViolationError; other statuses, 529 (overloaded)
// among them, and error events mid-stream are a *temporaladk.ProviderError
// with the status (the kit decides which are retried); refused or reset
// connections and a stream that ends before message_stop are a
// *temporaladk.ProviderUnavailableError; no first token within
// Options.FirstTokenTimeout is a *temporaladk.ProviderTimeoutError.
func (m *Model) Stream(ctx context.Context, params sdk.MessageNewParams, opts ...option.RequestOption) (Result, error) {
	if i := slices.Index(opts, nil); i >= 0 {
		return Result{}, fmt.Errorf("%s: Stream: opts[%d] is nil", Provider, i)
	}
	res, err := m.stream(ctx, params, opts)
	if !res.Usage.IsZero() {
		// A count that fails Usage.Check is the provider's, not the caller's:
		// it is not reported, and the attempt's budget reservation stays.
		_, _ = providers.ReportUsage(ctx, res.Usage)
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// stream is Stream's call: its Result carries the usage the provider
// reported even when it fails.
func (m *Model) stream(ctx context.Context, params sdk.MessageNewParams, opts []option.RequestOption) (Result, error) {
	callCtx, first, err := providers.WatchFirstToken(ctx, Provider, m.firstTokenTimeout)
	if err != nil {
		return Result{}, err
	}
	defer first.Stop()
	opts = append(slices.Clone(opts), option.WithMaxRetries(0))
	stream := m.client.Messages.NewStreaming(callCtx, params, opts...)
	defer stream.Close()

	beats := temporaladk.HeartbeaterFrom(ctx)
	var (
		res     Result
		text    strings.Builder
		stopped bool
	)
	for stream.Next() {
		event := stream.Current()
		res.Chunks++
		tokens := 0
		switch event.Type {
		case "message_start":
			res.ID, res.Model = event.Message.ID, event.Message.Model
			u := event.Message.Usage
			res.Usage = providers.Usage{
				InputTokens:       u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
				OutputTokens:      u.OutputTokens,
				CachedInputTokens: u.CacheReadInputTokens,
			}
		case "content_block_delta":
			tokens = 1
			first.Arrived()
			switch event.Delta.Type {
			case "text_delta":
				text.WriteString(event.Delta.Text)
				_, _ = providers.ReportText(ctx, providers.Text, event.Delta.Text)
			case "thinking_delta":
				// Extended thinking goes to the live stream, never into the result.
				_, _ = providers.ReportText(ctx, providers.Reasoning, event.Delta.Thinking)
			}
		case "message_delta":
			res.StopReason = string(event.Delta.StopReason)
			// The delta's counts are cumulative; input counts come only in
			// some of them.
			u := event.Usage
			if u.OutputTokens > 0 {
				res.Usage.OutputTokens = u.OutputTokens
			}
			if in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens; in > 0 {
				res.Usage.InputTokens, res.Usage.CachedInputTokens = in, u.CacheReadInputTokens
			}
		case "message_stop":
			stopped = true
		}
		beats.Chunk(tokens)
	}
	if err := stream.Err(); err != nil {
		if timeout := first.Err(err); timeout != nil {
			return res, timeout
		}
		return res, m.mapError(err)
	}
	if first.Missed() {
		return res, first.Err(nil)
	}
	switch {
	case !stopped:
		return res, providers.DroppedStream(Provider, res.Chunks)
	case res.StopReason == string(sdk.StopReasonRefusal):
		return res, &temporaladk.GuardrailViolationError{Guardrail: "anthropic refusal", Reason: "the model refused the request (stop_reason refusal)"}
	}
	res.Text = text.String()
	return res, nil
}

// Anthropic's error types, as its error bodies and error events name them.
const (
	typeInvalidRequest = "invalid_request_error"
	typeBilling        = "billing_error"
	typeRateLimit      = "rate_limit_error"
	typeOverloaded     = "overloaded_error"
	typeAPI            = "api_error"
	typeTimeout        = "timeout_error"
)

// eventStatus is the status an error event mid-stream stands for: the
// response was a 200 before the provider failed.
var eventStatus = map[string]int{
	typeInvalidRequest: http.StatusBadRequest,
	typeRateLimit:      http.StatusTooManyRequests,
	typeAPI:            http.StatusInternalServerError,
	typeTimeout:        http.StatusGatewayTimeout,
	typeOverloaded:     529,
}

// mapError turns what the SDK returned into the kit's error.
func (m *Model) mapError(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return providers.ClassifyHTTP(Provider, nil, err, m.now())
	}
	errType := string(apiErr.Type())
	status := apiErr.StatusCode
	if status < http.StatusBadRequest {
		// An error event after the response began.
		status = eventStatus[errType]
		if status == 0 {
			return &temporaladk.ProviderError{Provider: Provider, Message: "the stream carried an error event (" + errType + ")"}
		}
	}
	switch {
	case errType == typeBilling:
		return &temporaladk.RateLimitError{Provider: Provider, Quota: true, Message: "billing_error: the account's credit or quota is exhausted"}
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge:
		kind := errType
		if strings.Contains(apiErr.Message, "prompt is too long") {
			kind = "prompt is too long: context length"
		}
		return providers.InvalidRequest(Provider, status, kind)
	}
	var header http.Header
	if apiErr.Response != nil {
		header = apiErr.Response.Header
	}
	return providers.ClassifyStatus(Provider, status, header, false, m.now())
}
