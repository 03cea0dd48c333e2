package temporaladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

var errRoot = errors.New("connection reset by peer")

// kitErrors is one error of every kit type, with every field set.
func kitErrors() []temporaladk.Error {
	return []temporaladk.Error{
		&temporaladk.GuardrailViolationError{Guardrail: "pii", Reason: "card number in output"},
		&temporaladk.GuardrailEvaluationError{Guardrail: "toxicity", Reason: "classifier down", Cause: errRoot},
		&temporaladk.SchemaViolationError{Schema: "Booking", Path: "$.seat", Reason: "missing"},
		&temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2},
		&temporaladk.ApprovalDeniedError{Action: "charge_card", Approver: "ops", Reason: "over limit"},
		&temporaladk.ScopeEscalationError{Requested: "payments:write", Granted: "payments:read", Reason: "not granted"},
		&temporaladk.ProviderError{Provider: "openai", StatusCode: 503, RetryAfter: 2 * time.Second, Message: "Service Unavailable", Cause: errRoot},
		&temporaladk.ProviderTimeoutError{Provider: "openai", Message: "no first token", Cause: errRoot},
		&temporaladk.ProviderUnavailableError{Provider: "anthropic", Message: "refused", Cause: errRoot},
		&temporaladk.RateLimitError{Provider: "openai", Quota: true, RetryAfter: 30 * time.Second, Message: "HTTP 429"},
		&temporaladk.ToolFailureError{Tool: "search", Transient: true, Reason: "index warming", Cause: errRoot},
		&temporaladk.IndeterminateOutcomeError{Tool: "charge_card", Reason: "worker lost after the charge", Cause: errRoot},
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  temporaladk.Error
		want bool
	}{
		{&temporaladk.GuardrailViolationError{}, false},
		{&temporaladk.GuardrailEvaluationError{}, false},
		{&temporaladk.SchemaViolationError{}, false},
		{&temporaladk.BudgetExceededError{}, false},
		{&temporaladk.ApprovalDeniedError{}, false},
		{&temporaladk.ScopeEscalationError{}, false},
		{&temporaladk.ProviderError{}, true},
		{&temporaladk.ProviderError{StatusCode: 408}, true},
		{&temporaladk.ProviderError{StatusCode: 409}, true},
		{&temporaladk.ProviderError{StatusCode: 425}, true},
		{&temporaladk.ProviderError{StatusCode: 429}, true},
		{&temporaladk.ProviderError{StatusCode: 500}, true},
		{&temporaladk.ProviderError{StatusCode: 502}, true},
		{&temporaladk.ProviderError{StatusCode: 503}, true},
		{&temporaladk.ProviderError{StatusCode: 504}, true},
		{&temporaladk.ProviderError{StatusCode: 529}, true},
		{&temporaladk.ProviderError{StatusCode: 501}, false},
		{&temporaladk.ProviderError{StatusCode: 400}, false},
		{&temporaladk.ProviderError{StatusCode: 401}, false},
		{&temporaladk.ProviderError{StatusCode: 404}, false},
		{&temporaladk.ProviderError{StatusCode: 422}, false},
		{&temporaladk.ProviderError{StatusCode: 501}, false},
		{&temporaladk.ProviderTimeoutError{}, true},
		{&temporaladk.ProviderUnavailableError{}, true},
		{&temporaladk.RateLimitError{}, true},
		{&temporaladk.RateLimitError{Quota: true}, false},
		{&temporaladk.ToolFailureError{}, false},
		{&temporaladk.ToolFailureError{Transient: true}, true},
		{&temporaladk.IndeterminateOutcomeError{}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.err.Type(), tt.err), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.err.Retryable())
		})
	}
}

func TestNeverRetryableSet(t *testing.T) {
	t.Parallel()
	want := []string{"TemporaladkSchemaViolation", "TemporaladkGuardrailViolation", "TemporaladkGuardrailEvaluation", "TemporaladkBudgetExceeded", "TemporaladkApprovalDenied", "TemporaladkScopeEscalation"}
	got := vocab.NeverRetryableTypes()
	assert.ElementsMatch(t, want, got)
	got[0] = "changed"
	assert.ElementsMatch(t, want, vocab.NeverRetryableTypes(), "callers get a copy")
	for _, e := range kitErrors() {
		assert.Equal(t, vocab.IsNeverRetryableType(e.Type()), vocab.IsNeverRetryable(fmt.Errorf("wrapped: %w", e)), e.Type())
		if vocab.IsNeverRetryable(e) {
			assert.False(t, e.Retryable(), "%s is never retryable and says so", e.Type())
		}
	}
	assert.False(t, vocab.IsNeverRetryable(errors.New("plain")))
	assert.False(t, vocab.IsNeverRetryable(nil))
}

