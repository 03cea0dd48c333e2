package temporaladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// kitsOwnErrors is one of each of the failures the kit makes itself, with
// every field set.
func kitsOwnErrors() []temporaladk.Error {
	return []temporaladk.Error{
		&temporaladk.BadCallHeaderError{Message: `temporaladk: the call header "temporaladk-call" does not decode`},
		&temporaladk.BudgetUnavailableError{Message: "temporaladk: charging attempt 2 of budgeted call call-1: context deadline exceeded", Cause: errRoot},
		&temporaladk.RunOutOfUpdatesError{Message: "temporaladk: charging attempt 2 of budgeted call call-1: this run has no Updates left; continue as new", Cause: errRoot},
		&temporaladk.BudgetClosedError{Message: "temporaladk: this run is continuing as new and charges nothing more", Cause: errRoot},
		&temporaladk.MisconfiguredError{Message: "temporaladk: activity Chat was not scheduled: a metered local activity"},
		&temporaladk.RetryRefusedError{Message: "temporaladk: activity Book gets one attempt and this is attempt 2"},
		&temporaladk.ModelUnpricedError{Message: "temporaladk: the model gpt-x has no price in the worker's price table", Cause: errRoot},
		&temporaladk.ApprovalRejectedError{Message: "temporaladk: approval rejected: no waiting call"},
		&temporaladk.ApprovalNotGrantedError{Message: "temporaladk: activity Book needs an approval and carries no grant"},
	}
}

// The kit's own failures follow one naming scheme: XError of type
// TypeX = "TemporaladkX", a row of the error table each, typed.
func TestKitsOwnErrorsNaming(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, kit := range kitsOwnErrors() {
		name := reflectName(kit)
		assert.Equal(t, "Temporaladk"+strings.TrimSuffix(name, "Error"), kit.Type(), name)
		row, ok := vocab.LookupErrorType(kit.Type())
		require.True(t, ok, "%s has a row", kit.Type())
		assert.Equal(t, "*temporaladk."+name, row.Error, "the row names the Go type")
		assert.True(t, vocab.IsKitType(kit.Type()), "%s is rebuilt from an ApplicationError", kit.Type())
		seen[kit.Type()] = true
	}
	for _, row := range vocab.ErrorTypes() {
		if row.Formerly == "" {
			assert.True(t, seen[row.Type], "%s is one of the kit's own failures: add it to kitsOwnErrors", row.Type)
		}
	}
}

// Error is the message alone, which is what the server records as the
// ApplicationError's message; an empty one still says what failed.
func TestKitsOwnErrorsMessages(t *testing.T) {
	t.Parallel()
	for _, kit := range kitsOwnErrors() {
		assert.NotContains(t, kit.Error(), errRoot.Error(), "%s: the cause is not repeated", kit.Type())
		empty := reflect.New(reflect.TypeOf(kit).Elem()).Interface().(temporaladk.Error)
		assert.True(t, strings.HasPrefix(empty.Error(), "temporaladk: "), "%s: %q", kit.Type(), empty.Error())
		if cause := errors.Unwrap(kit); cause != nil {
			assert.Same(t, errRoot, cause, kit.Type())
		}
	}
}

// ownSeen is what the workflow found in the activity's error.
type ownSeen struct {
	Type, Fields, Cause, Message string
	// NonRetryable is the ApplicationError's flag; Retryable the kit's
	// answer for the failure as the workflow got it, and the rebuilt typed
	// error's.
	NonRetryable, Retryable, TypedRetryable bool
}

