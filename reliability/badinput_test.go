package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/idemkey"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// badInput is one invalid call: it must return an error whose message holds
// want, must not panic, and must return the zero value with the error (no
// half-built result).
type badInput struct {
	name string
	call func() (any, error)
	want string
}

// runBadInputs runs a table of bad inputs.
func runBadInputs(t *testing.T, cases []badInput) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err, panicked := guarded(tc.call)
			require.Empty(t, panicked, "no panic")
			require.Error(t, err, "a bad input is an error")
			assert.Contains(t, err.Error(), tc.want, "the error says what is wrong")
			assert.True(t, isZero(got), "no partial state: got %#v with the error", got)
		})
	}
}

// guarded calls f and turns a panic into its message and stack.
func guarded(f func() (any, error)) (got any, err error, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	got, err = f()
	return got, err, ""
}

func isZero(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.IsZero() || (rv.Kind() == reflect.Pointer && rv.IsNil())
}

// unchanged reports a result equal to want as nil (no partial state), and
// any other result as it is.
func unchanged[T any](want T) func(T, error) (any, error) {
	return func(got T, err error) (any, error) {
		if reflect.DeepEqual(got, want) {
			return nil, err
		}
		return got, err
	}
}

// two returns a constructor's result as (any, error).
func two[T any](v T, err error) (any, error) { return v, err }

type bookingInput struct {
	Flight    string `json:"flight"`
	Passenger string `json:"passenger"`
}

func TestBadInputTemporaladk(t *testing.T) {
	refTime := testclock.Epoch(t)
	t.Parallel()
	nfcTwins := map[string]int{"caf\u00e9": 1, "cafe\u0301": 2}
	scope := idemkey.Scope{Tenant: "t", Run: "r", Tool: "Pay"}
	decl := func(activity string, d temporaladk.Declaration, input any) func() (any, error) {
		return func() (any, error) { d.Input = input; return nil, d.Validate(activity) }
	}
	runBadInputs(t, []badInput{
		{"ParseClass unknown", func() (any, error) { return two(vocabtest.ParseClass("LLM")) }, `unknown activity class "LLM"`},
		{"ParseClass with a NUL", func() (any, error) { return two(vocabtest.ParseClass("model\x00")) }, "unknown activity class"},
		{"ParseIdempotency empty", func() (any, error) { return two(vocabtest.ParseIdempotency("")) }, "unknown idempotency"},
		{"ParseIdempotency unknown", func() (any, error) { return two(vocabtest.ParseIdempotency("sometimes")) }, `"sometimes"`},
		{"ParseRetryAfter negative", func() (any, error) { return two(providers.ParseRetryAfter("-1", refTime)) }, `"-1"`},
		{"ParseRetryAfter fraction", func() (any, error) { return two(providers.ParseRetryAfter("1.5", refTime)) }, `"1.5"`},
		{"ParseRetryAfter huge", func() (any, error) { return two(providers.ParseRetryAfter("99999999999999999999", refTime)) }, "out of range"},
		{"ParseRetryAfter NaN", func() (any, error) { return two(providers.ParseRetryAfter("NaN", refTime)) }, `"NaN"`},
		{"ParseRetryAfter Inf", func() (any, error) { return two(providers.ParseRetryAfter("Inf", refTime)) }, `"Inf"`},
		{"ParseRetryAfter garbage date", func() (any, error) { return two(providers.ParseRetryAfter("tomorrow-ish", refTime)) }, "neither delay-seconds nor an HTTP-date"},
		{"NewHeartbeater nil record", func() (any, error) {
			return two(temporaladk.NewHeartbeater(nil, time.Second, vocab.SystemClock(), "s"))
		}, "record is nil"},
		{"NewHeartbeater nil clock", func() (any, error) {
			return two(temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, time.Second, nil, "s"))
		}, "clock is nil"},
		{"NewHeartbeater zero window", func() (any, error) {
			return two(temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, 0, vocab.SystemClock(), "s"))
		}, "window is 0s"},
		{"NewHeartbeater negative window", func() (any, error) {
			return two(temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, -time.Second, vocab.SystemClock(), "s"))
		}, "window is -1s"},
		{"NewHeartbeater window too small for three beats", func() (any, error) {
			return two(temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, 2, vocab.SystemClock(), "s"))
		}, "at least 3ns"},
		{"Declaration empty activity type", decl("", temporaladk.Declaration{Timeout: time.Second}, nil), "activity type is empty"},
		{"Declaration blank activity type", decl(" \t", temporaladk.Declaration{Timeout: time.Second}, nil), "activity type is empty"},
		{"Declaration unknown class", decl("Book", temporaladk.Declaration{Class: "LLM"}, nil), `Class is "LLM"`},
		{"Declaration negative timeout", decl("Book", temporaladk.Declaration{Timeout: -time.Hour}, nil), "Timeout is -1h0m0s"},
		{"Declaration MinInt64 timeout", decl("Book", temporaladk.Declaration{Timeout: math.MinInt64}, nil), "Timeout is"},
		{"Declaration unknown idempotency", decl("Book", temporaladk.Declaration{Timeout: time.Second, Idempotency: 9}, nil), "Idempotency is Idempotency(9)"},
		{"Declaration key field the input lacks", decl("Book", temporaladk.Declaration{KeyFields: []string{"seat"}}, bookingInput{}), "seat"},
		{"Declaration empty key field", decl("Book", temporaladk.Declaration{KeyFields: []string{""}}, bookingInput{}), "KeyFields"},
		{"Declaration empty path segment", decl("Book", temporaladk.Declaration{KeyFields: []string{"flight..x"}}, bookingInput{}), "KeyFields"},
		{"Declaration key field twice", decl("Book", temporaladk.Declaration{KeyFields: []string{"flight", "flight"}}, bookingInput{}), "flight"},
		{"Declaration input that has no fields", decl("Book", temporaladk.Declaration{KeyFields: []string{"flight"}}, 42), "KeyFields"},
		{"ValidateKeyFields empty path", func() (any, error) { return nil, idemkey.ValidateFields([]string{""}, nil) }, ""},
		{"DeriveIdempotencyKey no tenant", func() (any, error) {
			return two(idemkey.Derive(idemkey.Scope{Run: "r", Tool: "t"}, 1, nil))
		}, "Scope.Tenant is empty"},
		{"DeriveIdempotencyKey no run", func() (any, error) {
			return two(idemkey.Derive(idemkey.Scope{Tenant: "t", Tool: "t"}, 1, nil))
		}, "Scope.Run is empty"},
		{"DeriveIdempotencyKey no tool", func() (any, error) {
			return two(idemkey.Derive(idemkey.Scope{Tenant: "t", Run: "r"}, 1, nil))
		}, "Scope.Tool is empty"},
		{"DeriveIdempotencyKey NaN argument", func() (any, error) {
			return two(idemkey.Derive(scope, map[string]float64{"amount": math.NaN()}, nil))
		}, "cannot be canonicalised"},
		{"DeriveIdempotencyKey Inf argument", func() (any, error) {
			return two(idemkey.Derive(scope, math.Inf(-1), nil))
		}, "cannot be canonicalised"},
		{"DeriveIdempotencyKey function argument", func() (any, error) {
			return two(idemkey.Derive(scope, func() {}, nil))
		}, "cannot be canonicalised"},
		{"DeriveIdempotencyKey missing key field", func() (any, error) {
			return two(idemkey.Derive(scope, bookingInput{}, []string{"seat"}))
		}, `no key field "seat"`},
		{"DeriveIdempotencyKey key field into a scalar", func() (any, error) {
			return two(idemkey.Derive(scope, bookingInput{Flight: "LH400"}, []string{"flight.number"}))
		}, `"flight.number"`},
		{"DeriveIdempotencyKey NFC twins", func() (any, error) {
			return two(idemkey.Derive(scope, nfcTwins, nil))
		}, "after NFC normalisation"},
		{"Canonicalize NaN", func() (any, error) { return two(idemkey.Canonicalize(math.NaN())) }, "cannot be canonicalised"},
		{"Canonicalize channel", func() (any, error) { return two(idemkey.Canonicalize(make(chan int))) }, "cannot be canonicalised"},
	})
}

