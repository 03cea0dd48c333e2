package policies_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

const s = time.Second

func mustDefault(t testing.TB, c temporaladk.Class) policies.ActivityPolicy {
	t.Helper()
	p, err := policies.Default(c)
	require.NoError(t, err)
	return p
}

func TestClassDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		class                temporaladk.Class
		startToClose, hb     time.Duration
		attempts             int
		initial, maxInterval time.Duration
	}{
		{temporaladk.Model, 900 * s, 60 * s, 3, s, 30 * s},
		{temporaladk.Tool, 60 * s, 0, 1, 500 * time.Millisecond, 30 * s},
		{temporaladk.Retrieval, 30 * s, 0, 3, 250 * time.Millisecond, 5 * s},
		{temporaladk.Memory, 15 * s, 0, 3, 250 * time.Millisecond, 5 * s},
	}
	all, err := vocabtest.DefaultPolicies()
	require.NoError(t, err)
	require.Len(t, all, 4)
	for _, tt := range tests {
		t.Run(tt.class.String(), func(t *testing.T) {
			t.Parallel()
			p := mustDefault(t, tt.class)
			assert.Equal(t, p, all[tt.class])
			assert.Equal(t, tt.class, p.Class)
			assert.Equal(t, tt.startToClose, p.StartToClose)
			assert.Equal(t, tt.hb, p.Heartbeat)
			assert.Equal(t, tt.attempts, p.Retry.MaxAttempts)
			assert.Equal(t, tt.initial, p.Retry.InitialInterval)
			assert.Equal(t, tt.maxInterval, p.Retry.MaxInterval)
			assert.Equal(t, 2.0, p.Retry.BackoffCoefficient)
			assert.Equal(t, 60*s, p.Retry.MaxRetryAfter)
			assert.NoError(t, p.Validate(), "every default validates")
		})
	}
}

func TestDefaultsAreCopies(t *testing.T) {
	t.Parallel()
	all, err := vocabtest.DefaultPolicies()
	require.NoError(t, err)
	all[temporaladk.Model] = policies.ActivityPolicy{}
	again, err := vocabtest.DefaultPolicies()
	require.NoError(t, err)
	assert.Equal(t, 900*s, again[temporaladk.Model].StartToClose, "callers get a copy")
	_, err = policies.Default("REASONING")
	assert.ErrorContains(t, err, `no policy for activity class "REASONING"`)
}

func TestValidation(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model)
	with := func(change func(*policies.ActivityPolicy)) policies.ActivityPolicy {
		p := model
		change(&p)
		return p
	}
	tests := []struct {
		name      string
		policy    policies.ActivityPolicy
		wantField string
		wantMsg   string
	}{
		{"zero value", policies.ActivityPolicy{}, "Class", `is ""`},
		{"unknown class", with(func(p *policies.ActivityPolicy) { p.Class = "LLM" }), "Class", `"LLM"`},
		{"StartToClose 0", with(func(p *policies.ActivityPolicy) { p.StartToClose = 0 }), "StartToClose", "is 0s"},
		{"StartToClose negative", with(func(p *policies.ActivityPolicy) { p.StartToClose = -s }), "StartToClose", "is -1s"},
		{"heartbeat negative", with(func(p *policies.ActivityPolicy) { p.Heartbeat = -s }), "Heartbeat", "is -1s"},
		{"heartbeat equal to timeout", with(func(p *policies.ActivityPolicy) { p.Heartbeat = p.StartToClose }), "Heartbeat", "heartbeat window wider than the activity is not a timeout"},
		{"heartbeat wider than timeout", with(func(p *policies.ActivityPolicy) { p.StartToClose, p.Heartbeat = 30*s, 60*s }), "Heartbeat", "(1m0s) is not shorter than StartToClose (30s)"},
		{"MaxAttempts 0", with(func(p *policies.ActivityPolicy) { p.Retry.MaxAttempts = 0 }), "Retry.MaxAttempts", "is 0"},
		{"MaxAttempts negative", with(func(p *policies.ActivityPolicy) { p.Retry.MaxAttempts = -3 }), "Retry.MaxAttempts", "is -3"},
		{"coefficient below 1", with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = 0.5 }), "Retry.BackoffCoefficient", "at least 1"},
		{"coefficient NaN", with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.NaN() }), "Retry.BackoffCoefficient", "finite"},
		{"coefficient Inf", with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.Inf(1) }), "Retry.BackoffCoefficient", "finite"},
		{"initial negative", with(func(p *policies.ActivityPolicy) { p.Retry.InitialInterval = -s }), "Retry.InitialInterval", "negative"},
		{"max interval negative", with(func(p *policies.ActivityPolicy) { p.Retry.MaxInterval = -s }), "Retry.MaxInterval", "negative"},
		{"max interval below initial", with(func(p *policies.ActivityPolicy) { p.Retry.MaxInterval = 100 * time.Millisecond }), "Retry.MaxInterval", "shorter than InitialInterval"},
		{"max retry-after negative", with(func(p *policies.ActivityPolicy) { p.Retry.MaxRetryAfter = -s }), "Retry.MaxRetryAfter", "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := vocabtest.Validated(tt.policy)
			var verr *policies.ValidationError
			require.ErrorAs(t, err, &verr)
			assert.Equal(t, tt.wantField, verr.Field)
			assert.ErrorContains(t, err, "ActivityPolicy."+tt.wantField)
			assert.ErrorContains(t, err, tt.wantMsg)
			assert.Equal(t, policies.ActivityPolicy{}, got, "nothing half-built is returned")
		})
	}
	ok := with(func(p *policies.ActivityPolicy) { p.Retry.MaxInterval = 0; p.Retry.MaxRetryAfter = 0; p.Heartbeat = 0 })
	got, err := vocabtest.Validated(ok)
	require.NoError(t, err, "zero MaxInterval, MaxRetryAfter and Heartbeat are meaningful")
	assert.Equal(t, ok, got)
}

