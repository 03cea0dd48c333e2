package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ActivityName is the activity type of Model.Chat, as Register registers it
// and Declare declares it.
const ActivityName = "openai.Chat"

// Provider is the provider name the kit's errors carry.
const Provider = "openai"

// DefaultFirstTokenTimeout is how long a stream may take to deliver its
// first token when Options.FirstTokenTimeout is not set.
const DefaultFirstTokenTimeout = 60 * time.Second

// Options configure a Model.
type Options struct {
	// APIKey is sent as the bearer token. If not set, the OPENAI_API_KEY
	// environment variable, as the SDK reads it; New fails when both are
	// empty.
	APIKey string
	// BaseURL is the API's base URL. If not set, the SDK's (OPENAI_BASE_URL,
	// else https://api.openai.com/v1).
	BaseURL string
	// Model is the model of requests that name none. If not set, every
	// Request must name its model.
	Model string
	// FirstTokenTimeout is how long a stream may take to deliver its first
	// token before the attempt fails with a *temporaladk.ProviderTimeoutError.
	// If not set, DefaultFirstTokenTimeout. Must not be negative.
	FirstTokenTimeout time.Duration
	// HTTPClient makes the requests. If not set, the SDK's default client.
	HTTPClient *http.Client
	// RequestOptions are further SDK options (headers, organization, ...).
	// The SDK's own retries stay off whatever they say: Temporal retries,
	// and the kit decides the wait.
	RequestOptions []option.RequestOption
	// Now is the clock Retry-After dates are measured from. If not set,
	// time.Now.
	Now func() time.Time
}

// Model streams chat completions through the official OpenAI SDK as a MODEL
// activity. Build one with New.
type Model struct {
	client            sdk.Client
	model             string
	firstTokenTimeout time.Duration
	now               func() time.Time
}

// New checks opts and returns a Model. Bad options are an error naming the
// field.
func New(opts Options) (*Model, error) {
	if opts.FirstTokenTimeout < 0 {
		return nil, fmt.Errorf("openai: Options.FirstTokenTimeout is %v: it must not be negative (zero means the default)", opts.FirstTokenTimeout)
	}
	if err := providers.CheckBaseURL(opts.BaseURL); err != nil {
		return nil, fmt.Errorf("openai: Options.BaseURL: %w", err)
	}
	if opts.APIKey == "" && os.Getenv("OPENAI_API_KEY") == "" {
		return nil, errors.New("openai: Options.APIKey is empty and OPENAI_API_KEY is not set: the API needs a key")
	}
	for i, o := range opts.RequestOptions {
		if o == nil {
			return nil, fmt.Errorf("openai: Options.RequestOptions[%d] is nil", i)
		}
	}
	m := &Model{model: opts.Model, firstTokenTimeout: opts.FirstTokenTimeout, now: opts.Now}
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
		return errors.New("openai: Declare: opts is nil")
	}
	acts, err := providers.DeclareModel(opts.Activities, ActivityName)
	if err != nil {
		return fmt.Errorf("openai: Declare: Options.Activities: %w", err)
	}
	opts.Activities = acts
	return nil
}

// Register registers m.Chat on r as ActivityName.
func (m *Model) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(m.Chat, activity.RegisterOptions{Name: ActivityName})
}

// Message is one message of a conversation.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion.
type Request struct {
	// Model is the model. If not set, Options.Model.
	Model    string    `json:"model,omitempty"`
	Messages []Message `json:"messages"`
	// Conversation, if set, is the conversation before Messages, by
	// reference (a conversation.Log on the kit's payload store): the
	// activity reads it from the store, so that the workflow's call encodes
	// what the turn added, not the conversation.
	Conversation *conversation.Log[Message] `json:"conversation,omitempty"`
	// MaxTokens caps the completion. If not set, the provider's default.
	MaxTokens int64 `json:"max_tokens,omitempty"`
}

// Result is a finished completion.
type Result struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Text  string `json:"text"`
	// FinishReason is the provider's: "stop", "length", "tool_calls", ...
	FinishReason string `json:"finish_reason"`
	// Usage is the provider's count (prompt, completion and cached prompt
	// tokens); zero when it sent none.
	Usage providers.Usage `json:"usage"`
	// Chunks is how many chunks the stream delivered.
	Chunks int64 `json:"chunks"`
}

// Chat is the MODEL activity: it streams the completion of req and returns
// it whole. Its failures are the kit's errors (see Stream).
func (m *Model) Chat(ctx context.Context, req Request) (Result, error) {
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

func (m *Model) params(req Request) (sdk.ChatCompletionNewParams, error) {
	invalid := func(path, reason string) (sdk.ChatCompletionNewParams, error) {
		return sdk.ChatCompletionNewParams{}, &temporaladk.SchemaViolationError{Schema: "openai.Request", Path: path, Reason: reason}
	}
	model := req.Model
	if model == "" {
		model = m.model
	}
	if model == "" {
		return invalid("model", "is empty and Options.Model is not set")
	}
	if len(req.Messages) == 0 {
		return invalid("messages", "is empty: a chat completion needs at least one message")
	}
	if req.MaxTokens < 0 {
		return invalid("max_tokens", fmt.Sprintf("is %d: it must not be negative", req.MaxTokens))
	}
	params := sdk.ChatCompletionNewParams{Model: model}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "system":
			params.Messages = append(params.Messages, sdk.SystemMessage(msg.Content))
		case "user":
			params.Messages = append(params.Messages, sdk.UserMessage(msg.Content))
		case "assistant":
			params.Messages = append(params.Messages, sdk.AssistantMessage(msg.Content))
		default:
			return invalid(fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("is %q: want system, user or assistant", msg.Role))
		}
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(req.MaxTokens)
	}
	return params, nil
}