// TestNilErrorsTemporaladk feeds nil, and typed nil kit errors, to every
// function of temporaladk that takes an error: no panic, and nil in gives
// nothing out.
func TestNilErrorsTemporaladk(t *testing.T) {
	refTime := testclock.Epoch(t)
	t.Parallel()
	cases := []struct {
		name string
		f    func() bool // reports whether the result is the "nothing" answer
	}{
		{"ToApplicationError(nil)", func() bool { return vocab.ToApplicationError(nil, vocab.ConvertOptions{}) == nil }},
		{"FromApplicationError(nil)", func() bool { return temporaladk.FromApplicationError(nil) == nil }},
		{"AsError(nil)", func() bool { _, ok := temporaladk.AsError(nil); return !ok }},
		{"IsNeverRetryable(nil)", func() bool { return !vocab.IsNeverRetryable(nil) }},
		{"RetryAfterOf(nil)", func() bool { _, ok := vocab.RetryAfterOf(nil); return !ok }},
		{"RetryDecisionOf(nil)", func() bool { _, ok := temporaladk.RetryDecisionOf(nil); return !ok }},
		{"IsKitType empty", func() bool { return !vocab.IsKitType("") }},
		{"IsNeverRetryableType empty", func() bool { return !vocab.IsNeverRetryableType("") }},
		{"RetryableStatus negative", func() bool { return !providers.RetryableStatus(-1) }},
		{"ActivityCallFrom a bare context", func() bool { _, ok := temporaladk.ActivityCallFrom(context.Background()); return !ok }},
		{"IdempotencyKey of a bare context", func() bool { return vocabtest.CallOf(context.Background()).IdempotencyKey == "" }},
		{"HeartbeaterFrom a bare context counts and sends nothing", func() bool {
			hb := temporaladk.HeartbeaterFrom(context.Background())
			hb.Chunk(5)
			hb.Beat()
			return hb != nil
		}},
		{"ClassifyHTTP with neither response nor error is a provider error", func() bool {
			var pe *temporaladk.ProviderError
			return errors.As(providers.ClassifyHTTP("p", nil, nil, refTime), &pe)
		}},
		{"ClassifyHTTP 503 with no header map and no body", func() bool {
			var pe *temporaladk.ProviderError
			err := providers.ClassifyHTTP("p", &http.Response{StatusCode: 503}, nil, refTime)
			return errors.As(err, &pe) && pe.Retryable()
		}},
		{"ClassifyHTTP 429 with no body", func() bool {
			var rl *temporaladk.RateLimitError
			err := providers.ClassifyHTTP("p", &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"garbage"}}}, nil, refTime)
			return errors.As(err, &rl) && rl.RetryAfter == 0
		}},
		{"ClassifyHTTP negative status", func() bool { return providers.ClassifyHTTP("p", &http.Response{StatusCode: -1}, nil, refTime) == nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ok bool
			_, _, panicked := guarded(func() (any, error) { ok = tc.f(); return nil, nil })
			require.Empty(t, panicked)
			assert.True(t, ok)
		})
	}
}

