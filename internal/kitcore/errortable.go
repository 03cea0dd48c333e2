package kitcore

import "time"

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
	// Type is the ApplicationError type the server records.
	Type string
	// Constant names the exported Go constant that holds Type.
	Constant string
	// Error names the Go error type that carries it: every row has one.
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
	// Retryable is the kit's one retry decision.
	Retryable func(err error) bool
)