// Every type string the kit records follows one scheme, "Temporaladk" and
// the name of the kit's error without "Error", one row of the error table
// each. For the errors a user's code returns it is the Go type's own name
// (the name the SDK records for one returned raw), and the row's former
// type is the alias code names it by, which no kit error has as its Type
// any more and no retry policy of the kit's lists.
func TestTypeNamingScheme(t *testing.T) {
	t.Parallel()
	errs := append(kitErrors(), kitsOwnErrors()...)
	byType := map[string]temporaladk.Error{}
	for _, e := range errs {
		name := reflectName(e)
		want := "Temporaladk" + strings.TrimSuffix(name, "Error")
		if strings.HasPrefix(name, "Temporaladk") {
			want = name
		}
		assert.Equal(t, want, e.Type(), name)
		assert.True(t, vocab.IsKitType(e.Type()))
		byType[e.Type()] = e
	}
	rows := vocab.ErrorTypes()
	assert.Len(t, byType, len(rows), "one kit error a row")
	for _, row := range rows {
		e, ok := byType[row.Type]
		require.True(t, ok, "%s: a kit error of the row's type", row.Type)
		assert.Equal(t, row.Error, fmt.Sprintf("%T", e), "the row names the Go type")
		if row.Formerly != "" {
			assert.Equal(t, row.Type, reflectName(e), "the Go type's name is the type the server records")
			assert.Equal(t, strings.TrimPrefix(row.Type, "Temporaladk")+"Error", row.Formerly, "the former type is the alias's name")
			assert.False(t, vocab.IsKitType(row.Formerly), "%s is no kit type now", row.Formerly)
			assert.NotContains(t, vocab.NeverRetryableTypes(), row.Formerly)
		}
	}
	assert.False(t, vocab.IsKitType("PanicError"))
}

func reflectName(e any) string { return reflect.TypeOf(e).Elem().Name() }

func TestBudgetExceededDetails(t *testing.T) {
	t.Parallel()
	err := &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}
	assert.Equal(t, map[string]string{"breached": "attempts", "limit": "2", "consumed": "2", "attempts": "2"}, err.Details())
	assert.Equal(t, "budget exceeded: attempts ceiling 2, 2 spent, 0 left: refused after 2 attempts", err.Error())

	// A refusal says the arithmetic that refused it: what the attempt asked
	// against what was left.
	tokens := &temporaladk.BudgetExceededError{Breached: "tokens", Limit: 50, Consumed: 0, Asked: 300}
	assert.Equal(t, "budget exceeded: tokens ceiling 50, 0 spent, 50 left, and this attempt asks 300: refused after 0 attempts", tokens.Error())
	assert.Equal(t, "300", tokens.Details()["asked"])
	over := &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 3, Consumed: 5, Asked: 1, Attempts: 5}
	assert.Equal(t, "budget exceeded: attempts ceiling 3, 5 spent, 0 left, and this attempt asks 1: refused after 5 attempts", over.Error(), "a chain that spent past a narrowed ceiling has none left, never a negative")
}

func TestErrorMessagesAndUnwrap(t *testing.T) {
	t.Parallel()
	for _, e := range kitErrors() {
		assert.NotEmpty(t, e.Error())
		if errors.Unwrap(e) != nil {
			assert.ErrorIs(t, e, errRoot, e.Type())
			assert.Contains(t, e.Error(), errRoot.Error(), "%s keeps its cause in the message", e.Type())
		}
	}
}

func TestRetryAfterOf(t *testing.T) {
	t.Parallel()
	d, ok := vocab.RetryAfterOf(fmt.Errorf("call: %w", &temporaladk.RateLimitError{RetryAfter: 2 * time.Second}))
	assert.True(t, ok)
	assert.Equal(t, 2*time.Second, d)
	d, ok = vocab.RetryAfterOf(&temporaladk.ProviderError{StatusCode: 503, RetryAfter: time.Second})
	assert.True(t, ok)
	assert.Equal(t, time.Second, d)
	_, ok = vocab.RetryAfterOf(&temporaladk.ProviderError{StatusCode: 503})
	assert.False(t, ok)
	_, ok = vocab.RetryAfterOf(errors.New("plain"))
	assert.False(t, ok)
}

