package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/anthropic"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func newModel(t *testing.T, baseURL string, firstToken time.Duration) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New(anthropic.Options{APIKey: "sk-ant-test", BaseURL: baseURL, Model: "claude-sonnet-4-5", MaxTokens: 256, FirstTokenTimeout: firstToken})
	require.NoError(t, err)
	return m
}

var hello = anthropic.Request{Messages: []anthropic.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "say hello"}}}

func TestMessageStreamsCountsAndReturnsTheReply(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 5, "hi", "end_turn", nil) })
	m := newModel(t, p.URL(), 0)
	var beats []temporaladk.Heartbeat
	hb, err := temporaladk.NewHeartbeater(func(b temporaladk.Heartbeat) { beats = append(beats, b) }, time.Minute, testsuite.NewFakeClock(testsuite.DefaultStartTime()), "message")
	require.NoError(t, err)
	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model, Heartbeater: hb})

	res, err := m.Message(ctx, hello)
	require.NoError(t, err)
	assert.Equal(t, "hihihihihi", res.Text)
	assert.Equal(t, "end_turn", res.StopReason)
	assert.Equal(t, providers.Usage{InputTokens: 25, OutputTokens: 5}, res.Usage)
	assert.Equal(t, "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", res.ID)
	assert.Equal(t, int64(10), res.Chunks, "start, block start, five deltas, block stop, delta, stop (the SDK drops pings)")
	snap := hb.Snapshot()
	assert.Equal(t, int64(10), snap.Chunks)
	assert.Equal(t, int64(5), snap.Tokens, "one token per content delta")
	assert.Empty(t, beats, "Chunk only counts")
	assert.Equal(t, int64(1), p.Requests())
}

func TestErrorsMapToTheKit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		respond    func(t *testing.T, w http.ResponseWriter, r *http.Request)
		firstToken time.Duration
		want       providertest.Want
	}{
		{"429 retry-after", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", map[string]string{"retry-after": "12", "anthropic-ratelimit-requests-remaining": "0"})
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, RetryAfter: 12 * time.Second, Retryable: true}},
		{"429 retry-after-ms", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 429, "rate_limit_error", "rate limited", map[string]string{"retry-after-ms": "250", "retry-after": "1"})
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, RetryAfter: 250 * time.Millisecond, Retryable: true}},
		{"billing quota", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 402, "billing_error", "Your credit balance is too low to access the Anthropic API.", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, Quota: true}},
		{"408", statusRow(408, "timeout_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 408, Retryable: true}},
		{"409", statusRow(409, "conflict_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 409, Retryable: true}},
		{"425", statusRow(425, "api_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 425, Retryable: true}},
		{"500", statusRow(500, "api_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 500, Retryable: true}},
		{"503", statusRow(503, "api_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 503, Retryable: true}},
		{"504", statusRow(504, "timeout_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 504, Retryable: true}},
		// 529 (overloaded) is retried, as providers.RetryableStatus says.
		{"529 overloaded", statusRow(529, "overloaded_error"), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 529, Retryable: true}},
		{"overloaded event mid-stream", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			io.WriteString(w, messageStart())
			io.WriteString(w, textDelta("half"))
			io.WriteString(w, event("error", map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}}))
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 529, Retryable: true}},
		{"api_error event mid-stream", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			io.WriteString(w, messageStart())
			io.WriteString(w, event("error", map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "Internal server error"}}))
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 500, Retryable: true}},
		{"400 prompt too long", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 400, Says: "rejected the request (prompt is too long: context length)"}},
		{"400 invalid request", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 400, "invalid_request_error", "messages: roles must alternate", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 400, Says: "rejected the request (invalid_request_error)"}},
		{"refusal", func(t *testing.T, w http.ResponseWriter, r *http.Request) { streamOf(w, 1, "I", "refusal", nil) },
			0, providertest.Want{Type: temporaladk.TypeGuardrailViolation, Says: "refusal"}},
		{"connection reset", func(t *testing.T, w http.ResponseWriter, r *http.Request) { providertest.Reset(t, w) },
			0, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true}},
		{"stream dropped mid-way", func(t *testing.T, w http.ResponseWriter, r *http.Request) { dropMidStream(t, w, 3) },
			0, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true}},
		{"no first token", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			providertest.Silent(w, r, silentPreamble())
		},
			100 * time.Millisecond, providertest.Want{Type: temporaladk.TypeProviderTimeout, Retryable: true, Says: "no first token within 100ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { tt.respond(t, w, r) })
			_, err := newModel(t, p.URL(), tt.firstToken).Message(context.Background(), hello)
			assertKitError(t, err, tt.want)
			assert.Equal(t, int64(1), p.Requests(), "the SDK made exactly one request: its retries are off")
		})
	}
}

