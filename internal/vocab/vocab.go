// Package vocab is the vocabulary the kit's own packages (policies,
// interceptors, testsuite) share and users do not write: reading the values
// temporaladk puts on contexts, the conversion of kit errors into the
// ApplicationErrors that cross the activity boundary, the questions asked of
// the error table, and the real clock.
//
//	class, ok := vocab.ClassFrom(ctx)
//	return vocab.ToApplicationError(err, vocab.ConvertOptions{Final: true})
package vocab

import (
	"context"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/kitcore"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Classes returns the four classes, MODEL, TOOL, RETRIEVAL and MEMORY, in a
// new slice on every call.
func Classes() []temporaladk.Class {
	return []temporaladk.Class{temporaladk.Model, temporaladk.Tool, temporaladk.Retrieval, temporaladk.Memory}
}

// CanonicalClass returns c in its canonical spelling ("MODEL") when
// temporaladk.Class.UnmarshalText reads it as a class, in any letter case,
// else c as it is, so that an error names what was written: every place the
// kit takes a Class reads it through this, and UnmarshalText decides.
func CanonicalClass(c temporaladk.Class) temporaladk.Class {
	var parsed temporaladk.Class
	if parsed.UnmarshalText([]byte(c)) != nil {
		return c
	}
	return parsed
}

// ClassFrom returns the class tagged on ctx by temporaladk.WithClass, and
// whether there was one.
func ClassFrom(ctx workflow.Context) (temporaladk.Class, bool) {
	if ctx == nil {
		return "", false
	}
	c, ok := ctx.Value(kitcore.ClassKey{}).(temporaladk.Class)
	return c, ok
}

// TenantFrom returns the tenant set by temporaladk.WithTenant, and whether
// there was one.
func TenantFrom(ctx workflow.Context) (string, bool) {
	if ctx == nil {
		return "", false
	}
	t, ok := ctx.Value(kitcore.TenantKey{}).(string)
	return t, ok
}

// IdempotencyKeyFrom returns the key set by temporaladk.WithIdempotencyKey,
// and whether there was one; an empty key is none.
func IdempotencyKeyFrom(ctx workflow.Context) (string, bool) {
	if ctx == nil {
		return "", false
	}
	k, ok := ctx.Value(kitcore.IdempotencyKeyKey{}).(string)
	return k, ok && k != ""
}

// WithActivityCall returns ctx carrying call, which
// temporaladk.ActivityCallFrom and temporaladk.HeartbeaterFrom read. The
// activity interceptor does this for every call it serves.
func WithActivityCall(ctx context.Context, call temporaladk.ActivityCall) context.Context {
	return context.WithValue(ctx, kitcore.ActivityCallKey{}, call)
}

// SystemClock returns the real clock, time.Now and time.After: the clock of
// every option that leaves its Clock unset.
func SystemClock() temporaladk.Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// ErrorType is one row of the kit's error table (temporaladk's errorTable):
// a type string the server records, and what the kit decides from it.
type ErrorType = kitcore.ErrorType

// The answers of the error table's Retry column.
const (
	RetryNever    = kitcore.RetryNever
	RetryNo       = kitcore.RetryNo
	RetryByFields = kitcore.RetryByFields
	RetryYes      = kitcore.RetryYes
)

// ErrorTypes returns the kit's error table: every type string the server
// records for a failure the kit makes, with what the kit decides from it, in
// a new slice on every call.
func ErrorTypes() []ErrorType { return kitcore.ErrorTypes() }

// LookupErrorType returns the row of errType in the error table, and
// whether it has one.
func LookupErrorType(errType string) (ErrorType, bool) {
	for _, row := range kitcore.ErrorTypes() {
		if row.Type == errType {
			return row, true
		}
	}
	return ErrorType{}, false
}

// ApplicationErrorType returns the row of app itself, and whether it has
// one: the row of its type, or, for a failure decoded from history, the row
// whose type an earlier build recorded under that name (ErrorType.Formerly).
// An ApplicationError the user's code makes under a former name has none.
func ApplicationErrorType(app *temporal.ApplicationError) (ErrorType, bool) {
	return kitcore.ApplicationErrorType(app)
}

// ErrorTypeOf returns the row of the first failure in err's chain that the
// error table has (a kit error, or an ApplicationError of one of its
// types), and whether there is one.
func ErrorTypeOf(err error) (ErrorType, bool) { return kitcore.ErrorTypeOf(err) }

// Retryable is the kit's one retry decision, read from the error table:
// whether err is a fault another attempt could cure. policies.Retryable is
// its public face.
func Retryable(err error) bool { return kitcore.Retryable(err) }

// NeverRetryableTypes returns the types of the errors that are never retried,
// whatever any setting says: retrying a guardrail block is asking the
// guardrail until it gives in, and retrying a budget breach is spending past
// the ceiling one attempt at a time. Every RetryPolicy the kit produces holds
// them (policies.WithNeverRetryable). The result is a new slice on every
// call.
func NeverRetryableTypes() []string { return kitcore.NeverRetryableTypes() }

// IsNeverRetryableType reports whether errType is one of
// NeverRetryableTypes.
func IsNeverRetryableType(errType string) bool {
	return slices.Contains(kitcore.NeverRetryableTypes(), errType)
}

// IsFormerNeverRetryableType reports whether errType is the type an
// earlier build recorded for a never-retryable row (ErrorType.Formerly),
// which every retry policy of that build listed.
func IsFormerNeverRetryableType(errType string) bool {
	for _, row := range kitcore.ErrorTypes() {
		if row.Formerly != "" && row.Formerly == errType {
			return row.Retry == RetryNever
		}
	}
	return false
}

// IsKitType reports whether errType is the Type of one of the kit's errors.
func IsKitType(errType string) bool { return kitcore.IsKitType(errType) }

// IsNeverRetryable reports whether err is, or wraps, an error of the
// never-retryable set, also after a trip through Temporal as an
// ApplicationError.
func IsNeverRetryable(err error) bool {
	if e, ok := temporaladk.AsError(err); ok {
		return IsNeverRetryableType(e.Type())
	}
	return false
}

// RetryAfterOf returns the wait a provider asked for in err's chain (a
// ProviderError or RateLimitError with a RetryAfter), and whether there was
// one.
func RetryAfterOf(err error) (time.Duration, bool) {
	e, ok := temporaladk.AsError(err)
	if !ok {
		return 0, false
	}
	switch e := e.(type) {
	case *temporaladk.ProviderError:
		return e.RetryAfter, e.RetryAfter > 0
	case *temporaladk.RateLimitError:
		return e.RetryAfter, e.RetryAfter > 0
	}
	return 0, false
}