// ownRoundTripWorkflow runs an activity that fails with kitsOwnErrors()[index],
// as the kit raises it (vocab.ToApplicationError) or, legacy, as histories
// recorded before it had a Go type hold it (an ApplicationError of its type
// alone); it finds the typed error with errors.As.
func ownRoundTripWorkflow(ctx workflow.Context, index int, legacy bool) (ownSeen, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	err := workflow.ExecuteActivity(ctx, failWithKitsOwnError, index, legacy).Get(ctx, nil)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return ownSeen{}, fmt.Errorf("no ApplicationError in %v", err)
	}
	target := reflectNew(kitsOwnErrors()[index])
	if !errors.As(temporaladk.FromApplicationError(err), target) {
		return ownSeen{}, fmt.Errorf("errors.As found no %T in %v", target, err)
	}
	typed := reflect.ValueOf(target).Elem().Interface().(temporaladk.Error)
	fields, jerr := json.Marshal(typed)
	if jerr != nil {
		return ownSeen{}, jerr
	}
	seen := ownSeen{Type: typed.Type(), Fields: string(fields), Message: typed.Error(),
		NonRetryable: app.NonRetryable(), Retryable: vocab.Retryable(err), TypedRetryable: typed.Retryable()}
	if cause := errors.Unwrap(typed); cause != nil {
		seen.Cause = cause.Error()
	}
	return seen, nil
}

func failWithKitsOwnError(_ context.Context, index int, legacy bool) error {
	kit := kitsOwnErrors()[index]
	if legacy {
		return temporal.NewApplicationErrorWithOptions(kit.Error(), kit.Type(), temporal.ApplicationErrorOptions{NonRetryable: !kit.Retryable()})
	}
	return vocab.ToApplicationError(kit, vocab.ConvertOptions{})
}

// Each of the kit's own failures crosses the activity boundary through the
// SDK's data and failure converters (what the server records) and comes
// back, with errors.As on FromApplicationError's result, as its typed
// error with its fields and cause; an ApplicationError of its type recorded
// before it had a Go type comes back typed with its message. Its
// retryability, on both sides, is its row's.
func TestKitsOwnErrorsRoundTrip(t *testing.T) {
	for i, kit := range kitsOwnErrors() {
		row, ok := vocab.LookupErrorType(kit.Type())
		require.True(t, ok, kit.Type())
		retried := row.Retry == vocab.RetryYes
		for _, legacy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s legacy=%v", kit.Type(), legacy), func(t *testing.T) {
				assert.Equal(t, retried, kit.Retryable(), "Retryable is the row's")
				var s testsuite.WorkflowTestSuite
				env := s.NewTestWorkflowEnvironment()
				env.RegisterActivity(failWithKitsOwnError)
				env.RegisterWorkflow(ownRoundTripWorkflow)
				env.ExecuteWorkflow(ownRoundTripWorkflow, i, legacy)
				require.NoError(t, env.GetWorkflowError())
				var seen ownSeen
				require.NoError(t, env.GetWorkflowResult(&seen))
				assert.Equal(t, kit.Type(), seen.Type)
				assert.Equal(t, kit.Error(), seen.Message, "the message survives")
				assert.Equal(t, !retried, seen.NonRetryable, "recorded as its row says")
				assert.Equal(t, retried, seen.Retryable, "the kit's decision on the recorded failure")
				assert.Equal(t, retried, seen.TypedRetryable, "the rebuilt error's Retryable")
				if legacy {
					assert.Empty(t, seen.Cause, "a legacy failure recorded no cause")
					return
				}
				want, err := json.Marshal(kit)
				require.NoError(t, err)
				assert.JSONEq(t, string(want), seen.Fields, "every field survives")
				if cause := errors.Unwrap(kit); cause != nil {
					assert.Contains(t, seen.Cause, cause.Error(), "the cause survives by its message")
				} else {
					assert.Empty(t, seen.Cause)
				}
			})
		}
	}
}

// A typed nil of the kit's own failures is left alone, and none of its
// methods panics.
func TestKitsOwnTypedNil(t *testing.T) {
	t.Parallel()
	for _, kit := range kitsOwnErrors() {
		typedNil := reflect.Zero(reflect.TypeOf(kit)).Interface().(temporaladk.Error)
		var err error = typedNil
		assert.NotPanics(t, func() {
			assert.Contains(t, err.Error(), "<nil *temporaladk.")
			assert.False(t, typedNil.Retryable())
			_ = errors.Unwrap(err)
			_, ok := temporaladk.AsError(err)
			assert.False(t, ok)
			assert.Same(t, err, vocab.ToApplicationError(err, vocab.ConvertOptions{}))
		}, kit.Type())
	}
}
