package temporaladk

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Error is implemented by every error of the kit's hierarchy. Errors outside
// it are left alone: the kit does not know what repeating them repeats.
type Error interface {
	error
	// Retryable reports whether the failure is a fault that another attempt
	// could cure. It says nothing about how long to wait.
	Retryable() bool
	// Type returns the stable name used as the Temporal ApplicationError
	// type, one of the Type constants.
	Type() string
}

// The stable Temporal ApplicationError types of the kit's errors: one
// scheme for every type the kit records, "Temporaladk" and the name
// without "Error", so that no error of a user's own shares one. Each equals
// the name of its Go struct (the names code writes, SchemaViolationError
// and the rest, are aliases), which is also the type Temporal gives an
// error returned raw from an activity, so a RetryPolicy's
// NonRetryableErrorTypes holds even on a worker that does not run the
// kit's activity interceptor. An earlier build recorded them under the
// aliases' names ("SchemaViolationError"); a failure decoded from history
// under that name is still read as the kit's error (see "Former type
// names" in the package doc).
const (
	// TypeGuardrailViolation is the type of GuardrailViolationError.
	TypeGuardrailViolation = "TemporaladkGuardrailViolation"
	// TypeGuardrailEvaluation is the type of GuardrailEvaluationError.
	TypeGuardrailEvaluation = "TemporaladkGuardrailEvaluation"
	// TypeSchemaViolation is the type of SchemaViolationError.
	TypeSchemaViolation = "TemporaladkSchemaViolation"
	// TypeBudgetExceeded is the type of BudgetExceededError.
	TypeBudgetExceeded = "TemporaladkBudgetExceeded"
	// TypeApprovalDenied is the type of ApprovalDeniedError.
	TypeApprovalDenied = "TemporaladkApprovalDenied"
	// TypeScopeEscalation is the type of ScopeEscalationError.
	TypeScopeEscalation = "TemporaladkScopeEscalation"
	// TypeProvider is the type of ProviderError.
	TypeProvider = "TemporaladkProvider"
	// TypeProviderTimeout is the type of ProviderTimeoutError.
	TypeProviderTimeout = "TemporaladkProviderTimeout"
	// TypeProviderUnavailable is the type of ProviderUnavailableError.
	TypeProviderUnavailable = "TemporaladkProviderUnavailable"
	// TypeRateLimit is the type of RateLimitError.
	TypeRateLimit = "TemporaladkRateLimit"
	// TypeToolFailure is the type of ToolFailureError.
	TypeToolFailure = "TemporaladkToolFailure"
	// TypeIndeterminateOutcome is the type of IndeterminateOutcomeError.
	TypeIndeterminateOutcome = "TemporaladkIndeterminateOutcome"
)

// AsError finds the first kit error in err's chain, also one carried by a
// Temporal ApplicationError (see FromApplicationError).
func AsError(err error) (Error, bool) {
	if err == nil {
		return nil, false
	}
	var kit Error
	if errors.As(err, &kit) {
		if isNilPointer(kit) {
			// A nil *ProviderError returned as an error holds no fields to
			// decide on: it is left alone, like any error the kit does not
			// know.
			return nil, false
		}
		return kit, true
	}
	if rebuilt, ok := rebuild(err); ok {
		return rebuilt, true
	}
	return nil, false
}