func TestToApplicationError(t *testing.T) {
	t.Parallel()
	for _, kit := range kitErrors() {
		t.Run(kit.Type(), func(t *testing.T) {
			t.Parallel()
			wrapped := fmt.Errorf("step 3: %w", kit)
			err := vocab.ToApplicationError(wrapped, vocab.ConvertOptions{NextRetryDelay: time.Second})
			var app *temporal.ApplicationError
			require.ErrorAs(t, err, &app)
			assert.Equal(t, kit.Type(), app.Type())
			assert.Equal(t, wrapped.Error(), app.Message())
			assert.Equal(t, !kit.Retryable(), app.NonRetryable())
			if kit.Retryable() {
				assert.Equal(t, time.Second, app.NextRetryDelay())
			} else {
				assert.Zero(t, app.NextRetryDelay(), "a final error asks for no retry delay")
			}
			if errors.Unwrap(kit) != nil {
				assert.ErrorIs(t, app, errRoot, "the cause travels as the cause")
			}

			back := temporaladk.FromApplicationError(err)
			assertSameKitError(t, kit, back)
		})
	}
}

func TestToApplicationErrorLeavesOtherErrorsAlone(t *testing.T) {
	t.Parallel()
	plain := errors.New("disk full")
	assert.Same(t, plain, vocab.ToApplicationError(plain, vocab.ConvertOptions{}))
	assert.NoError(t, vocab.ToApplicationError(nil, vocab.ConvertOptions{}))
	app := temporal.NewApplicationError("mine", "MyType", nil)
	assert.Same(t, app, vocab.ToApplicationError(app, vocab.ConvertOptions{}))
	assert.Same(t, app, temporaladk.FromApplicationError(app), "an ApplicationError of a foreign type is not rebuilt")
	assert.Same(t, plain, temporaladk.FromApplicationError(plain))
	assert.NoError(t, temporaladk.FromApplicationError(nil))
}

func TestToApplicationErrorFinal(t *testing.T) {
	t.Parallel()
	decision := temporaladk.RetryDecision{Source: "jitter", Requested: 30 * time.Second, Wait: 0, Truncated: true, Final: true, Reason: "no time left"}
	err := vocab.ToApplicationError(&temporaladk.ProviderError{StatusCode: 503}, vocab.ConvertOptions{NextRetryDelay: time.Second, Final: true, Decision: &decision})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable(), "Final makes a retryable error final")
	assert.Zero(t, app.NextRetryDelay())
	got, ok := temporaladk.RetryDecisionOf(err)
	require.True(t, ok)
	assert.Equal(t, decision, got)
	_, ok = temporaladk.RetryDecisionOf(vocab.ToApplicationError(&temporaladk.ProviderError{}, vocab.ConvertOptions{}))
	assert.False(t, ok, "no decision was recorded")
}

// A budget whose numbers cannot be encoded still crosses as its type.
func TestToApplicationErrorUnencodableFields(t *testing.T) {
	t.Parallel()
	err := vocab.ToApplicationError(&temporaladk.BudgetExceededError{Breached: "usd", Limit: math.NaN(), Attempts: 3}, vocab.ConvertOptions{})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, temporaladk.TypeBudgetExceeded, app.Type())
	var budget *temporaladk.BudgetExceededError
	require.ErrorAs(t, temporaladk.FromApplicationError(err), &budget, "the type survives; the fields could not")
	assert.True(t, app.NonRetryable())
}

func assertSameKitError(t *testing.T, want temporaladk.Error, got error) {
	t.Helper()
	rebuilt, ok := temporaladk.AsError(got)
	require.True(t, ok, "a kit error is reachable in %v", got)
	require.IsType(t, want, rebuilt)
	target := reflectNew(want)
	require.ErrorAs(t, got, target, "errors.As finds the typed error")
	// Causes cross as Temporal errors carrying the message, not as the
	// original values: compare fields, and the cause by message.
	assert.Equal(t, stripCause(want), stripCause(rebuilt))
	if cause := errors.Unwrap(want); cause != nil {
		require.Error(t, errors.Unwrap(rebuilt), "the cause is kept")
		assert.Contains(t, errors.Unwrap(rebuilt).Error(), cause.Error())
	}
}

// seenByWorkflow is what the workflow found in the activity's error.
type seenByWorkflow struct {
	Type   string
	Fields string // the typed error's fields as JSON
	Cause  string
}