// The specification's own example: a guardrail block is not retryable even
// with nine attempts.
func TestRetryableNeverRetryableWhateverTheAttempts(t *testing.T) {
	t.Parallel()
	p := mustDefault(t, temporaladk.Model)
	p.Retry.MaxAttempts = 9
	p, err := vocabtest.Validated(p)
	require.NoError(t, err)
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"guardrail violation", &temporaladk.GuardrailViolationError{Reason: "no"}, false},
		{"guardrail violation wrapped", fmt.Errorf("step: %w", &temporaladk.GuardrailViolationError{}), false},
		{"guardrail evaluation", &temporaladk.GuardrailEvaluationError{}, false},
		{"schema", &temporaladk.SchemaViolationError{}, false},
		{"budget", &temporaladk.BudgetExceededError{}, false},
		{"approval", &temporaladk.ApprovalDeniedError{}, false},
		{"scope", &temporaladk.ScopeEscalationError{}, false},
		{"outside the hierarchy", errors.New("disk full"), false},
		{"a foreign ApplicationError", temporal.NewApplicationError("x", "SomethingElse", nil), false},
		{"nil", nil, false},
		{"provider 503", &temporaladk.ProviderError{StatusCode: 503}, true},
		{"provider 400", &temporaladk.ProviderError{StatusCode: 400}, false},
		{"rate limit", &temporaladk.RateLimitError{}, true},
		{"quota", &temporaladk.RateLimitError{Quota: true}, false},
		{"transient tool failure", &temporaladk.ToolFailureError{Transient: true}, true},
		{"guardrail after the trip as an ApplicationError", vocab.ToApplicationError(&temporaladk.GuardrailViolationError{}, vocab.ConvertOptions{}), false},
		{"provider 503 after the trip", vocab.ToApplicationError(&temporaladk.ProviderError{StatusCode: 503}, vocab.ConvertOptions{}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, p.Retryable(tt.err))
		})
	}
}

func TestAttemptsForTool(t *testing.T) {
	t.Parallel()
	p := mustDefault(t, temporaladk.Retrieval) // MaxAttempts 3
	tests := []struct {
		name        string
		idempotency temporaladk.Idempotency
		hasKey      bool
		want        int
	}{
		{"read-only", temporaladk.ReadOnly, false, 3},
		{"idempotent", temporaladk.Idempotent, false, 3},
		{"effectful", temporaladk.Effectful, false, 1},
		{"effectful with key", temporaladk.Effectful, true, 3},
		{"undeclared is effectful", temporaladk.Undeclared, false, 1},
		{"undeclared with key", temporaladk.Undeclared, true, 3},
		{"not a declaration", temporaladk.Idempotency(9), true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, policies.AttemptsForTool(p, tt.idempotency, tt.hasKey))
		})
	}
}