// isNilPointer reports whether kit is a typed nil pointer.
func isNilPointer(kit Error) bool {
	v := reflect.ValueOf(kit)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// GuardrailViolationError is a guardrail blocking a call or its result.
// Never retried.
type GuardrailViolationError = TemporaladkGuardrailViolation

// TemporaladkGuardrailViolation is GuardrailViolationError under the name
// the server records for it (TypeGuardrailViolation): the SDK records an
// error's Go type name as its type, also on an activity worker without the
// kit, where the kit's retry policies then hold it. Code names it
// GuardrailViolationError.
type TemporaladkGuardrailViolation struct {
	Guardrail string `json:"guardrail,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkGuardrailViolation) Error() string {
	if e == nil {
		return "<nil *temporaladk.GuardrailViolationError>"
	}
	return joinMsg("guardrail violation", e.Guardrail, e.Reason)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkGuardrailViolation) Retryable() bool { return decideRetryable(e) }

// Type returns TypeGuardrailViolation.
func (e *TemporaladkGuardrailViolation) Type() string { return TypeGuardrailViolation }

// GuardrailEvaluationError is a guardrail that could not reach a verdict.
// Never retried: asking again is asking until it gives in.
type GuardrailEvaluationError = TemporaladkGuardrailEvaluation

// TemporaladkGuardrailEvaluation is GuardrailEvaluationError under the name
// the server records for it (TypeGuardrailEvaluation): the SDK records an
// error's Go type name as its type, also on an activity worker without the
// kit, where the kit's retry policies then hold it. Code names it
// GuardrailEvaluationError.
type TemporaladkGuardrailEvaluation struct {
	Guardrail string `json:"guardrail,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Cause     error  `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkGuardrailEvaluation) Error() string {
	if e == nil {
		return "<nil *temporaladk.GuardrailEvaluationError>"
	}
	return withCause(joinMsg("guardrail evaluation failed", e.Guardrail, e.Reason), e.Cause)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkGuardrailEvaluation) Retryable() bool { return decideRetryable(e) }

// Type returns TypeGuardrailEvaluation.
func (e *TemporaladkGuardrailEvaluation) Type() string { return TypeGuardrailEvaluation }

// Unwrap returns the cause.
func (e *TemporaladkGuardrailEvaluation) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// SchemaViolationError is an input or output that does not match its schema.
// Never retried: the same input fails the same way.
type SchemaViolationError = TemporaladkSchemaViolation

// TemporaladkSchemaViolation is SchemaViolationError under the name the
// server records for it (TypeSchemaViolation): the SDK records an error's Go
// type name as its type, also on an activity worker without the kit, where
// the kit's retry policies then hold it. Code names it SchemaViolationError.
type TemporaladkSchemaViolation struct {
	Schema string `json:"schema,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkSchemaViolation) Error() string {
	if e == nil {
		return "<nil *temporaladk.SchemaViolationError>"
	}
	subject := e.Schema
	if e.Path != "" {
		subject = strings.TrimPrefix(subject+" at "+e.Path, " at ")
	}
	return joinMsg("schema violation", subject, e.Reason)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkSchemaViolation) Retryable() bool { return decideRetryable(e) }

// Type returns TypeSchemaViolation.
func (e *TemporaladkSchemaViolation) Type() string { return TypeSchemaViolation }

// BudgetExceededError is a ceiling that an attempt would breach. The attempt
// was refused before it was made. Never retried.
type BudgetExceededError = TemporaladkBudgetExceeded

// TemporaladkBudgetExceeded is BudgetExceededError under the name the server
// records for it (TypeBudgetExceeded): the SDK records an error's Go type
// name as its type, also on an activity worker without the kit, where the
// kit's retry policies then hold it. Code names it BudgetExceededError.
type TemporaladkBudgetExceeded struct {
	// Breached names the budget (Budgets): "attempts" (Attempts),
	// "retries" (Retries), "tokens" (Tokens) or "cost" (Cost, Limit and
	// Consumed in micro-dollars).
	Breached string `json:"breached"`
	// Limit is the ceiling.
	Limit float64 `json:"limit"`
	// Consumed is what had been spent when the attempt was refused.
	Consumed float64 `json:"consumed"`
	// Attempts is how many attempts were spent reaching the ceiling.
	Attempts int `json:"attempts"`
	// Asked is what the refused attempt asked of the budget: 1 attempt or
	// retry, or the tokens or micro-dollars its reservation needed. Zero
	// where it is not known (an error rebuilt from a failure recorded
	// before the kit wrote it).
	Asked float64 `json:"asked,omitempty"`
	// Cause is the failure that asked for the refused attempt (the
	// provider error a refused retry was for), or nil for a first attempt.
	Cause error `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkBudgetExceeded) Error() string {
	if e == nil {
		return "<nil *temporaladk.BudgetExceededError>"
	}
	// The arithmetic that refused: the ceiling, what was spent, what is
	// left, and what the attempt asked.
	msg := fmt.Sprintf("budget exceeded: %s ceiling %s, %s spent, %s left", e.Breached,
		formatFloat(e.Limit), formatFloat(e.Consumed), formatFloat(max(e.Limit-e.Consumed, 0)))
	if e.Asked > 0 {
		msg += fmt.Sprintf(", and this attempt asks %s", formatFloat(e.Asked))
	}
	return withCause(fmt.Sprintf("%s: refused after %d attempts", msg, e.Attempts), e.Cause)
}

// Unwrap returns the failure the refused attempt was for.
func (e *TemporaladkBudgetExceeded) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkBudgetExceeded) Retryable() bool { return decideRetryable(e) }

