package vocab

import (
	"encoding/json"
	"errors"
	"reflect"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/temporaladk"
)

// ConvertOptions tune ToApplicationError.
type ConvertOptions struct {
	// NextRetryDelay, if greater than zero, is handed to the server as the
	// delay before the next attempt. If not set, the server's retry policy
	// decides.
	NextRetryDelay time.Duration
	// Final, if true, marks the ApplicationError non-retryable even when the
	// kit error is retryable. If false, non-retryable follows Retryable().
	Final bool
	// Decision, if not nil, is recorded in the details after the error's own
	// fields.
	Decision *temporaladk.RetryDecision
}

// ToApplicationError turns a kit error into the Temporal ApplicationError
// that crosses the activity boundary: its Type is the error's Type constant,
// its first detail holds the error's fields, NonRetryable is set where the
// error is not retryable, and the error's cause travels as the cause (a kit
// cause as an ApplicationError of its own, rebuilt with it).
// temporaladk.FromApplicationError rebuilds the typed error on the workflow side.
//
// An error outside the kit's hierarchy, and nil, are returned unchanged.
func ToApplicationError(err error, opts ConvertOptions) error {
	if err == nil {
		return nil
	}
	var kit temporaladk.Error
	if !errors.As(err, &kit) || isNilPointer(kit) {
		return err
	}
	details := []any{wireDetails(kit)}
	if opts.Decision != nil {
		details = append(details, *opts.Decision)
	}
	final := opts.Final || !kit.Retryable()
	var delay time.Duration
	if !final && opts.NextRetryDelay > 0 {
		delay = opts.NextRetryDelay
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), kit.Type(), temporal.ApplicationErrorOptions{
		NonRetryable: final,
		// A cause that is itself a kit error crosses with its type and fields
		// too, so that errors.As finds it on the other side.
		Cause:          ToApplicationError(errors.Unwrap(kit), ConvertOptions{}),
		Details:        details,
		NextRetryDelay: delay,
	})
}

// wireDetails returns the detail payload of kit: the error itself when it
// encodes as JSON, or a note saying why it does not (a NaN budget limit, for
// example), so that the conversion never fails and the type survives.
//
// The payload is the error's struct value, not a pointer, so that decoding it
// works both after a trip through a data converter and on details that were
// never encoded (the SDK assigns those by reflection).
func wireDetails(kit temporaladk.Error) any {
	if _, err := json.Marshal(kit); err != nil {
		return map[string]string{"encode_error": err.Error()}
	}
	return reflect.ValueOf(kit).Elem().Interface()
}

// isNilPointer reports whether e is a typed nil pointer.
func isNilPointer(e temporaladk.Error) bool {
	v := reflect.ValueOf(e)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