// TestChargeRefusalSpendsNothing checks that a refusal by one budget
// leaves the other as it was: no partial state.
func TestChargeRefusalSpendsNothing(t *testing.T) {
	t.Parallel()
	run, err := budget.NewAttemptBudget(1)
	require.NoError(t, err)
	pool, err := budget.NewRetryBudget(5)
	require.NoError(t, err)
	require.Nil(t, budget.Charge(run, pool, 1))
	refused := budget.Charge(run, pool, 2)
	require.NotNil(t, refused)
	assert.Equal(t, "attempts", refused.Breached)
	assert.Zero(t, pool.Spent(), "the run budget refused: the pool spent nothing")
	assert.Equal(t, 1, run.Spent(), "the ceiling is not widened")

	// A pool of one retry, used up (Budgets.Retries has no pool of zero).
	used, err := budget.NewRetryBudget(1)
	require.NoError(t, err)
	wide, err := budget.NewAttemptBudget(10)
	require.NoError(t, err)
	require.Nil(t, budget.Charge(wide, used, 2), "the pool's one retry")
	require.Equal(t, 1, wide.Spent())
	refused = budget.Charge(wide, used, 2)
	require.NotNil(t, refused)
	assert.Equal(t, "retries", refused.Breached)
	assert.Equal(t, 1, wide.Spent(), "the pool refused: the run budget spent nothing")
	assert.Equal(t, 1, used.Spent(), "nor the pool")
	require.Nil(t, budget.Charge(wide, used, 1), "a used-up pool never refuses a first attempt")
	assert.Equal(t, 2, wide.Spent())
	assert.Equal(t, 1, used.Spent(), "a first attempt takes no retry")
}

func TestBadInputPolicies(t *testing.T) {
	t.Parallel()
	model := mustDefault(temporaladk.Model)
	with := func(change func(*policies.ActivityPolicy)) policies.ActivityPolicy {
		p := model
		change(&p)
		return p
	}
	newPolicy := func(p policies.ActivityPolicy) func() (any, error) {
		return func() (any, error) { return two(vocabtest.Validated(p)) }
	}
	runBadInputs(t, []badInput{
		{"Default unknown class", func() (any, error) { return two(policies.Default("LLM")) }, `"LLM"`},
		{"Default empty class", func() (any, error) { return two(policies.Default("")) }, `""`},
		{"NewActivityPolicy zero value", newPolicy(policies.ActivityPolicy{}), "Class"},
		{"unknown class", newPolicy(with(func(p *policies.ActivityPolicy) { p.Class = "LLM" })), "Class"},
		{"zero StartToClose", newPolicy(with(func(p *policies.ActivityPolicy) { p.StartToClose = 0 })), "StartToClose"},
		{"negative StartToClose", newPolicy(with(func(p *policies.ActivityPolicy) { p.StartToClose = -time.Second })), "StartToClose"},
		{"MinInt64 StartToClose", newPolicy(with(func(p *policies.ActivityPolicy) { p.StartToClose = math.MinInt64 })), "StartToClose"},
		{"negative Heartbeat", newPolicy(with(func(p *policies.ActivityPolicy) { p.Heartbeat = -time.Second })), "Heartbeat"},
		{"Heartbeat as wide as the activity", newPolicy(with(func(p *policies.ActivityPolicy) { p.Heartbeat = p.StartToClose })), "not a timeout"},
		{"huge Heartbeat", newPolicy(with(func(p *policies.ActivityPolicy) { p.Heartbeat = math.MaxInt64 })), "Heartbeat"},
		{"zero MaxAttempts", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.MaxAttempts = 0 })), "Retry.MaxAttempts"},
		{"negative MaxAttempts", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.MaxAttempts = -3 })), "Retry.MaxAttempts"},
		{"NaN coefficient", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.NaN() })), "Retry.BackoffCoefficient"},
		{"+Inf coefficient", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.Inf(1) })), "Retry.BackoffCoefficient"},
		{"-Inf coefficient", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.Inf(-1) })), "Retry.BackoffCoefficient"},
		{"coefficient below 1", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = 0.5 })), "Retry.BackoffCoefficient"},
		{"zero coefficient", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = 0 })), "Retry.BackoffCoefficient"},
		{"negative InitialInterval", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.InitialInterval = -1 })), "Retry.InitialInterval"},
		{"negative MaxInterval", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.MaxInterval = -1 })), "Retry.MaxInterval"},
		{"MaxInterval below InitialInterval", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.MaxInterval = time.Millisecond })), "Retry.MaxInterval"},
		{"negative MaxRetryAfter", newPolicy(with(func(p *policies.ActivityPolicy) { p.Retry.MaxRetryAfter = -1 })), "Retry.MaxRetryAfter"},
		{"HeartbeatWindowFor zero", func() (any, error) { return two(policies.HeartbeatWindowFor(0)) }, "greater than zero"},
		{"HeartbeatWindowFor negative", func() (any, error) { return two(policies.HeartbeatWindowFor(-time.Second)) }, "greater than zero"},
		{"HeartbeatWindowFor MinInt64", func() (any, error) { return two(policies.HeartbeatWindowFor(math.MinInt64)) }, "greater than zero"},
		{"HeartbeatWindowFor 1ns", func() (any, error) { return two(policies.HeartbeatWindowFor(1)) }, "too short"},
		{"ActivityPolicyFor unknown class", func() (any, error) { return two(policies.ActivityPolicyFor("LLM", time.Second, nil)) }, `"LLM"`},
		{"ActivityPolicyFor negative timeout", func() (any, error) {
			return two(policies.ActivityPolicyFor(temporaladk.Model, -time.Second, nil))
		}, "must not be negative"},
		{"ActivityPolicyFor 1ns timeout", func() (any, error) { return two(policies.ActivityPolicyFor(temporaladk.Model, 1, nil)) }, "too short"},
		{"ActivityPolicyFor base of another class", func() (any, error) {
			return two(policies.ActivityPolicyFor(temporaladk.Tool, time.Second, &model))
		}, "base policy is for class MODEL"},
		{"ActivityPolicyFor invalid base", func() (any, error) {
			bad := with(func(p *policies.ActivityPolicy) { p.Retry.BackoffCoefficient = math.NaN() })
			return two(policies.ActivityPolicyFor(temporaladk.Model, time.Minute, &bad))
		}, "Retry.BackoffCoefficient"},
		{"PlanCall unknown tag", func() (any, error) {
			p, _, err := policies.PlanCall(policies.Call{ActivityType: "Book", Tag: "LLM"})
			return p, err
		}, `tagged with class "LLM"`},
		{"PlanCall declared timeout too short for a window", func() (any, error) {
			p, _, err := policies.PlanCall(policies.Call{ActivityType: "Book", Tag: temporaladk.Model, Declaration: &temporaladk.Declaration{Timeout: 1}})
			return p, err
		}, "too short"},
		// Apply and ApplyLocal return the caller's options unchanged with an
		// error: unchanged counts as no partial state.
		{"Apply an invalid policy", func() (any, error) {
			return unchanged(workflow.ActivityOptions{})(policies.Apply(workflow.ActivityOptions{}, policies.Plan{Class: temporaladk.Model}))
		}, "Class"},
		{"Apply a 1ns caller StartToClose to a heartbeating class", func() (any, error) {
			opts := workflow.ActivityOptions{StartToCloseTimeout: 1}
			return unchanged(opts)(policies.Apply(opts, policies.Plan{Class: temporaladk.Model, Policy: model}))
		}, "too short"},
		{"ApplyLocal an invalid policy", func() (any, error) {
			opts := workflow.LocalActivityOptions{StartToCloseTimeout: time.Second}
			return unchanged(opts)(policies.ApplyLocal(opts, policies.Plan{Class: temporaladk.Model, Policy: with(func(p *policies.ActivityPolicy) { p.StartToClose = -1 })}))
		}, "StartToClose"},
		{"FullJitter NaN", func() (any, error) { return two(model.Retry.FullJitter(1, math.NaN())) }, "not in [0, 1)"},
		{"FullJitter negative", func() (any, error) { return two(model.Retry.FullJitter(1, -0.1)) }, "not in [0, 1)"},
		{"FullJitter one", func() (any, error) { return two(model.Retry.FullJitter(1, 1)) }, "not in [0, 1)"},
		{"FullJitter +Inf", func() (any, error) { return two(model.Retry.FullJitter(1, math.Inf(1))) }, "not in [0, 1)"},
		{"JitterDecision NaN", func() (any, error) { return two(model.Retry.JitterDecision(1, math.NaN())) }, "not in [0, 1)"},
	})
}