func TestPlanCall(t *testing.T) {
	t.Parallel()
	tuned := mustDefault(t, temporaladk.Tool)
	tuned.Retry.MaxAttempts = 4
	tunedPolicies := map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: tuned}
	decl := func(d temporaladk.Declaration) *temporaladk.Declaration { return &d }
	tests := []struct {
		name          string
		call          policies.Call
		planned       bool
		class         temporaladk.Class
		attempts      int
		startToClose  time.Duration
		heartbeat     time.Duration
		singleAttempt bool
	}{
		{name: "nothing to go by: left alone", call: policies.Call{}, planned: false},
		{name: "tag", call: policies.Call{Tag: temporaladk.Model}, planned: true, class: temporaladk.Model, attempts: 3, startToClose: 900 * s, heartbeat: 60 * s},
		{name: "default class", call: policies.Call{DefaultClass: temporaladk.Memory}, planned: true, class: temporaladk.Memory, attempts: 3, startToClose: 15 * s},
		{name: "declared class beats the default", call: policies.Call{Declaration: decl(temporaladk.Declaration{Class: temporaladk.Retrieval}), DefaultClass: temporaladk.Memory}, planned: true, class: temporaladk.Retrieval, attempts: 3, startToClose: 30 * s},
		{name: "tag beats the declared class", call: policies.Call{Tag: temporaladk.Model, Declaration: decl(temporaladk.Declaration{Class: temporaladk.Retrieval})}, planned: true, class: temporaladk.Model, attempts: 3, startToClose: 900 * s, heartbeat: 60 * s},
		{name: "declared timeout derives the windows", call: policies.Call{Tag: temporaladk.Model, Declaration: decl(temporaladk.Declaration{Timeout: 120 * s})}, planned: true, class: temporaladk.Model, attempts: 3, startToClose: 120 * s, heartbeat: 12 * s},
		{name: "read-only tool: the tuned policy's attempts", call: policies.Call{Declaration: decl(temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly, Timeout: 120 * s}), Policies: tunedPolicies}, planned: true, class: temporaladk.Tool, attempts: 4, startToClose: 120 * s},
		{name: "effectful tool without a key: one", call: policies.Call{Declaration: decl(temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.Effectful}), Policies: tunedPolicies}, planned: true, class: temporaladk.Tool, attempts: 1, startToClose: 60 * s, singleAttempt: true},
		{name: "effectful tool with a key: the policy's", call: policies.Call{Declaration: decl(temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.Effectful}), Policies: tunedPolicies, HasKey: true}, planned: true, class: temporaladk.Tool, attempts: 4, startToClose: 60 * s},
		{name: "tool that declared nothing, under a MODEL tag: still one", call: policies.Call{Tag: temporaladk.Model, Declaration: decl(temporaladk.Declaration{Class: temporaladk.Tool})}, planned: true, class: temporaladk.Model, attempts: 1, startToClose: 900 * s, heartbeat: 60 * s, singleAttempt: true},
		{name: "effectful declaration under a RETRIEVAL tag: one", call: policies.Call{Tag: temporaladk.Retrieval, Declaration: decl(temporaladk.Declaration{Idempotency: temporaladk.Effectful})}, planned: true, class: temporaladk.Retrieval, attempts: 1, startToClose: 30 * s, singleAttempt: true},
		{name: "a read that declared nothing keeps its attempts", call: policies.Call{Declaration: decl(temporaladk.Declaration{Class: temporaladk.Retrieval, Timeout: 20 * s})}, planned: true, class: temporaladk.Retrieval, attempts: 3, startToClose: 20 * s},
		{name: "untagged TOOL by default class: undeclared is effectful", call: policies.Call{DefaultClass: temporaladk.Tool}, planned: true, class: temporaladk.Tool, attempts: 1, startToClose: 60 * s, singleAttempt: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.call.ActivityType = "A"
			plan, planned, err := policies.PlanCall(tt.call)
			require.NoError(t, err)
			require.Equal(t, tt.planned, planned)
			if !planned {
				assert.Empty(t, plan.Class)
				require.NotNil(t, plan.RetryPolicy, "an activity the kit leaves alone still gets the never-retryable types")
				assert.ElementsMatch(t, vocab.NeverRetryableTypes(), plan.RetryPolicy.NonRetryableErrorTypes)
				assert.Zero(t, plan.RetryPolicy.MaximumAttempts, "and keeps the server's default attempts")
				return
			}
			assert.Equal(t, tt.class, plan.Class)
			assert.Equal(t, tt.attempts, plan.Policy.Retry.MaxAttempts)
			assert.Equal(t, int32(tt.attempts), plan.RetryPolicy.MaximumAttempts, "the retry policy holds the same count")
			assert.Equal(t, tt.startToClose, plan.Policy.StartToClose)
			assert.Equal(t, tt.heartbeat, plan.Policy.Heartbeat)
			assert.Equal(t, tt.singleAttempt, plan.SingleAttempt)
			assert.NoError(t, plan.Policy.Validate())
		})
	}
}