func TestConnectionRefusedIsUnavailable(t *testing.T) {
	t.Parallel()
	_, err := newModel(t, providertest.RefusedURL(t), 0).Message(context.Background(), hello)
	assertKitError(t, err, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})
}

func statusRow(status int, errType string) func(t *testing.T, w http.ResponseWriter, r *http.Request) {
	return func(t *testing.T, w http.ResponseWriter, r *http.Request) {
		apiError(w, status, errType, http.StatusText(status), nil)
	}
}

func assertKitError(t *testing.T, err error, w providertest.Want) {
	t.Helper()
	providertest.AssertKitError(t, err, anthropic.Provider, hello.Messages[1].Content, w)
}

func TestMessageRefusesBadRequestsBeforeCalling(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "x", "end_turn", nil) })
	m, err := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: p.URL()})
	require.NoError(t, err)
	user := []anthropic.Message{{Role: "user", Content: "x"}}
	for name, req := range map[string]anthropic.Request{
		"model":            {Messages: user, MaxTokens: 10},
		"max_tokens":       {Model: "m", Messages: user},
		"messages":         {Model: "m", MaxTokens: 10, Messages: []anthropic.Message{{Role: "system", Content: "x"}}},
		"messages[0].role": {Model: "m", MaxTokens: 10, Messages: []anthropic.Message{{Role: "tool", Content: "x"}}},
	} {
		_, err := m.Message(context.Background(), req)
		var sv *temporaladk.SchemaViolationError
		require.ErrorAs(t, err, &sv, name)
		assert.Equal(t, name, sv.Path)
	}
	assert.Zero(t, p.Requests(), "nothing was sent")
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	for _, tt := range []struct {
		opts anthropic.Options
		says string
	}{
		{anthropic.Options{APIKey: "k", FirstTokenTimeout: -time.Second}, "FirstTokenTimeout"},
		{anthropic.Options{APIKey: "k", MaxTokens: -1}, "MaxTokens"},
		{anthropic.Options{APIKey: "k", BaseURL: "ftp://x"}, "BaseURL"},
		{anthropic.Options{}, "APIKey"},
		{anthropic.Options{APIKey: "k", RequestOptions: []option.RequestOption{nil}}, "RequestOptions[0]"},
	} {
		m, err := anthropic.New(tt.opts)
		assert.Nil(t, m)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.says)
	}
}

func TestDeclare(t *testing.T) {
	t.Parallel()
	var opts interceptors.Options
	require.NoError(t, anthropic.Declare(&opts))
	assert.Equal(t, temporaladk.Model, opts.Activities[anthropic.ActivityName].Class)
	_, err := interceptors.NewPlugin(opts)
	require.NoError(t, err)
	clash := interceptors.Options{Activities: map[string]temporaladk.Declaration{anthropic.ActivityName: {Class: temporaladk.Tool}}}
	require.ErrorContains(t, anthropic.Declare(&clash), "already declared")
	require.Error(t, anthropic.Declare(nil))
}