// TestPlanCallRefusesAnUnknownIdempotency guards a fixed bug: the tool
// planner refused an incomplete declaration but accepted one whose
// Idempotency is not one of the four declarations, and gave it the policy's
// retries, as if it were read-only. Such a declaration is refused by
// Declaration.Validate (and so by interceptors.NewPlugin); PlanCall, given one
// anyway, grants a single attempt: nothing safe was declared.
func TestPlanCallRefusesAnUnknownIdempotency(t *testing.T) {
	t.Parallel()
	tool := mustDefault(temporaladk.Tool)
	tool.Retry.MaxAttempts = 3
	decl := temporaladk.Declaration{Class: temporaladk.Tool, Timeout: time.Second, Idempotency: 9}
	if err := decl.Validate("Book"); err == nil {
		t.Error("Validate accepted Idempotency(9)")
	}
	p, _, err := policies.PlanCall(policies.Call{ActivityType: "Book", Declaration: &decl, Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: tool}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Policy.Retry.MaxAttempts != 1 || !p.SingleAttempt {
		t.Errorf("PlanCall granted %d attempts to Idempotency(9); want 1", p.Policy.Retry.MaxAttempts)
	}
}

// TestTypedNilKitErrorDoesNotPanic guards a fixed bug: an activity that
// returned a nil *temporaladk.ProviderError as its error (the typed-nil
// gotcha: var err *ProviderError; return err) made the kit's activity
// interceptor panic in (*ProviderError).Retryable, and ToApplicationError
// and RetryAfterOf panicked on the same value. A typed-nil kit error is now
// no kit error: it passes on unchanged, like errors outside the hierarchy.
func TestTypedNilKitErrorDoesNotPanic(t *testing.T) {
	t.Parallel()
	var typedNil *temporaladk.ProviderError
	var err error = typedNil
	for name, f := range map[string]func() (any, error){
		"ToApplicationError": func() (any, error) { return nil, vocab.ToApplicationError(err, vocab.ConvertOptions{}) },
		"RetryAfterOf":       func() (any, error) { _, ok := vocab.RetryAfterOf(err); return ok, nil },
		"IsNeverRetryable":   func() (any, error) { return vocab.IsNeverRetryable(err), nil },
	} {
		_, _, panicked := guarded(f)
		assert.Empty(t, panicked, "%s of a typed-nil kit error must not panic", name)
	}

	env, kerr := testsuite.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{})
	require.NoError(t, kerr)
	env.RegisterActivityWithOptions(func(context.Context) error { return err }, activityNamed("ReturnsTypedNil"))
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		return workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), "ReturnsTypedNil").Get(ctx, nil)
	})
	require.Error(t, env.GetWorkflowError())
	var panicErr *temporal.PanicError
	assert.False(t, errors.As(env.GetWorkflowError(), &panicErr), "the kit's interceptor panicked: %v", env.GetWorkflowError())
}

