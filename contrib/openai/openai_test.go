package openai_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func newModel(t *testing.T, baseURL string, firstToken time.Duration) *openai.Model {
	t.Helper()
	m, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: baseURL, Model: "gpt-4o-mini", FirstTokenTimeout: firstToken})
	require.NoError(t, err)
	return m
}

var hello = openai.Request{Messages: []openai.Message{{Role: "user", Content: "say hello"}}}

func TestChatStreamsCountsAndReturnsTheCompletion(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 5, "hi", "stop", nil) })
	m := newModel(t, p.URL(), 0)
	var beats []temporaladk.Heartbeat
	hb, err := temporaladk.NewHeartbeater(func(b temporaladk.Heartbeat) { beats = append(beats, b) }, time.Minute, testsuite.NewFakeClock(testsuite.DefaultStartTime()), "chat")
	require.NoError(t, err)
	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model, Heartbeater: hb})

	res, err := m.Chat(ctx, hello)
	require.NoError(t, err)
	assert.Equal(t, "hihihihihi", res.Text)
	assert.Equal(t, "stop", res.FinishReason)
	assert.Equal(t, providers.Usage{InputTokens: 9, OutputTokens: 5}, res.Usage)
	assert.Equal(t, int64(8), res.Chunks, "role, five contents, finish, usage")
	snap := hb.Snapshot()
	assert.Equal(t, int64(8), snap.Chunks, "every chunk counted")
	assert.Equal(t, int64(5), snap.Tokens, "one token per content chunk")
	assert.Empty(t, beats, "Chunk only counts: the interceptor beats, on its interval")
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
		{"429 retry-after-ms", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 429, "requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o-mini", map[string]string{"retry-after-ms": "1500", "retry-after": "2"})
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, RetryAfter: 1500 * time.Millisecond, Retryable: true}},
		{"429 Retry-After seconds", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 429, "tokens", "rate_limit_exceeded", "Rate limit reached", map[string]string{"Retry-After": "7"})
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, RetryAfter: 7 * time.Second, Retryable: true}},
		{"429 insufficient quota", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeRateLimit, Quota: true}},
		{"408", statusRow(408), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 408, Retryable: true}},
		{"409", statusRow(409), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 409, Retryable: true}},
		{"425", statusRow(425), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 425, Retryable: true}},
		{"500", statusRow(500), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 500, Retryable: true}},
		{"502", statusRow(502), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 502, Retryable: true}},
		{"503 with Retry-After", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 503, "server_error", "", "The server is overloaded", map[string]string{"Retry-After": "3"})
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 503, RetryAfter: 3 * time.Second, Retryable: true}},
		{"504", statusRow(504), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 504, Retryable: true}},
		// 529 (overloaded) is retried, as providers.RetryableStatus says.
		{"529", statusRow(529), 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 529, Retryable: true}},
		{"400 context length", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 400, Says: "rejected the request (context_length_exceeded)"}},
		{"400 invalid request", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 400, "invalid_request_error", "", "Invalid value for 'messages'", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Status: 400, Says: "rejected the request (invalid_request_error)"}},
		{"400 content policy", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			apiError(w, 400, "invalid_request_error", "content_policy_violation", "Your request was rejected as a result of our safety system.", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeGuardrailViolation, Says: "content_policy_violation"}},
		{"finish content_filter", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			streamOf(w, 2, "so", "content_filter", nil)
		}, 0, providertest.Want{Type: temporaladk.TypeGuardrailViolation, Says: "content_filter"}},
		{"connection reset", func(t *testing.T, w http.ResponseWriter, r *http.Request) { providertest.Reset(t, w) },
			0, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true}},
		{"stream dropped mid-way", func(t *testing.T, w http.ResponseWriter, r *http.Request) { dropMidStream(t, w, 3) },
			0, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true}},
		{"error event mid-stream", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			_, _ = w.Write([]byte("data: " + chunk("half", "") + "\n\n"))
			_, _ = w.Write([]byte(`data: {"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}` + "\n\n"))
		}, 0, providertest.Want{Type: temporaladk.TypeProvider, Retryable: true, Says: "error event"}},
		{"no first token", func(t *testing.T, w http.ResponseWriter, r *http.Request) { providertest.Silent(w, r, "") },
			100 * time.Millisecond, providertest.Want{Type: temporaladk.TypeProviderTimeout, Retryable: true, Says: "no first token within 100ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { tt.respond(t, w, r) })
			_, err := newModel(t, p.URL(), tt.firstToken).Chat(context.Background(), hello)
			assertKitError(t, err, tt.want)
			assert.Equal(t, int64(1), p.Requests(), "the SDK made exactly one request: its retries are off")
		})
	}
}