// roundTripWorkflow runs an activity that fails with the kit error of the
// given index, finds the typed error with errors.As on the workflow side and
// returns what it holds.
func roundTripWorkflow(ctx workflow.Context, index int) (seenByWorkflow, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	err := workflow.ExecuteActivity(ctx, failWithKitError, index).Get(ctx, nil)
	target := reflectNew(kitErrors()[index])
	if !errors.As(temporaladk.FromApplicationError(err), target) {
		return seenByWorkflow{}, fmt.Errorf("errors.As found no %T in %v", target, err)
	}
	typed := reflect.ValueOf(target).Elem().Interface().(temporaladk.Error)
	fields, jerr := json.Marshal(typed)
	if jerr != nil {
		return seenByWorkflow{}, jerr
	}
	seen := seenByWorkflow{Type: typed.Type(), Fields: string(fields)}
	if cause := errors.Unwrap(typed); cause != nil {
		seen.Cause = cause.Error()
	}
	return seen, nil
}

func failWithKitError(_ context.Context, index int) error {
	return vocab.ToApplicationError(kitErrors()[index], vocab.ConvertOptions{})
}

// The round trip through the SDK's test environment: the error is encoded by
// the data converter and decoded on the workflow side.
func TestApplicationErrorRoundTripInTestEnvironment(t *testing.T) {
	for i, kit := range kitErrors() {
		t.Run(kit.Type(), func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.RegisterActivity(failWithKitError)
			env.RegisterWorkflow(roundTripWorkflow)
			env.ExecuteWorkflow(roundTripWorkflow, i)
			require.NoError(t, env.GetWorkflowError())
			var seen seenByWorkflow
			require.NoError(t, env.GetWorkflowResult(&seen))
			assertSeen(t, kit, seen)
		})
	}
}

// assertSeen checks that the workflow saw kit's type and every field, and
// its cause by message.
func assertSeen(t *testing.T, kit temporaladk.Error, seen seenByWorkflow) {
	t.Helper()
	want, err := json.Marshal(kit)
	require.NoError(t, err)
	assert.Equal(t, kit.Type(), seen.Type)
	assert.JSONEq(t, string(want), seen.Fields)
	if cause := errors.Unwrap(kit); cause != nil {
		assert.Contains(t, seen.Cause, cause.Error())
	} else {
		assert.Empty(t, seen.Cause)
	}
}

// stripCause returns a copy of a kit error without its cause, for comparing
// fields.
func stripCause(e temporaladk.Error) temporaladk.Error {
	switch e := e.(type) {
	case *temporaladk.GuardrailEvaluationError:
		c := *e
		c.Cause = nil
		return &c
	case *temporaladk.ProviderError:
		c := *e
		c.Cause = nil
		return &c
	case *temporaladk.ProviderTimeoutError:
		c := *e
		c.Cause = nil
		return &c
	case *temporaladk.ProviderUnavailableError:
		c := *e
		c.Cause = nil
		return &c
	case *temporaladk.ToolFailureError:
		c := *e
		c.Cause = nil
		return &c
	case *temporaladk.IndeterminateOutcomeError:
		c := *e
		c.Cause = nil
		return &c
	}
	return e
}

// reflectNew returns a new **T for an error of type *T, an errors.As target.
func reflectNew(e temporaladk.Error) any { return reflect.New(reflect.TypeOf(e)).Interface() }

// A typed nil kit error returned as an error is left alone, and none of its
// methods panics.
func TestTypedNilKitErrors(t *testing.T) {
	t.Parallel()
	for _, kit := range kitErrors() {
		typedNil := reflect.Zero(reflect.TypeOf(kit)).Interface().(temporaladk.Error)
		var err error = typedNil
		assert.NotPanics(t, func() {
			assert.Contains(t, err.Error(), "<nil *temporaladk.")
			assert.False(t, typedNil.Retryable(), "%s: nil is not worth retrying", kit.Type())
			_ = errors.Unwrap(err)
			_, ok := temporaladk.AsError(err)
			assert.False(t, ok, "a typed nil is not a kit error")
			assert.Same(t, err, vocab.ToApplicationError(err, vocab.ConvertOptions{}))
			assert.Equal(t, err, temporaladk.FromApplicationError(err))
			_, _ = vocab.RetryAfterOf(err)
			assert.False(t, vocab.IsNeverRetryable(err))
		}, kit.Type())
	}
	var budget *temporaladk.BudgetExceededError
	assert.Empty(t, budget.Details())
}