// TestTotalFunctionsPolicies calls the pure functions of policies that
// return no error with extreme values: no panic, and their results stay
// inside their documented ranges.
func TestTotalFunctionsPolicies(t *testing.T) {
	t.Parallel()
	durations := []time.Duration{math.MinInt64, -time.Second, -1, 0, 1, time.Second, math.MaxInt64}
	coefficients := []float64{math.NaN(), math.Inf(-1), -1, 0, 1, 2, math.Inf(1), math.MaxFloat64}
	attempts := []int{math.MinInt, -1, 0, 1, 2, 64, 1 << 20, math.MaxInt}
	for _, initial := range durations {
		for _, maxInterval := range durations {
			for _, coef := range coefficients {
				r := policies.RetryConfig{MaxAttempts: 3, InitialInterval: initial, BackoffCoefficient: coef, MaxInterval: maxInterval}
				for _, n := range attempts {
					_, _, panicked := guarded(func() (any, error) {
						w := r.BackoffWindow(n)
						if initial >= 0 && maxInterval >= 0 && w < 0 {
							return nil, fmt.Errorf("BackoffWindow(%d) of %+v = %v, negative", n, r, w)
						}
						return nil, nil
					})
					require.Empty(t, panicked, "%+v n=%d", r, n)
				}
			}
		}
	}
	for _, wait := range durations {
		for _, timeout := range durations {
			for _, elapsed := range durations {
				d := policies.Fit(temporaladk.RetryDecision{Requested: wait, Wait: wait}, timeout, elapsed)
				require.GreaterOrEqual(t, d.Wait, time.Duration(0), "TruncateWait(%v, %v, %v)", wait, timeout, elapsed)
				require.LessOrEqual(t, d.Wait, max(wait, 0), "a wait is never grown")
			}
		}
		// RetryAfterDecision is not yet fitted: a negative Retry-After (which
		// ParseRetryAfter never gives) comes out negative, and Fit, which
		// every caller applies next, reads it as no wait.
		d := policies.Fit(model().Retry.RetryAfterDecision(wait), time.Minute, 0)
		require.GreaterOrEqual(t, d.Wait, time.Duration(0), "Fit(RetryAfterDecision(%v))", wait)
	}
}

func model() policies.ActivityPolicy { return mustDefault(temporaladk.Model) }

func TestBadInputInterceptors(t *testing.T) {
	t.Parallel()
	badPolicy := model()
	badPolicy.Retry.BackoffCoefficient = math.NaN()
	declare := func(d temporaladk.Declaration) interceptors.Options {
		return interceptors.Options{Activities: map[string]temporaladk.Declaration{"Book": d}}
	}
	options := []struct {
		name string
		opts interceptors.Options
		want string
	}{
		{"unknown DefaultClass", interceptors.Options{DefaultClass: "LLM"}, "Options.DefaultClass"},
		{"policy for an unknown class", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{"LLM": model()}}, `"LLM"`},
		{"policy filed under another class", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: model()}}, "Options.Policies[TOOL]"},
		{"invalid policy", interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: badPolicy}}, "Retry.BackoffCoefficient"},
		{"declaration without a name", interceptors.Options{Activities: map[string]temporaladk.Declaration{"": {Class: temporaladk.Tool}}}, `declaration of "": activity type is empty`},
		{"declared unknown class", declare(temporaladk.Declaration{Class: "LLM"}), `declaration of "Book": Class is "LLM"`},
		{"declared unknown idempotency", declare(temporaladk.Declaration{Idempotency: 9}), "Idempotency"},
		{"declared negative timeout", declare(temporaladk.Declaration{Timeout: -time.Second}), "Timeout"},
		{"declared MinInt64 timeout", declare(temporaladk.Declaration{Timeout: math.MinInt64}), "Timeout"},
		{"declared 1ns timeout on a heartbeating class", declare(temporaladk.Declaration{Class: temporaladk.Model, Timeout: 1}), "Timeout"},
		{"declared empty key field", declare(temporaladk.Declaration{KeyFields: []string{""}}), "KeyFields"},
		{"declared key field the input lacks", declare(temporaladk.Declaration{KeyFields: []string{"seat"}, Input: bookingInput{}}), "seat"},
	}
	var cases []badInput
	for _, o := range options {
		cases = append(cases,
			badInput{"NewPlugin: " + o.name, func() (any, error) { return two(interceptors.NewPlugin(o.opts)) }, o.want},
			badInput{"NewKitTestEnvironment: " + o.name, func() (any, error) {
				return two(testsuite.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, o.opts))
			}, o.want},
		)
	}
	runBadInputs(t, cases)
}

