package temporaladk

import (
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/kitcore"
)

// errorRow is one row of the error table: what the kit's packages read
// (kitcore.ErrorType), and what only a trip through Temporal and the
// Retryable methods need.
type errorRow struct {
	kitcore.ErrorType
	// empty returns a new empty typed error of the row's type.
	empty func() Error
	// byFields decides a RetryByFields row from the error's fields.
	byFields func(Error) bool
}

// errorTable is the kit's error table, one row a type string: every failure
// type the kit makes, and every decision taken from a type, read from here.
// Adding a kit error is its type and one row here.
var errorTable = []errorRow{
	{ErrorType: kitcore.ErrorType{Type: TypeSchemaViolation, Constant: "temporaladk.TypeSchemaViolation", Error: "*temporaladk.TemporaladkSchemaViolation", Formerly: "SchemaViolationError", Retry: kitcore.RetryNever,
		RaisedBy: "the user's code or a guardrail, converted by the activity interceptor"},
		empty: func() Error { return &TemporaladkSchemaViolation{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeGuardrailViolation, Constant: "temporaladk.TypeGuardrailViolation", Error: "*temporaladk.TemporaladkGuardrailViolation", Formerly: "GuardrailViolationError", Retry: kitcore.RetryNever,
		RaisedBy: "a guardrail, on a call's input or its result"},
		empty: func() Error { return &TemporaladkGuardrailViolation{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeGuardrailEvaluation, Constant: "temporaladk.TypeGuardrailEvaluation", Error: "*temporaladk.TemporaladkGuardrailEvaluation", Formerly: "GuardrailEvaluationError", Retry: kitcore.RetryNever,
		RaisedBy: "a guardrail that reached no verdict"},
		empty: func() Error { return &TemporaladkGuardrailEvaluation{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeBudgetExceeded, Constant: "temporaladk.TypeBudgetExceeded", Error: "*temporaladk.TemporaladkBudgetExceeded", Formerly: "BudgetExceededError", Retry: kitcore.RetryNever, BeforeUserCode: true,
		RaisedBy: "the ledger, refusing an attempt in workflow code or through the charge Update"},
		empty: func() Error { return &TemporaladkBudgetExceeded{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeApprovalDenied, Constant: "temporaladk.TypeApprovalDenied", Error: "*temporaladk.TemporaladkApprovalDenied", Formerly: "ApprovalDeniedError", Retry: kitcore.RetryNever,
		RaisedBy: "the approval gate in workflow code; a tool's own policy"},
		empty: func() Error { return &TemporaladkApprovalDenied{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeScopeEscalation, Constant: "temporaladk.TypeScopeEscalation", Error: "*temporaladk.TemporaladkScopeEscalation", Formerly: "ScopeEscalationError", Retry: kitcore.RetryNever,
		RaisedBy: "the user's code"},
		empty: func() Error { return &TemporaladkScopeEscalation{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeProvider, Constant: "temporaladk.TypeProvider", Error: "*temporaladk.TemporaladkProvider", Formerly: "ProviderError", Retry: kitcore.RetryByFields,
		RaisedBy: "a provider adapter"},
		empty:    func() Error { return &TemporaladkProvider{} },
		byFields: func(e Error) bool { s := e.(*TemporaladkProvider).StatusCode; return s == 0 || retryableStatus(s) }},
	{ErrorType: kitcore.ErrorType{Type: TypeProviderTimeout, Constant: "temporaladk.TypeProviderTimeout", Error: "*temporaladk.TemporaladkProviderTimeout", Formerly: "ProviderTimeoutError", Retry: kitcore.RetryYes,
		RaisedBy: "a provider adapter"},
		empty: func() Error { return &TemporaladkProviderTimeout{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeProviderUnavailable, Constant: "temporaladk.TypeProviderUnavailable", Error: "*temporaladk.TemporaladkProviderUnavailable", Formerly: "ProviderUnavailableError", Retry: kitcore.RetryYes,
		RaisedBy: "a provider adapter"},
		empty: func() Error { return &TemporaladkProviderUnavailable{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeRateLimit, Constant: "temporaladk.TypeRateLimit", Error: "*temporaladk.TemporaladkRateLimit", Formerly: "RateLimitError", Retry: kitcore.RetryByFields,
		RaisedBy: "a provider adapter"},
		empty:    func() Error { return &TemporaladkRateLimit{} },
		byFields: func(e Error) bool { return !e.(*TemporaladkRateLimit).Quota }},
	{ErrorType: kitcore.ErrorType{Type: TypeToolFailure, Constant: "temporaladk.TypeToolFailure", Error: "*temporaladk.TemporaladkToolFailure", Formerly: "ToolFailureError", Retry: kitcore.RetryByFields,
		RaisedBy: "a tool"},
		empty:    func() Error { return &TemporaladkToolFailure{} },
		byFields: func(e Error) bool { return e.(*TemporaladkToolFailure).Transient }},
	{ErrorType: kitcore.ErrorType{Type: TypeIndeterminateOutcome, Constant: "temporaladk.TypeIndeterminateOutcome", Error: "*temporaladk.TemporaladkIndeterminateOutcome", Formerly: "IndeterminateOutcomeError", Retry: kitcore.RetryNo,
		RaisedBy: "a tool; the activity interceptor, for an effectful call without a key that timed out"},
		empty: func() Error { return &TemporaladkIndeterminateOutcome{} }},

	// The failures the kit makes itself, before the user's code runs. Their
	// types have been in the table's scheme since they were first recorded:
	// none has a former name.
	{ErrorType: kitcore.ErrorType{Type: TypeBadCallHeader, Constant: "temporaladk.TypeBadCallHeader", Error: "*temporaladk.BadCallHeaderError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a call header that does not decode; the workflow interceptor, for a chain header"},
		empty: func() Error { return &BadCallHeaderError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeBudgetUnavailable, Constant: "temporaladk.TypeBudgetUnavailable", Error: "*temporaladk.BudgetUnavailableError", Retry: kitcore.RetryYes, BeforeUserCode: true,
		// The next attempt asks the charge again soon: the retry policy's
		// backoff is for the provider's faults, not the kit's.
		Wait:     time.Second,
		RaisedBy: "the activity interceptor, for a charge that got no answer in time"},
		empty: func() Error { return &BudgetUnavailableError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeRunOutOfUpdates, Constant: "temporaladk.TypeRunOutOfUpdates", Error: "*temporaladk.RunOutOfUpdatesError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a charge the server refused: the run has no Updates left"},
		empty: func() Error { return &RunOutOfUpdatesError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeBudgetClosed, Constant: "temporaladk.TypeBudgetClosed", Error: "*temporaladk.BudgetClosedError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a charge at a run that has closed; the charge validator of a run handed over"},
		empty: func() Error { return &BudgetClosedError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeMisconfigured, Constant: "temporaladk.TypeMisconfigured", Error: "*temporaladk.MisconfiguredError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the workflow interceptor, for a call it cannot schedule; the activity interceptor, registered twice; WithBudgets, for budgets set wrong"},
		empty: func() Error { return &MisconfiguredError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeRetryRefused, Constant: "temporaladk.TypeRetryRefused", Error: "*temporaladk.RetryRefusedError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a retry of a call that gets one attempt"},
		empty: func() Error { return &RetryRefusedError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeModelUnpriced, Constant: "temporaladk.TypeModelUnpriced", Error: "*temporaladk.ModelUnpricedError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a metered call of a model the worker has no price for"},
		empty: func() Error { return &ModelUnpricedError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeApprovalRejected, Constant: "temporaladk.TypeApprovalRejected", Error: "*temporaladk.ApprovalRejectedError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the approval Update's validator; the workflow interceptor, for a gated call with no approvers"},
		empty: func() Error { return &ApprovalRejectedError{} }},
	{ErrorType: kitcore.ErrorType{Type: TypeApprovalNotGranted, Constant: "temporaladk.TypeApprovalNotGranted", Error: "*temporaladk.ApprovalNotGrantedError", Retry: kitcore.RetryNo, BeforeUserCode: true,
		RaisedBy: "the activity interceptor, for a gated call whose grant is missing or does not hold"},
		empty: func() Error { return &ApprovalNotGrantedError{} }},
}

// errorTypes indexes errorTable by type string.
var errorTypes = func() map[string]errorRow {
	m := make(map[string]errorRow, len(errorTable))
	for _, row := range errorTable {
		m[row.Type] = row
	}
	return m
}()

// formerTypes indexes errorTable by the type an earlier build recorded
// (kitcore.ErrorType.Formerly), for the rows that have one.
var formerTypes = func() map[string]errorRow {
	m := make(map[string]errorRow, len(errorTable))
	for _, row := range errorTable {
		if row.Formerly != "" {
			m[row.Formerly] = row
		}
	}
	return m
}()

// rowOfApplicationError is the one rule for which row of the error table an
// ApplicationError is: the row of its type, or, for a failure decoded from
// history (the SDK keeps the Failure it was decoded from), the row that
// type was the former name of. An ApplicationError the user's code makes
// under a former name is not the kit's: it is retried as its own policy
// says.
func rowOfApplicationError(app *temporal.ApplicationError) (errorRow, bool) {
	if row, ok := errorTypes[app.Type()]; ok {
		return row, true
	}
	if app.Failure() == nil {
		return errorRow{}, false
	}
	row, ok := formerTypes[app.Type()]
	return row, ok
}

// applicationErrorType is rowOfApplicationError for the kit's packages
// (kitcore.ApplicationErrorType).
func applicationErrorType(app *temporal.ApplicationError) (kitcore.ErrorType, bool) {
	if app == nil {
		return kitcore.ErrorType{}, false
	}
	row, ok := rowOfApplicationError(app)
	return row.ErrorType, ok
}

// tableRows returns the rows of the error table the kit's packages read, in
// a new slice on every call (kitcore.ErrorTypes).
func tableRows() []kitcore.ErrorType {
	rows := make([]kitcore.ErrorType, len(errorTable))
	for i, row := range errorTable {
		rows[i] = row.ErrorType
	}
	return rows
}

// errorTypeOf returns the row of the first failure in err's chain that the
// error table has: a kit error, or an ApplicationError of one of the table's
// types. An error
// outside the table, and nil, have none (kitcore.ErrorTypeOf).
func errorTypeOf(err error) (kitcore.ErrorType, bool) {
	_, row, ok := firstOfTable(err)
	return row.ErrorType, ok
}

// retryable is the kit's one answer to "is this failure a fault another
// attempt could cure?", read from the error table: for the first failure in
// err's chain the table has, its Retry column, and for RetryByFields the
// typed error's fields (a kit error carried by an ApplicationError is
// rebuilt for them). An error outside the table is not retryable by the
// kit: it does not know what repeating it repeats. Whether an attempt is
// left is a separate question. policies.Retryable is its public face.
func retryable(err error) bool {
	link, row, ok := firstOfTable(err)
	if !ok {
		return false
	}
	switch row.Retry {
	case kitcore.RetryYes:
		return true
	case kitcore.RetryByFields:
		kit, isKit := link.(Error)
		if !isKit {
			rebuilt, ok := rebuild(link)
			if !ok {
				return false
			}
			kit = rebuilt
		}
		return !isNilPointer(kit) && row.byFields(kit)
	}
	return false
}

// decideRetryable is the Retryable method of every kit error: its row's
// answer.
func decideRetryable(e Error) bool {
	if isNilPointer(e) {
		return false
	}
	row, ok := errorTypes[e.Type()]
	switch {
	case !ok:
		return false
	case row.Retry == kitcore.RetryByFields:
		return row.byFields(e)
	}
	return row.Retry == kitcore.RetryYes
}

// firstOfTable walks err's chain depth first, as errors.As does, and returns
// the first link the error table has a row for: a kit error that is not a
// nil pointer, or an ApplicationError of a table type.
func firstOfTable(err error) (error, errorRow, bool) {
	if err == nil {
		return nil, errorRow{}, false
	}
	switch e := err.(type) {
	case Error:
		if !isNilPointer(e) {
			if row, ok := errorTypes[e.Type()]; ok {
				return err, row, true
			}
		}
	case *temporal.ApplicationError:
		if row, ok := rowOfApplicationError(e); ok {
			return err, row, true
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return firstOfTable(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			if link, row, ok := firstOfTable(inner); ok {
				return link, row, true
			}
		}
	}
	return nil, errorRow{}, false
}

// neverRetryableTypes lists the RetryNever rows' types, in table order.
var neverRetryableTypes = func() []string {
	var never []string
	for _, row := range errorTable {
		if row.Retry == kitcore.RetryNever {
			never = append(never, row.Type)
		}
	}
	return never
}()

// isKitType reports whether errType is the Type of one of the kit's typed
// errors, which a trip through Temporal rebuilds: every row's.
func isKitType(errType string) bool {
	row, ok := errorTypes[errType]
	return ok && row.empty != nil
}

// newKitError returns a new empty typed error of the row app is
// (rowOfApplicationError), and whether the table has one.
func newKitError(app *temporal.ApplicationError) (Error, bool) {
	row, ok := rowOfApplicationError(app)
	if !ok || row.empty == nil {
		return nil, false
	}
	return row.empty(), true
}