func TestPlanCallRefusesBadInput(t *testing.T) {
	t.Parallel()
	_, _, err := policies.PlanCall(policies.Call{ActivityType: "A", Tag: "FAST"})
	assert.ErrorContains(t, err, `activity A is tagged with class "FAST"`)
	_, _, err = policies.PlanCall(policies.Call{ActivityType: "A", DefaultClass: "SLOW"})
	assert.ErrorContains(t, err, `activity A has class "SLOW"`)
	_, _, err = policies.PlanCall(policies.Call{ActivityType: "A", Tag: temporaladk.Model, Declaration: &temporaladk.Declaration{Timeout: time.Nanosecond}})
	assert.ErrorContains(t, err, "activity A")
}

func TestActivityPolicyFor(t *testing.T) {
	t.Parallel()
	tuned := mustDefault(t, temporaladk.Model)
	tuned.Retry = policies.RetryConfig{MaxAttempts: 7, InitialInterval: 2 * s, BackoffCoefficient: 3, MaxInterval: 40 * s, MaxRetryAfter: 10 * s}
	tests := []struct {
		name        string
		class       temporaladk.Class
		timeout     time.Duration
		base        *policies.ActivityPolicy
		wantTimeout time.Duration
		wantHB      time.Duration
		wantRetry   *policies.RetryConfig
		wantErr     string
	}{
		{name: "600s gives 60s", class: temporaladk.Model, timeout: 600 * s, wantTimeout: 600 * s, wantHB: 60 * s},
		{name: "1200s is capped at 60s", class: temporaladk.Model, timeout: 1200 * s, wantTimeout: 1200 * s, wantHB: 60 * s},
		{name: "120s gives 12s", class: temporaladk.Model, timeout: 120 * s, wantTimeout: 120 * s, wantHB: 12 * s},
		{name: "12s gives 5s", class: temporaladk.Model, timeout: 12 * s, wantTimeout: 12 * s, wantHB: 5 * s},
		{name: "8s gives 4s", class: temporaladk.Model, timeout: 8 * s, wantTimeout: 8 * s, wantHB: 4 * s},
		{name: "TOOL stays without heartbeat", class: temporaladk.Tool, timeout: 600 * s, wantTimeout: 600 * s, wantHB: 0},
		{name: "RETRIEVAL stays without heartbeat", class: temporaladk.Retrieval, timeout: 8 * s, wantTimeout: 8 * s, wantHB: 0},
		{name: "no declared timeout keeps the base", class: temporaladk.Model, timeout: 0, wantTimeout: 900 * s, wantHB: 60 * s},
		{name: "a tuned base keeps its retry settings", class: temporaladk.Model, timeout: 300 * s, base: &tuned, wantTimeout: 300 * s, wantHB: 30 * s, wantRetry: &tuned.Retry},
		{name: "negative timeout", class: temporaladk.Model, timeout: -s, wantErr: "declared timeout is -1s"},
		{name: "unknown class", class: "REASONING", timeout: s, wantErr: `unknown activity class "REASONING"`},
		{name: "base of another class", class: temporaladk.Tool, timeout: s, base: &tuned, wantErr: "base policy is for class MODEL, not TOOL"},
		{name: "too short for a window", class: temporaladk.Model, timeout: 1, wantErr: "too short to fit a heartbeat window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := policies.ActivityPolicyFor(tt.class, tt.timeout, tt.base)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantTimeout, p.StartToClose)
			assert.Equal(t, tt.wantHB, p.Heartbeat)
			want := mustDefault(t, tt.class).Retry
			if tt.wantRetry != nil {
				want = *tt.wantRetry
			}
			assert.Equal(t, want, p.Retry, "only the windows are derived")
			assert.NoError(t, p.Validate())
		})
	}
}

func TestHeartbeatWindowAlwaysInsideTheActivity(t *testing.T) {
	t.Parallel()
	for timeout := 2 * time.Nanosecond; timeout < 2*time.Hour; timeout = timeout*3/2 + 1 {
		w, err := policies.HeartbeatWindowFor(timeout)
		require.NoError(t, err, timeout)
		assert.Less(t, w, timeout)
		assert.LessOrEqual(t, w, policies.MaxHeartbeatWindow)
		if timeout >= 10*s {
			assert.GreaterOrEqual(t, w, policies.MinHeartbeatWindow, "a slow first token is not a dead worker")
		}
	}
	_, err := policies.HeartbeatWindowFor(0)
	assert.ErrorContains(t, err, "timeout is 0s")
}