func TestConnectionRefusedIsUnavailable(t *testing.T) {
	t.Parallel()
	_, err := newModel(t, providertest.RefusedURL(t), 0).Chat(context.Background(), hello)
	assertKitError(t, err, providertest.Want{Type: temporaladk.TypeProviderUnavailable, Retryable: true})
}

func statusRow(status int) func(t *testing.T, w http.ResponseWriter, r *http.Request) {
	return func(t *testing.T, w http.ResponseWriter, r *http.Request) {
		apiError(w, status, "server_error", "", http.StatusText(status), nil)
	}
}

func assertKitError(t *testing.T, err error, w providertest.Want) {
	t.Helper()
	providertest.AssertKitError(t, err, openai.Provider, hello.Messages[0].Content, w)
}

func TestChatRefusesBadRequestsBeforeCalling(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "x", "stop", nil) })
	m, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: p.URL()})
	require.NoError(t, err)
	for name, req := range map[string]openai.Request{
		"model":            {Messages: hello.Messages},
		"messages":         {Model: "gpt-4o-mini"},
		"messages[0].role": {Model: "gpt-4o-mini", Messages: []openai.Message{{Role: "tool", Content: "x"}}},
		"max_tokens":       {Model: "gpt-4o-mini", Messages: hello.Messages, MaxTokens: -1},
	} {
		_, err := m.Chat(context.Background(), req)
		var sv *temporaladk.SchemaViolationError
		require.ErrorAs(t, err, &sv, name)
		assert.Equal(t, name, sv.Path)
		assert.False(t, sv.Retryable())
	}
	assert.Zero(t, p.Requests(), "nothing was sent")
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	for _, tt := range []struct {
		opts openai.Options
		says string
	}{
		{openai.Options{APIKey: "k", FirstTokenTimeout: -time.Second}, "FirstTokenTimeout"},
		{openai.Options{APIKey: "k", BaseURL: "ftp://x"}, "BaseURL"},
		{openai.Options{APIKey: "k", BaseURL: "http://"}, "BaseURL"},
		{openai.Options{}, "APIKey"},
		{openai.Options{APIKey: "k", RequestOptions: []option.RequestOption{nil}}, "RequestOptions[0]"},
	} {
		m, err := openai.New(tt.opts)
		assert.Nil(t, m)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.says)
	}
}

func TestDeclare(t *testing.T) {
	t.Parallel()
	var opts interceptors.Options
	require.NoError(t, openai.Declare(&opts))
	assert.Equal(t, temporaladk.Model, opts.Activities[openai.ActivityName].Class)
	_, err := interceptors.NewPlugin(opts)
	require.NoError(t, err, "the kit accepts the declaration")

	clash := interceptors.Options{Activities: map[string]temporaladk.Declaration{openai.ActivityName: {Class: temporaladk.Tool}}}
	err = openai.Declare(&clash)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "already declared"))
	require.Error(t, openai.Declare(nil))
}

func TestStreamRefusesANilOption(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "x", "stop", nil) })
	_, err := newModel(t, p.URL(), 0).Stream(context.Background(), sdk.ChatCompletionNewParams{Model: "m"}, nil)
	require.ErrorContains(t, err, "opts[0] is nil")
	assert.Zero(t, p.Requests())
}

func TestChatReportsTheProvidersUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		respond func(w http.ResponseWriter)
		fails   bool
		want    []providers.Usage
	}{
		{"success with cached prompt tokens", func(w http.ResponseWriter) {
			streamWithUsage(w, "stop", usageChunkCached(1200, 2, 1024))
		}, false, []providers.Usage{{InputTokens: 1200, OutputTokens: 2, CachedInputTokens: 1024}}},
		{"failure the provider counted (content_filter)", func(w http.ResponseWriter) {
			streamWithUsage(w, "content_filter", usageChunk(9, 2))
		}, true, []providers.Usage{{InputTokens: 9, OutputTokens: 2}}},
		{"failure without a count (429)", func(w http.ResponseWriter) {
			apiError(w, 429, "requests", "rate_limit_exceeded", "Rate limit reached", nil)
		}, true, nil},
		{"a count that cannot be (more cached than prompt tokens) is not reported", func(w http.ResponseWriter) {
			streamWithUsage(w, "stop", usageChunkCached(10, 2, 11))
		}, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { tt.respond(w) })
			ctx, log := providertest.RecordUsage(t, context.Background())
			_, err := newModel(t, p.URL(), 0).Chat(ctx, hello)
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

// firstChoice is what a script streams of the reply: the reports a watcher
// should get (the non-empty deltas of choice 0, in order) and their text.
func firstChoice(script []scriptedDelta) ([]reported, string) {
	var (
		want []reported
		text strings.Builder
	)
	for _, d := range script {
		if d.choice != 0 {
			continue
		}
		text.WriteString(d.content)
		if d.content != "" {
			want = append(want, reported{providers.Text, d.content})
		}
	}
	return want, text.String()
}

func TestChatReportsEachDeltaAsItArrives(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		script []scriptedDelta
	}{
		{"the reply, an empty delta among its deltas", []scriptedDelta{
			{0, "Hel"}, {0, "lo"}, {0, ""}, {0, ", wor"}, {0, "ld — naïve 🙂"}, {0, "\n"}, {0, "!"},
		}},
		{"a second choice is not the reply", []scriptedDelta{
			{0, "Yes"}, {1, "No"}, {0, ", "}, {1, "pe"}, {0, "indeed"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamScript(w, tt.script) })
			m := newModel(t, p.URL(), 0)
			want, wantText := firstChoice(tt.script)

			ctx, log := recordText(t, context.Background())
			res, err := m.Chat(ctx, hello)
			require.NoError(t, err)
			assert.Equal(t, want, *log, "one report per delta of the reply, in order, none empty")
			assert.Equal(t, wantText, res.Text)
			assert.Equal(t, res.Text, joined(*log, providers.Text), "the deltas make up the result's text")

			plain, err := m.Chat(context.Background(), hello)
			require.NoError(t, err)
			assert.Equal(t, plain, res, "with no reporter, the same result")
		})
	}
}

func TestChatReportsTheDeltasOfAFailedAttempt(t *testing.T) {
	t.Parallel()
	const arrived = 3
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { dropMidStream(t, w, arrived) })
	ctx, log := recordText(t, context.Background())
	_, err := newModel(t, p.URL(), 0).Chat(ctx, hello)
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

// ChatWorkflow calls the model once, with the policy the kit declares for it.
func ChatWorkflow(ctx workflow.Context, req openai.Request) (openai.Result, error) {
	var res openai.Result
	err := workflow.ExecuteActivity(ctx, openai.ActivityName, req).Get(ctx, &res)
	return res, err
}

func TestChatStreamsToTheKitsObserver(t *testing.T) {
	t.Parallel()
	script := []scriptedDelta{{0, "Bon"}, {0, "jour"}, {0, ""}, {0, " à "}, {0, "vous"}}
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamScript(w, script) })
	obs := &deltaObserver{}
	opts := interceptors.Options{Observer: obs}
	require.NoError(t, openai.Declare(&opts))
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, opts)
	require.NoError(t, err)
	newModel(t, p.URL(), 0).Register(env)
	env.RegisterWorkflow(ChatWorkflow)

	env.ExecuteWorkflow(ChatWorkflow, hello)
	require.NoError(t, env.GetWorkflowError())
	var res openai.Result
	require.NoError(t, env.GetWorkflowResult(&res))

	reports, text := firstChoice(script)
	want := make([]observe.Delta, len(reports))
	for i, r := range reports {
		want[i] = observe.Delta{Kind: r.kind, Text: r.text, Seq: i + 1}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, want, obs.deltas, "the observer (a live stream) gets the reply's deltas, numbered in order")
	assert.Equal(t, text, res.Text)
	for _, a := range obs.of {
		assert.Equal(t, openai.ActivityName, a.ActivityType)
		assert.Equal(t, temporaladk.Model, a.Class)
		assert.Equal(t, 1, a.Number)
	}
}