// Stream streams one chat completion with the SDK, for activities of your
// own: it feeds the call's heartbeater (temporaladk.HeartbeaterFrom) one
// chunk per SSE chunk and one token per chunk that carries content (counts,
// never text), hands the first choice's content deltas to the live stream
// with providers.ReportText as they arrive, and returns the completion of the
// first choice. The SDK makes exactly one HTTP request: its own retries are
// off. When the provider counted the call's tokens (its usage chunk, which
// Stream asks for), Stream reports them with providers.ReportUsage, whether
// the call then succeeds or fails, so that the kit settles the attempt's
// token budget with them.
//
// Failures are the kit's errors: a 429 is a *temporaladk.RateLimitError with
// the wait of retry-after-ms or Retry-After (a quota when the provider says
// insufficient_quota: never retried); a 400 is a non-retryable
// *temporaladk.ProviderError that says the request was rejected (with the
// provider's code, e.g. context_length_exceeded); a content-policy code, a
// content_filter finish or a refusal is a *temporaladk.GuardrailViolationError;
// other statuses are a *temporaladk.ProviderError with the status (the kit
// retries 408, 409, 425 and 5xx it knows); refused or reset connections and a
// stream that ends without its finish are a
// *temporaladk.ProviderUnavailableError; no first token within
// Options.FirstTokenTimeout is a *temporaladk.ProviderTimeoutError.
func (m *Model) Stream(ctx context.Context, params sdk.ChatCompletionNewParams, opts ...option.RequestOption) (Result, error) {
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
func (m *Model) stream(ctx context.Context, params sdk.ChatCompletionNewParams, opts []option.RequestOption) (Result, error) {
	// The usage comes in a last chunk only when asked for; the caller's other
	// stream options stay.
	params.StreamOptions.IncludeUsage = sdk.Bool(true)
	callCtx, first, err := providers.WatchFirstToken(ctx, Provider, m.firstTokenTimeout)
	if err != nil {
		return Result{}, err
	}
	defer first.Stop()
	opts = append(slices.Clone(opts), option.WithMaxRetries(0))
	stream := m.client.Chat.Completions.NewStreaming(callCtx, params, opts...)
	defer stream.Close()

	beats := temporaladk.HeartbeaterFrom(ctx)
	var (
		res     Result
		text    strings.Builder
		refusal bool
	)
	for stream.Next() {
		chunk := stream.Current()
		res.Chunks++
		res.ID, res.Model = chunk.ID, chunk.Model
		tokens := 0
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			if choice.Delta.Content != "" || choice.Delta.Refusal != "" || len(choice.Delta.ToolCalls) > 0 {
				tokens = 1
				first.Arrived()
			}
			text.WriteString(choice.Delta.Content)
			// The live stream gets what Result.Text is made of, as it comes;
			// a refusal is not the reply's text, so it is not reported.
			_, _ = providers.ReportText(ctx, providers.Text, choice.Delta.Content)
			refusal = refusal || choice.Delta.Refusal != ""
			if choice.FinishReason != "" {
				res.FinishReason = choice.FinishReason
			}
		}
		if chunk.Usage.CompletionTokens > 0 || chunk.Usage.PromptTokens > 0 {
			res.Usage = providers.Usage{
				InputTokens:       chunk.Usage.PromptTokens,
				OutputTokens:      chunk.Usage.CompletionTokens,
				CachedInputTokens: chunk.Usage.PromptTokensDetails.CachedTokens,
			}
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
	case res.FinishReason == "":
		return res, providers.DroppedStream(Provider, res.Chunks)
	case res.FinishReason == "content_filter":
		return res, &temporaladk.GuardrailViolationError{Guardrail: "openai content filter", Reason: "the provider stopped the completion (finish_reason content_filter)"}
	case refusal && text.Len() == 0:
		return res, &temporaladk.GuardrailViolationError{Guardrail: "openai refusal", Reason: "the model refused the request"}
	}
	res.Text = text.String()
	return res, nil
}

// contentPolicyCodes are the error codes OpenAI gives a request its content
// policy refuses.
var contentPolicyCodes = []string{"content_policy_violation", "content_filter"}

// mapError turns what the SDK returned into the kit's error.
func (m *Model) mapError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return m.statusError(apiErr)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		// An error event after the response began: the provider failed
		// mid-stream. No status, so the kit retries it.
		return &temporaladk.ProviderError{Provider: Provider, Message: "the stream carried an error event", Cause: err}
	}
	return providers.ClassifyHTTP(Provider, nil, err, m.now())
}

func (m *Model) statusError(apiErr *sdk.Error) error {
	kind := apiErr.Code
	if kind == "" {
		kind = apiErr.Type
	}
	if slices.Contains(contentPolicyCodes, apiErr.Code) {
		return &temporaladk.GuardrailViolationError{Guardrail: "openai content policy", Reason: "the provider refused the request (" + apiErr.Code + ")"}
	}
	if apiErr.StatusCode == http.StatusBadRequest || apiErr.StatusCode == http.StatusUnprocessableEntity {
		return providers.InvalidRequest(Provider, apiErr.StatusCode, kind)
	}
	var header http.Header
	if apiErr.Response != nil {
		header = apiErr.Response.Header
	}
	quota := apiErr.Code == "insufficient_quota" || apiErr.Type == "insufficient_quota"
	return providers.ClassifyStatus(Provider, apiErr.StatusCode, header, quota, m.now())
}