// TestUnknownClassTagFailsTheCall tags a call with a class that does not
// exist: the call fails with an error naming it, and nothing is scheduled.
func TestUnknownClassTagFailsTheCall(t *testing.T) {
	t.Parallel()
	env, err := testsuite.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterActivityWithOptions(func(context.Context) error { return nil }, activityNamed("Noop"))
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second})
		return workflow.ExecuteActivity(temporaladk.WithClass(ctx, "LLM"), "Noop").Get(ctx, nil)
	})
	require.True(t, env.IsWorkflowCompleted())
	require.Error(t, env.GetWorkflowError())
	assert.Contains(t, env.GetWorkflowError().Error(), `class "LLM"`)
	assert.Empty(t, env.Recorder.Calls(), "nothing scheduled")
}

func TestBadInputTestsuite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	histories := malformedHistories(t, dir)
	lazy, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(lazy.Close)
	var cases []badInput
	for _, h := range histories {
		cases = append(cases,
			badInput{"HistoryCommands " + h.name, func() (any, error) { return two(testsuite.HistoryCommands(h.path)) }, h.want},
			badInput{"ReplayFile " + h.name, func() (any, error) {
				return nil, testsuite.ReplayFile(h.path, testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: StreamWorkflow}}})
			}, h.replayWant},
		)
	}
	emptyDir := t.TempDir()
	recordPath := filepath.Join(dir, "recorded", "never.json")
	cases = append(cases,
		badInput{"ReplayDir empty directory", func() (any, error) { return nil, testsuite.ReplayDir(emptyDir, testsuite.ReplayOptions{}) }, "no *.json histories"},
		badInput{"ReplayDir missing directory", func() (any, error) {
			return nil, testsuite.ReplayDir(filepath.Join(dir, "missing"), testsuite.ReplayOptions{})
		}, "listing histories"},
		badInput{"ReplayDir of malformed files names each", func() (any, error) {
			return nil, testsuite.ReplayDir(filepath.Join(dir, "histories"), testsuite.ReplayOptions{})
		}, "truncated.json"},
		badInput{"RecordHistory empty workflow ID", func() (any, error) {
			return nil, testsuite.RecordHistory(context.Background(), lazy, "", "", recordPath)
		}, "workflowID is empty"},
		badInput{"RecordHistory unreachable server", func() (any, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			return nil, testsuite.RecordHistory(ctx, lazy, "missing", "", recordPath)
		}, `"missing"`},
		badInput{"NewKitTestEnvironment nil suite", func() (any, error) {
			return two(testsuite.NewKitTestEnvironment(nil, interceptors.Options{}))
		}, "suite is nil"},
		badInput{"StartDevServer negative port", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{Port: -1}))
		}, "Port -1"},
		badInput{"StartDevServer port beyond 65535", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{Port: math.MaxInt32}))
		}, "out of range"},
		badInput{"StartDevServer negative start timeout", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{StartTimeout: math.MinInt64}))
		}, "StartTimeout"},
		badInput{"StartDevServer UI port without the UI", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{UIPort: 1}))
		}, "EnableUI is false"},
		badInput{"StartDevServer CLI that is not there", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{CLIPath: filepath.Join(dir, "no-cli")}))
		}, "CLIPath"},
		badInput{"StartDevServer restart command without an address", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{RestartCommand: "true"}))
		}, "RestartCommand needs Address"},
		badInput{"StartDevServer address with the UI", func() (any, error) {
			return two(testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{Address: "127.0.0.1:7233", EnableUI: true}))
		}, "DevServerOptions.EnableUI cannot apply"},
	)
	// The parent's cleanup runs after its parallel subtests have finished.
	t.Cleanup(func() {
		_, err := os.Stat(recordPath)
		assert.True(t, os.IsNotExist(err), "a failed RecordHistory writes nothing: %v", err)
	})
	runBadInputs(t, cases)
}

// TestFakeClockBadInput moves a fake clock backwards and to the end of time:
// an error, and the clock as it was; it never goes back.
func TestFakeClockBadInput(t *testing.T) {
	refTime := testclock.Epoch(t)
	t.Parallel()
	c := testsuite.NewFakeClock(refTime)
	for _, d := range []time.Duration{-1, -time.Hour, math.MinInt64} {
		require.Error(t, c.Advance(d))
		require.Equal(t, refTime, c.Now(), "a refused move leaves the clock as it was")
	}
	before := c.Now()
	for i := 0; i < 3; i++ {
		require.NoError(t, c.Advance(math.MaxInt64))
		require.False(t, c.Now().Before(before), "the clock never goes back, even at the end of time")
		before = c.Now()
	}
	c.Sleep(math.MinInt64)
	require.Equal(t, before, c.Now(), "a negative sleep does not move the clock")
}

type malformed struct {
	name, path       string
	want, replayWant string
}

// malformedHistories writes the malformed history files of the sweep under
// dir/histories.
func malformedHistories(t *testing.T, dir string) []malformed {
	t.Helper()
	good, err := os.ReadFile(filepath.Join("..", "testsuite", "testdata", "histories", "order_workflow.json"))
	require.NoError(t, err)
	files := []struct {
		name    string
		content []byte
		want    string
		replay  string
	}{
		{"empty.json", nil, "decoding", "decoding"},
		{"not-json.json", []byte("this is not a history"), "decoding", "decoding"},
		{"truncated.json", good[:len(good)/2], "decoding", "decoding"},
		{"wrong-shape.json", []byte(`{"events": 5}`), "decoding", "decoding"},
		{"wrong-event.json", []byte(`{"events": [{"eventId": "x", "eventType": "NoSuchEvent"}]}`), "decoding", "decoding"},
		{"binary.json", []byte{0xff, 0xfe, 0x00, 0x01}, "decoding", "decoding"},
	}
	var out []malformed
	for _, f := range files {
		path := filepath.Join(dir, "histories", f.name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.content, 0o644))
		out = append(out, malformed{name: f.name, path: path, want: f.want, replayWant: f.replay})
	}
	out = append(out, malformed{name: "missing.json", path: filepath.Join(dir, "missing.json"), want: "no such file", replayWant: "no such file"})
	return out
}