// Type returns TypeBudgetExceeded.
func (e *TemporaladkBudgetExceeded) Type() string { return TypeBudgetExceeded }

// Details returns the error's fields by name, as the specification reads
// them: details["attempts"] is how many attempts were spent reaching the
// ceiling. The map is new on every call.
func (e *TemporaladkBudgetExceeded) Details() map[string]string {
	if e == nil {
		return map[string]string{}
	}
	d := map[string]string{
		"breached": e.Breached,
		"limit":    formatFloat(e.Limit),
		"consumed": formatFloat(e.Consumed),
		"attempts": strconv.Itoa(e.Attempts),
	}
	if e.Asked > 0 {
		d["asked"] = formatFloat(e.Asked)
	}
	return d
}

// ApprovalDeniedError is a human or policy refusing an action. Never retried.
type ApprovalDeniedError = TemporaladkApprovalDenied

// TemporaladkApprovalDenied is ApprovalDeniedError under the name the server
// records for it (TypeApprovalDenied): the SDK records an error's Go type
// name as its type, also on an activity worker without the kit, where the
// kit's retry policies then hold it. Code names it ApprovalDeniedError.
type TemporaladkApprovalDenied struct {
	Action   string `json:"action,omitempty"`
	Approver string `json:"approver,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkApprovalDenied) Error() string {
	if e == nil {
		return "<nil *temporaladk.ApprovalDeniedError>"
	}
	subject := e.Action
	if e.Approver != "" {
		subject = strings.TrimPrefix(subject+" by "+e.Approver, " ")
	}
	return joinMsg("approval denied", subject, e.Reason)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkApprovalDenied) Retryable() bool { return decideRetryable(e) }

// Type returns TypeApprovalDenied.
func (e *TemporaladkApprovalDenied) Type() string { return TypeApprovalDenied }

// ScopeEscalationError is a call asking for more than it was granted. Never
// retried.
type ScopeEscalationError = TemporaladkScopeEscalation

// TemporaladkScopeEscalation is ScopeEscalationError under the name the
// server records for it (TypeScopeEscalation): the SDK records an error's Go
// type name as its type, also on an activity worker without the kit, where
// the kit's retry policies then hold it. Code names it ScopeEscalationError.
type TemporaladkScopeEscalation struct {
	Requested string `json:"requested,omitempty"`
	Granted   string `json:"granted,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkScopeEscalation) Error() string {
	if e == nil {
		return "<nil *temporaladk.ScopeEscalationError>"
	}
	subject := e.Requested
	if e.Granted != "" {
		subject += " (granted " + e.Granted + ")"
	}
	return joinMsg("scope escalation", subject, e.Reason)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkScopeEscalation) Retryable() bool { return decideRetryable(e) }

// Type returns TypeScopeEscalation.
func (e *TemporaladkScopeEscalation) Type() string { return TypeScopeEscalation }

// retryableStatuses are the HTTP statuses worth another attempt.
var retryableStatuses = []int{408, 409, 425, 429, 500, 502, 503, 504, 529}

// retryableStatus reports whether an HTTP status from a provider is worth
// another attempt: 408, 409, 425, 429, 500, 502, 503, 504, and 529, which
// providers (Anthropic) answer when they are overloaded. Other 5xx (501 Not
// Implemented, 505) say the request cannot succeed: not retried.
// providers.RetryableStatus is its public face.
func retryableStatus(code int) bool { return slices.Contains(retryableStatuses, code) }