func TestStreamRefusesANilOption(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "x", "end_turn", nil) })
	_, err := newModel(t, p.URL(), 0).Stream(context.Background(), sdk.MessageNewParams{Model: "m", MaxTokens: 1}, nil)
	require.ErrorContains(t, err, "opts[0] is nil")
	assert.Zero(t, p.Requests())
}

func TestMessageReportsTheProvidersUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		respond func(t *testing.T, w http.ResponseWriter)
		fails   bool
		want    []providers.Usage
	}{
		{"success", func(t *testing.T, w http.ResponseWriter) { streamOf(w, 3, "ok", "end_turn", nil) },
			false, []providers.Usage{{InputTokens: 25, OutputTokens: 3}}},
		{"success with the prompt cache", func(t *testing.T, w http.ResponseWriter) {
			sseHeaders(w)
			io.WriteString(w, messageStartUsage(map[string]any{"input_tokens": 25, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 24, "output_tokens": 1}))
			io.WriteString(w, textDelta("ok"))
			io.WriteString(w, event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 7}}))
			io.WriteString(w, event("message_stop", map[string]any{"type": "message_stop"}))
		}, false, []providers.Usage{{InputTokens: 1049, OutputTokens: 7, CachedInputTokens: 1000}}},
		{"stream dropped after message_start reports its input", func(t *testing.T, w http.ResponseWriter) { dropMidStream(t, w, 2) },
			true, []providers.Usage{{InputTokens: 25, OutputTokens: 1}}},
		{"refusal", func(t *testing.T, w http.ResponseWriter) { streamOf(w, 1, "no", "refusal", nil) },
			true, []providers.Usage{{InputTokens: 25, OutputTokens: 1}}},
		{"529 before the stream reports nothing", func(t *testing.T, w http.ResponseWriter) {
			apiError(w, 529, "overloaded_error", "Overloaded", nil)
		}, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { tt.respond(t, w) })
			ctx, log := providertest.RecordUsage(t, context.Background())
			_, err := newModel(t, p.URL(), 0).Message(ctx, hello)
			if tt.fails {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, log.Reports())
		})
	}
}

// reported is one providers.ReportText call of an activity under test.
type reported struct {
	kind providers.TextKind
	text string
}

// recordText returns ctx carrying a text reporter, as the kit's activity
// interceptor installs one for an attempt, and the reports it appends to.
// The reporter runs on the goroutine of the activity, here the test's.
func recordText(t *testing.T, ctx context.Context) (context.Context, *[]reported) {
	t.Helper()
	var log []reported
	ctx, err := providers.WithTextReporter(ctx, func(kind providers.TextKind, text string) {
		log = append(log, reported{kind, text})
	})
	require.NoError(t, err)
	return ctx, &log
}

// joined is the concatenation of the reports of kind.
func joined(log []reported, kind providers.TextKind) string {
	var b strings.Builder
	for _, r := range log {
		if r.kind == kind {
			b.WriteString(r.text)
		}
	}
	return b.String()
}

// streamed is what a script streams to a watcher: the reports it should get
// (each non-empty text delta as Text, each non-empty thinking delta as
// Reasoning, no signature, in order) and the reply's text.
func streamed(script []scriptedDelta) ([]reported, string) {
	var (
		want []reported
		text strings.Builder
	)
	for _, d := range script {
		var kind providers.TextKind
		switch d.kind {
		case "text_delta":
			kind = providers.Text
			text.WriteString(d.value)
		case "thinking_delta":
			kind = providers.Reasoning
		default:
			continue
		}
		if d.value != "" {
			want = append(want, reported{kind, d.value})
		}
	}
	return want, text.String()
}