// TestGuardCommandBadInput runs the guard command on a file that is not Go,
// a package that does not type-check, a file that does not parse and a
// package that does not exist: exit status 1 with a message, never a panic.
func TestGuardCommandBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guard := filepath.Join(dir, "workflowguard")
	build := exec.Command("go", "build", "-o", guard, "./workflowguard/cmd/workflowguard")
	build.Dir = ".."
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	mod := filepath.Join(dir, "mod")
	files := map[string]string{
		"go.mod":             "module example.com/guardbad\n\ngo 1.26\n",
		"notes.txt":          "Remember to book the refund.\n",
		"broken/broken.go":   "package broken\n\nfunc Total() int { return \"not an int\" }\n",
		"garbled/garbled.go": "this is not Go {{{\n",
	}
	for name, content := range files {
		path := filepath.Join(mod, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a file that is not Go", []string{"notes.txt"}, "notes.txt"},
		{"a package that does not type-check", []string{"./broken"}, `cannot use "not an int"`},
		{"a file that does not parse", []string{"./garbled"}, "expected 'package'"},
		{"a package that does not exist", []string{"./missing"}, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(guard, tt.args...)
			cmd.Dir = mod
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the guard must fail: %s", out)
			assert.Equal(t, 1, exit.ExitCode(), "exit 1 (analysis failed), not 3 (findings) or a crash: %s", out)
			assert.Contains(t, string(out), tt.want)
			assert.NotContains(t, string(out), "panic:")
			assert.NotContains(t, string(out), "goroutine ")
		})
	}
}

// activityNamed is the registration of an activity under name.
func activityNamed(name string) activity.RegisterOptions {
	return activity.RegisterOptions{Name: name}
}

// wfBadInput is a bad input to an entry point that takes a workflow
// context: call runs inside a workflow.
type wfBadInput struct {
	name string
	call func(ctx workflow.Context) (any, error)
	want string
}

// runWorkflowBadInputs runs every call inside one workflow in env, guarded
// against panics, and checks each as runBadInputs does: an error holding
// want, no panic, the zero value with the error.
func runWorkflowBadInputs(t *testing.T, env *sdktestsuite.TestWorkflowEnvironment, cases []wfBadInput) {
	t.Helper()
	type outcome struct {
		got      any
		err      error
		panicked string
	}
	outcomes := make([]outcome, len(cases))
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		for i, tc := range cases {
			got, err, panicked := guarded(func() (any, error) { return tc.call(ctx) })
			outcomes[i] = outcome{got, err, panicked}
		}
		return nil
	})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "the workflow itself goes on")
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := outcomes[i]
			require.Empty(t, o.panicked, "no panic")
			require.Error(t, o.err, "a bad input is an error")
			assert.Contains(t, o.err.Error(), tc.want, "the error says what is wrong")
			assert.True(t, isZero(o.got), "no partial state: got %#v with the error", o.got)
		})
	}
}

// sameCtx reports WithUpdateLimit's context as nil when it is the one
// given: a refused limit leaves the context as it was.
func sameCtx(given workflow.Context) func(workflow.Context, error) (any, error) {
	return func(got workflow.Context, err error) (any, error) {
		if got == given {
			return nil, err
		}
		return got, err
	}
}

// TestBadInputWithBudgets feeds temporaladk.WithBudgets what it must
// refuse, in a workflow with the kit: an error naming the field, no panic,
// and no context with the error.
func TestBadInputWithBudgets(t *testing.T) {
	t.Parallel()
	env, err := testsuite.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{})
	require.NoError(t, err)
	with := func(b temporaladk.Budgets) func(workflow.Context) (any, error) {
		return func(ctx workflow.Context) (any, error) { return two(temporaladk.WithBudgets(ctx, b)) }
	}
	runWorkflowBadInputs(t, env.TestWorkflowEnvironment, []wfBadInput{
		{"empty name", with(temporaladk.Budgets{Attempts: 5}), "Name is empty"},
		{"blank name", with(temporaladk.Budgets{Name: " \t", Retries: 5}), "Name is empty"},
		{"nothing set", with(temporaladk.Budgets{Name: "turns"}), "nothing is set"},
		{"Attempts negative", with(temporaladk.Budgets{Name: "turns", Attempts: -1}), "Attempts is -1"},
		{"Attempts MinInt", with(temporaladk.Budgets{Name: "turns", Attempts: math.MinInt}), fmt.Sprintf("Attempts is %d", math.MinInt)},
		{"Retries negative", with(temporaladk.Budgets{Name: "fan", Retries: -1}), "Retries is -1"},
		{"Retries MinInt", with(temporaladk.Budgets{Name: "fan", Retries: math.MinInt}), fmt.Sprintf("Retries is %d", math.MinInt)},
		{"Tokens negative", with(temporaladk.Budgets{Name: "spend", Tokens: -1, MaxTokens: 10}), "Tokens is -1"},
		{"Cost negative", with(temporaladk.Budgets{Name: "spend", Cost: -1, MaxTokens: 10, Model: "m"}), "Cost is -1"},
		{"MaxTokens negative", with(temporaladk.Budgets{Name: "spend", Tokens: 100, MaxTokens: -1}), "MaxTokens is -1"},
		{"a negative field beside valid ones", with(temporaladk.Budgets{Name: "turns", Attempts: 5, Retries: -1}), "Retries is -1"},
		{"Tokens without a cap", with(temporaladk.Budgets{Name: "spend", Tokens: 100}), "MaxTokens is 0"},
		{"Cost without a cap", with(temporaladk.Budgets{Name: "spend", Cost: 100, Model: "m"}), "MaxTokens is 0"},
		{"Cost without a model", with(temporaladk.Budgets{Name: "spend", Cost: 100, MaxTokens: 10}), "Model is empty"},
		{"nil context", func(workflow.Context) (any, error) {
			return two(temporaladk.WithBudgets(nil, temporaladk.Budgets{Name: "turns", Attempts: 5}))
		}, "WithBudgets: ctx is nil"},
	})
}