// ProviderError is a model or service provider failing a call.
// Retryable when there is no status, or the status is one worth another
// attempt: 408, 409, 425, 429, 500, 502, 503, 504 or 529.
type ProviderError = TemporaladkProvider

// TemporaladkProvider is ProviderError under the name the server records for
// it (TypeProvider): the SDK records an error's Go type name as its type,
// also on an activity worker without the kit, where the kit's retry policies
// then hold it. Code names it ProviderError.
type TemporaladkProvider struct {
	Provider string `json:"provider,omitempty"`
	// StatusCode is the HTTP status, or 0 when the call got none.
	StatusCode int `json:"status_code,omitempty"`
	// RetryAfter is the wait the provider asked for, or 0.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	Message    string        `json:"message,omitempty"`
	Cause      error         `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkProvider) Error() string {
	if e == nil {
		return "<nil *temporaladk.ProviderError>"
	}
	msg := "provider error"
	if e.Provider != "" {
		msg = e.Provider + ": " + msg
	}
	if e.StatusCode != 0 {
		msg += " (HTTP " + strconv.Itoa(e.StatusCode) + ")"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return withCause(msg, e.Cause)
}

// Retryable reports whether StatusCode is 0 or one worth another attempt
// (408, 409, 425, 429, 500, 502, 503, 504, 529).
func (e *TemporaladkProvider) Retryable() bool { return decideRetryable(e) }

// Type returns TypeProvider.
func (e *TemporaladkProvider) Type() string { return TypeProvider }

// Unwrap returns the cause.
func (e *TemporaladkProvider) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// ProviderTimeoutError is a provider that did not answer in time. Retryable.
type ProviderTimeoutError = TemporaladkProviderTimeout

// TemporaladkProviderTimeout is ProviderTimeoutError under the name the
// server records for it (TypeProviderTimeout): the SDK records an error's Go
// type name as its type, also on an activity worker without the kit, where
// the kit's retry policies then hold it. Code names it ProviderTimeoutError.
type TemporaladkProviderTimeout struct {
	Provider string `json:"provider,omitempty"`
	Message  string `json:"message,omitempty"`
	Cause    error  `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkProviderTimeout) Error() string {
	if e == nil {
		return "<nil *temporaladk.ProviderTimeoutError>"
	}
	return withCause(joinMsg("provider timed out", e.Provider, e.Message), e.Cause)
}

// Retryable is its row of the error table: always true.
func (e *TemporaladkProviderTimeout) Retryable() bool { return decideRetryable(e) }

// Type returns TypeProviderTimeout.
func (e *TemporaladkProviderTimeout) Type() string { return TypeProviderTimeout }

// Unwrap returns the cause.
func (e *TemporaladkProviderTimeout) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// ProviderUnavailableError is a provider that could not be reached: refused
// or reset connections, DNS failures. Retryable.
type ProviderUnavailableError = TemporaladkProviderUnavailable

// TemporaladkProviderUnavailable is ProviderUnavailableError under the name
// the server records for it (TypeProviderUnavailable): the SDK records an
// error's Go type name as its type, also on an activity worker without the
// kit, where the kit's retry policies then hold it. Code names it
// ProviderUnavailableError.
type TemporaladkProviderUnavailable struct {
	Provider string `json:"provider,omitempty"`
	Message  string `json:"message,omitempty"`
	Cause    error  `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkProviderUnavailable) Error() string {
	if e == nil {
		return "<nil *temporaladk.ProviderUnavailableError>"
	}
	return withCause(joinMsg("provider unavailable", e.Provider, e.Message), e.Cause)
}

// Retryable is its row of the error table: always true.
func (e *TemporaladkProviderUnavailable) Retryable() bool { return decideRetryable(e) }

// Type returns TypeProviderUnavailable.
func (e *TemporaladkProviderUnavailable) Type() string { return TypeProviderUnavailable }

// Unwrap returns the cause.
func (e *TemporaladkProviderUnavailable) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// RateLimitError is a provider asking the caller to slow down. Retryable,
// unless it is a quota: an exhausted quota does not come back by waiting a
// few seconds.
type RateLimitError = TemporaladkRateLimit

// TemporaladkRateLimit is RateLimitError under the name the server records
// for it (TypeRateLimit): the SDK records an error's Go type name as its
// type, also on an activity worker without the kit, where the kit's retry
// policies then hold it. Code names it RateLimitError.
type TemporaladkRateLimit struct {
	Provider string `json:"provider,omitempty"`
	// Quota is true when the limit is a spending or usage quota rather than a
	// rate.
	Quota bool `json:"quota,omitempty"`
	// RetryAfter is the wait the provider asked for, or 0.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	Message    string        `json:"message,omitempty"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkRateLimit) Error() string {
	if e == nil {
		return "<nil *temporaladk.RateLimitError>"
	}
	msg := "rate limited"
	if e.Quota {
		msg = "quota exhausted"
	}
	msg = joinMsg(msg, e.Provider, e.Message)
	if e.RetryAfter > 0 {
		msg += " (retry after " + e.RetryAfter.String() + ")"
	}
	return msg
}