func TestMessageReportsEachDeltaAsItArrives(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		script []scriptedDelta
	}{
		{"text, an empty delta among its deltas", []scriptedDelta{
			{"text_delta", "Hel"}, {"text_delta", "lo"}, {"text_delta", ""}, {"text_delta", ", wor"},
			{"text_delta", "ld — naïve 🙂"}, {"text_delta", "\n"}, {"text_delta", "!"},
		}},
		{"thinking, then text", []scriptedDelta{
			{"thinking_delta", "The user wants "}, {"thinking_delta", ""}, {"thinking_delta", "a greeting."},
			{"signature_delta", "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
			{"text_delta", "Hello"}, {"text_delta", ", you"}, {"text_delta", "."},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamScript(w, tt.script) })
			m := newModel(t, p.URL(), 0)
			want, wantText := streamed(tt.script)

			ctx, log := recordText(t, context.Background())
			res, err := m.Message(ctx, hello)
			require.NoError(t, err)
			assert.Equal(t, want, *log, "one report per delta, in order, of its kind, none empty")
			assert.Equal(t, wantText, res.Text)
			assert.Equal(t, res.Text, joined(*log, providers.Text), "the text deltas make up the result's text")

			plain, err := m.Message(context.Background(), hello)
			require.NoError(t, err)
			assert.Equal(t, plain, res, "with no reporter, the same result")
		})
	}
}

func TestMessageReportsTheDeltasOfAFailedAttempt(t *testing.T) {
	t.Parallel()
	const arrived = 3
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { dropMidStream(t, w, arrived) })
	ctx, log := recordText(t, context.Background())
	_, err := newModel(t, p.URL(), 0).Message(ctx, hello)
	assertKitError(t, err, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})
	assert.Equal(t, slices.Repeat([]reported{{providers.Text, droppedWord}}, arrived), *log,
		"what arrived before the drop was shown; the attempt still fails")
}

// deltaObserver records the deltas the kit hands its observer.
type deltaObserver struct {
	observe.Base
	mu     sync.Mutex
	deltas []observe.Delta
	of     []observe.Attempt
}

func (o *deltaObserver) TextDelta(_ context.Context, a observe.Attempt, d observe.Delta) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.deltas, o.of = append(o.deltas, d), append(o.of, a)
}

// MessageWorkflow calls the model once, with the policy the kit declares
// for it.
func MessageWorkflow(ctx workflow.Context, req anthropic.Request) (anthropic.Result, error) {
	var res anthropic.Result
	err := workflow.ExecuteActivity(ctx, anthropic.ActivityName, req).Get(ctx, &res)
	return res, err
}

func TestMessageStreamsToTheKitsObserver(t *testing.T) {
	t.Parallel()
	script := []scriptedDelta{
		{"thinking_delta", "A French "}, {"thinking_delta", "greeting."}, {"signature_delta", "c2ln"},
		{"text_delta", "Bon"}, {"text_delta", "jour"}, {"text_delta", ""}, {"text_delta", " à vous"},
	}
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamScript(w, script) })
	obs := &deltaObserver{}
	opts := interceptors.Options{Observer: obs}
	require.NoError(t, anthropic.Declare(&opts))
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, opts)
	require.NoError(t, err)
	newModel(t, p.URL(), 0).Register(env)
	env.RegisterWorkflow(MessageWorkflow)

	env.ExecuteWorkflow(MessageWorkflow, hello)
	require.NoError(t, env.GetWorkflowError())
	var res anthropic.Result
	require.NoError(t, env.GetWorkflowResult(&res))

	reports, text := streamed(script)
	want := make([]observe.Delta, len(reports))
	for i, r := range reports {
		want[i] = observe.Delta{Kind: r.kind, Text: r.text, Seq: i + 1}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, want, obs.deltas, "the observer (a live stream) gets the thinking and the reply, numbered in order")
	assert.Equal(t, text, res.Text)
	for _, a := range obs.of {
		assert.Equal(t, anthropic.ActivityName, a.ActivityType)
		assert.Equal(t, temporaladk.Model, a.Class)
		assert.Equal(t, 1, a.Number)
	}
}
