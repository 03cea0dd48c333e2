package kitcore

import (
	"time"

	"go.temporal.io/sdk/temporal"
)

// Retry says whether the kit retries a failure of an error type: the Retry
// column of temporaladk's error table.
type Retry int

// The answers of the error table's Retry column.
const (
	// RetryNever is never retried, whatever any setting says: every
	// RetryPolicy the kit makes lists the type in NonRetryableErrorTypes, so
	// that the server holds to it even for an error returned raw on a worker
	// without the kit.
	RetryNever Retry = iota + 1
	// RetryNo is not retried: the error crosses the activity boundary
	// marked non-retryable.
	RetryNo
	// RetryByFields is decided by the typed error's fields: a
	// ProviderError's status, a RateLimitError's Quota, a ToolFailureError's
	// Transient.
	RetryByFields
	// RetryYes is retried while attempts are left.
	RetryYes
)

// ErrorType is one row of temporaladk's error table: one type string the
// server records for a failure the kit makes or reads (the
// ApplicationError's Type), and everything the kit decides from it.
type ErrorType struct {
	// Type is the ApplicationError type the server records: "Temporaladk"
	// and the name of the kit's error without "Error", so that no error of
	// a user's own shares it.
	Type string
	// Formerly is the type an earlier build recorded for the row ("" for
	// none): the name its Go type had then, an alias of it now. It is read
	// back only from a failure decoded from history (an ApplicationError
	// whose Failure is set), so that histories recorded before keep their
	// meaning, and never from an error the user's code makes, nor listed in
	// any retry policy.
	Formerly string
	// Constant names the exported Go constant that holds Type.
	Constant string
	// Error names the Go error type that carries it, as %T prints it: every
	// row has one. For a row with a former name it is Type itself, the name
	// the SDK records for the error returned raw.
	Error string
	// Retry says whether the kit retries it.
	Retry Retry
	// Wait is the wait before the next attempt when it is retried and the
	// kit fixes it, or zero for the retry policy's backoff.
	Wait time.Duration
	// BeforeUserCode is true when a failure of this type says that the
	// user's code did not run: the kit refused the attempt before it.
	BeforeUserCode bool
	// RaisedBy says who raises it.
	RaisedBy string
}

// Hooks into temporaladk's error table and its one retry decision, set from
// temporaladk's init.
var (
	// ErrorTypes returns the table's rows, in a new slice on every call.
	ErrorTypes func() []ErrorType
	// ErrorTypeOf returns the row of the first failure in err's chain the
	// table has, and whether there is one.
	ErrorTypeOf func(err error) (ErrorType, bool)
	// ApplicationErrorType returns the row of app itself, by its type, or
	// by its former type for a failure decoded from history, and whether
	// there is one.
	ApplicationErrorType func(app *temporal.ApplicationError) (ErrorType, bool)
	// Retryable is the kit's one retry decision.
	Retryable func(err error) bool
)