func TestBadInputConversation(t *testing.T) {
	t.Parallel()
	env, err := testsuite.NewKitTestEnvironment(&sdktestsuite.WorkflowTestSuite{}, interceptors.Options{})
	require.NoError(t, err)
	var nilWorkflow func(workflow.Context) error
	twoArgs := func(ctx workflow.Context, a string, b int) error { return nil }
	runWorkflowBadInputs(t, env.TestWorkflowEnvironment, []wfBadInput{
		{"WithUpdateLimit zero", func(ctx workflow.Context) (any, error) { return sameCtx(ctx)(conversation.WithUpdateLimit(ctx, 0)) }, "limit is 0: it must be at least 1"},
		{"WithUpdateLimit negative", func(ctx workflow.Context) (any, error) { return sameCtx(ctx)(conversation.WithUpdateLimit(ctx, -5)) }, "limit is -5"},
		{"WithUpdateLimit MinInt", func(ctx workflow.Context) (any, error) {
			return sameCtx(ctx)(conversation.WithUpdateLimit(ctx, math.MinInt))
		}, "it must be at least 1"},
		{"ContinueAsNew nil workflow", func(ctx workflow.Context) (any, error) { return nil, conversation.ContinueAsNew(ctx, nil) }, "the workflow function is nil"},
		{"ContinueAsNew typed nil workflow", func(ctx workflow.Context) (any, error) { return nil, conversation.ContinueAsNew(ctx, nilWorkflow) }, "the workflow function is nil"},
		{"ContinueAsNew not a function", func(ctx workflow.Context) (any, error) { return nil, conversation.ContinueAsNew(ctx, 42) }, "conversation: ContinueAsNew"},
		{"ContinueAsNew too few arguments", func(ctx workflow.Context) (any, error) {
			return nil, conversation.ContinueAsNew(ctx, twoArgs, "a")
		}, "conversation: ContinueAsNew"},
		{"ContinueAsNew arguments of the wrong type", func(ctx workflow.Context) (any, error) {
			return nil, conversation.ContinueAsNew(ctx, twoArgs, 1, "b")
		}, "conversation: ContinueAsNew"},
	})
}

// Without the kit's interceptor the conversation package's calls, and
// temporaladk.WithBudgets, panic, naming the call and the fix: the panic
// fails the workflow task, so that a worker with the kit retries it, rather
// than hand a budget nothing carries.
func TestBadInputConversationWithoutTheKit(t *testing.T) {
	t.Parallel()
	calls := map[string]func(ctx workflow.Context){
		"temporaladk.WithBudgets": func(ctx workflow.Context) {
			_, _ = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: 5})
		},
		"conversation.Updates": func(ctx workflow.Context) { conversation.Updates(ctx) },
	}
	panicked := map[string]string{}
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		for name, call := range calls {
			_, _, p := guarded(func() (any, error) { call(ctx); return nil, nil })
			panicked[name] = p
		}
		return nil
	})
	require.NoError(t, env.GetWorkflowError())
	for name := range calls {
		assert.Contains(t, panicked[name], name+": this workflow runs without the kit's interceptor", "a panic naming the call")
		assert.Contains(t, panicked[name], "interceptors.NewPlugin", "and the fix")
	}
}

// Every exported function that takes a context.Context refuses a nil one
// with an error naming the call, or (ActivityContext, which returns a
// context) a panic naming it; the readers ActivityCallFrom and
// HeartbeaterFrom report no call, as outside the kit.
func TestBadInputNilContexts(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	runBadInputs(t, []badInput{
		{"testsuite.StartDevServer", func() (any, error) { return testsuite.StartDevServer(nilCtx, testsuite.DevServerOptions{}) }, "StartDevServer: ctx is nil"},
		{"testsuite.StartDevServer at an address", func() (any, error) {
			return testsuite.StartDevServer(nilCtx, testsuite.DevServerOptions{Address: "127.0.0.1:7233"})
		}, "StartDevServer: ctx is nil"},
		{"testsuite.WorkflowHistory", func() (any, error) { return testsuite.WorkflowHistory(nilCtx, nil, "wf", "") }, "WorkflowHistory: ctx is nil"},
		{"testsuite.RecordHistory", func() (any, error) {
			return nil, testsuite.RecordHistory(nilCtx, nil, "wf", "", filepath.Join(t.TempDir(), "h.json"))
		}, "RecordHistory: ctx is nil"},
	})
	_, _, panicked := guarded(func() (any, error) { return testsuite.ActivityContext(nilCtx, temporaladk.ActivityCall{}), nil })
	assert.Contains(t, panicked, "ActivityContext: ctx is nil")
	_, ok := temporaladk.ActivityCallFrom(nilCtx)
	assert.False(t, ok)
	assert.Zero(t, temporaladk.HeartbeaterFrom(nilCtx).Beats())
}
