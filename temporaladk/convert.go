package temporaladk

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"go.temporal.io/sdk/temporal"
)

// RetryDecision is what the activity side decided about the wait before the
// next attempt. It travels in the ApplicationError's details so that an
// operator, and the workflow, can read the schedule the run really followed.
type RetryDecision struct {
	// Source is where the wait came from: "jitter" (drawn inside the
	// activity), "retry-after" (asked for by the provider) or "fixed" (the
	// error table's Wait for the failure's type).
	Source string `json:"source"`
	// Requested is the wait before it was fitted to the deadline.
	Requested time.Duration `json:"requested"`
	// Wait is the wait handed to the server as NextRetryDelay.
	Wait time.Duration `json:"wait"`
	// Truncated is true when Wait is shorter than Requested because the
	// activity's deadline could not afford it.
	Truncated bool `json:"truncated,omitempty"`
	// Final is true when no further attempt will be made for this failure
	// (no time left, or a Retry-After beyond the policy's MaxRetryAfter).
	Final bool `json:"final,omitempty"`
	// Reason explains a truncation or a final decision, naming the deadline
	// or the limit; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// BudgetRemaining is, for a call under a budget whose next attempt was
	// charged when this one failed, what the budget has left after that
	// charge: attempts under its AttemptBudget, or retries in its RetryBudget
	// when it has none. Nil when the call has no budget, or the charge got
	// no answer yet.
	BudgetRemaining *int `json:"budget_remaining,omitempty"`
}

// decodeDetails reads an ApplicationError's details into targets. The SDK's
// decoding of details that were never encoded assigns by reflection and
// panics on a foreign layout; that is reported as an error here.
func decodeDetails(app *temporal.ApplicationError, targets ...any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("temporaladk: details of %s do not have the kit's layout: %v", app.Type(), r)
		}
	}()
	return app.Details(targets...)
}

// rebuild finds an ApplicationError of a kit type in err's chain and returns
// the typed error it carries, with the ApplicationError's cause as its cause.
func rebuild(err error) (Error, bool) {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return nil, false
	}
	kit, ok := newKitError(app)
	if !ok {
		return nil, false
	}
	if app.HasDetails() {
		// A detail that does not decode (an older or newer field layout)
		// leaves the fields it could not read at their zero values; the type,
		// the message and the cause are kept either way.
		_ = decodeDetails(app, kit)
	} else if m, ok := kit.(messageCarrier); ok {
		// One of the kit's own failures recorded before it had a Go type
		// carries its fields in its message alone.
		m.setMessage(app.Message())
	}
	if cause := app.Unwrap(); cause != nil {
		setCause(kit, FromApplicationError(cause))
	}
	return kit, true
}

// errorType is the reflect type of the error interface.
var errorType = reflect.TypeFor[error]()

// setCause restores cause into kit's Cause field, for every kit error that
// has one: one rule, so that no type can be forgotten.
func setCause(kit Error, cause error) {
	v := reflect.ValueOf(kit)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("Cause")
	if f.IsValid() && f.CanSet() && f.Type() == errorType {
		f.Set(reflect.ValueOf(cause))
	}
}

// FromApplicationError makes the kit error carried by a Temporal
// ApplicationError reachable again on the workflow side: errors.As on the
// result finds the typed error (a *GuardrailViolationError, a
// *BudgetExceededError, ...) with its fields, and the original error, with
// its ActivityError and ApplicationError, stays in the chain and gives the
// message.
//
//	err := workflow.ExecuteActivity(ctx, Book, req).Get(ctx, nil)
//	var denied *temporaladk.ApprovalDeniedError
//	if errors.As(temporaladk.FromApplicationError(err), &denied) { ... }
//
// A failure decoded from history under a type's former name
// ("SchemaViolationError", recorded by an earlier build) is typed too (see
// "Former type names" in the package doc).
//
// An error that carries no kit error, one whose kit error is already
// reachable, and nil are returned unchanged: the errors the kit makes in
// workflow code (an approval denied or not decided in time, a budget's
// refusal of a call's first attempt) need no conversion, and calling it on
// them does no harm (see "When to call FromApplicationError" in the
// package doc).
func FromApplicationError(err error) error {
	if err == nil {
		return nil
	}
	var kit Error
	if errors.As(err, &kit) && !isNilPointer(kit) {
		return err
	}
	rebuilt, ok := rebuild(err)
	if !ok {
		return err
	}
	return &carriedError{kit: rebuilt, original: err}
}

// carriedError joins a rebuilt kit error and the error that carried it.
type carriedError struct {
	kit      Error
	original error
}

func (e *carriedError) Error() string   { return e.original.Error() }
func (e *carriedError) Unwrap() []error { return []error{e.kit, e.original} }

// RetryDecisionOf returns the retry decision the activity side recorded in
// err's ApplicationError, and whether there was one.
func RetryDecisionOf(err error) (RetryDecision, bool) {
	var app *temporal.ApplicationError
	if err == nil || !errors.As(err, &app) || !app.HasDetails() {
		return RetryDecision{}, false
	}
	kit, ok := newKitError(app)
	if !ok {
		return RetryDecision{}, false
	}
	var decision RetryDecision
	if derr := decodeDetails(app, kit, &decision); derr != nil {
		return RetryDecision{}, false
	}
	// Details with the error's fields alone decode into a zero decision:
	// none was made (a decision always names its Source).
	return decision, decision != RetryDecision{}
}