// Retryable reports whether the limit is not a quota.
func (e *TemporaladkRateLimit) Retryable() bool { return decideRetryable(e) }

// Type returns TypeRateLimit.
func (e *TemporaladkRateLimit) Type() string { return TypeRateLimit }

// ToolFailureError is a tool failing. Retryable only when Transient.
type ToolFailureError = TemporaladkToolFailure

// TemporaladkToolFailure is ToolFailureError under the name the server
// records for it (TypeToolFailure): the SDK records an error's Go type name
// as its type, also on an activity worker without the kit, where the kit's
// retry policies then hold it. Code names it ToolFailureError.
type TemporaladkToolFailure struct {
	Tool      string `json:"tool,omitempty"`
	Transient bool   `json:"transient,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Cause     error  `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkToolFailure) Error() string {
	if e == nil {
		return "<nil *temporaladk.ToolFailureError>"
	}
	msg := "tool failed"
	if e.Transient {
		msg = "tool failed transiently"
	}
	return withCause(joinMsg(msg, e.Tool, e.Reason), e.Cause)
}

// Retryable reports whether the failure is transient.
func (e *TemporaladkToolFailure) Retryable() bool { return decideRetryable(e) }

// Type returns TypeToolFailure.
func (e *TemporaladkToolFailure) Type() string { return TypeToolFailure }

// Unwrap returns the cause.
func (e *TemporaladkToolFailure) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// IndeterminateOutcomeError is an effectful call whose outcome is unknown:
// it may or may not have changed the world. Not retried, because a retry may
// be the second booking.
type IndeterminateOutcomeError = TemporaladkIndeterminateOutcome

// TemporaladkIndeterminateOutcome is IndeterminateOutcomeError under the
// name the server records for it (TypeIndeterminateOutcome): the SDK records
// an error's Go type name as its type, also on an activity worker without
// the kit, where the kit's retry policies then hold it. Code names it
// IndeterminateOutcomeError.
type TemporaladkIndeterminateOutcome struct {
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason,omitempty"`
	Cause  error  `json:"-"`
}

// Error describes the failure, with its fields.
func (e *TemporaladkIndeterminateOutcome) Error() string {
	if e == nil {
		return "<nil *temporaladk.IndeterminateOutcomeError>"
	}
	return withCause(joinMsg("indeterminate outcome", e.Tool, e.Reason), e.Cause)
}

// Retryable is its row of the error table: always false.
func (e *TemporaladkIndeterminateOutcome) Retryable() bool { return decideRetryable(e) }

// Type returns TypeIndeterminateOutcome.
func (e *TemporaladkIndeterminateOutcome) Type() string { return TypeIndeterminateOutcome }

// Unwrap returns the cause.
func (e *TemporaladkIndeterminateOutcome) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

func joinMsg(kind, subject, reason string) string {
	msg := kind
	if subject != "" {
		msg += ": " + subject
	}
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}

func withCause(msg string, cause error) string {
	if cause == nil {
		return msg
	}
	return msg + ": " + cause.Error()
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
