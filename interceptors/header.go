package interceptors

import (
	"context"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"

	"github.com/temporaladk/adk-go/temporaladk"
)

// HeaderKey is the Temporal header field the kit's call description travels
// in, from the workflow to the activity.
const HeaderKey = "temporaladk-call"

// CallHeader is what the workflow side tells the activity side about one
// call, in the Temporal header HeaderKey of its ActivityTaskScheduled event.
// It carries no argument value: the key is a hash. Tools that read
// histories decode it with DecodeCallHeader.
type CallHeader struct {
	// Class is the call's class.
	Class temporaladk.Class `json:"class"`
	// Idempotency is the declaration's name (READ_ONLY, ...), or "" when the
	// activity has no declaration.
	Idempotency string `json:"idempotency,omitempty"`
	// IdempotencyKey is the call's key, or "".
	IdempotencyKey string `json:"key,omitempty"`
	// MaxAttempts is the attempts the call gets; 0 means unlimited.
	MaxAttempts int `json:"max_attempts"`
	// InitialInterval, BackoffCoefficient and MaxInterval are the retry
	// settings the activity side draws jitter windows from.
	InitialInterval    time.Duration `json:"initial_interval"`
	BackoffCoefficient float64       `json:"backoff_coefficient"`
	MaxInterval        time.Duration `json:"max_interval"`
	// MaxRetryAfter is the longest Retry-After honoured.
	MaxRetryAfter time.Duration `json:"max_retry_after"`
	// Attempt is the attempt number when the workflow drives the retries
	// (a call under a budget); 0 when the server does.
	Attempt int `json:"attempt,omitempty"`
	// Deadline is the call's overall deadline when the workflow drives the
	// retries and the caller set a ScheduleToClose.
	Deadline time.Time `json:"deadline,omitzero"`
}

// DecodeCallHeader reads the kit's call header from a Temporal header's
// fields (an ActivityTaskScheduled event's Header.Fields), and reports
// whether there was one. A header that does not decode is an error.
func DecodeCallHeader(fields map[string]*commonpb.Payload) (CallHeader, bool, error) {
	p, ok := fields[HeaderKey]
	if !ok || p == nil {
		return CallHeader{}, false, nil
	}
	var h CallHeader
	if err := headerConverter.FromPayload(p, &h); err != nil {
		return CallHeader{}, false, fmt.Errorf("interceptors: decoding the call header: %w", err)
	}
	return h, true, nil
}

// headerConverter encodes the header. It is the SDK's default converter, not
// the worker's: the header is the kit's own, and a codec the user installs
// for their payloads would not know it.
var headerConverter = converter.GetDefaultDataConverter()

func writeHeader(fields map[string]*commonpb.Payload, h CallHeader) error {
	if fields == nil {
		return fmt.Errorf("interceptors: no header to write the call to")
	}
	p, err := headerConverter.ToPayload(h)
	if err != nil {
		return fmt.Errorf("interceptors: encoding the call header: %w", err)
	}
	fields[HeaderKey] = p
	return nil
}

// readHeader returns the kit's header of the activity ctx serves, and
// whether there was one. A header that does not decode is an error.
func readHeader(ctx context.Context) (CallHeader, bool, error) {
	return DecodeCallHeader(interceptor.Header(ctx))
}
