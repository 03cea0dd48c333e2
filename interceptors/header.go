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

// callHeader is what the workflow side tells the activity side about one
// call. It carries no argument value: the key is a hash.
type callHeader struct {
	Class          temporaladk.Class `json:"class"`
	Idempotency    string            `json:"idempotency,omitempty"`
	IdempotencyKey string            `json:"key,omitempty"`
	// MaxAttempts is the attempts the call gets; 0 means unlimited.
	MaxAttempts        int           `json:"max_attempts"`
	InitialInterval    time.Duration `json:"initial_interval"`
	BackoffCoefficient float64       `json:"backoff_coefficient"`
	MaxInterval        time.Duration `json:"max_interval"`
	MaxRetryAfter      time.Duration `json:"max_retry_after"`
	// Attempt is the attempt number when the workflow drives the retries
	// (a call under a budget); 0 when the server does.
	Attempt int `json:"attempt,omitempty"`
	// Deadline is the call's overall deadline when the workflow drives the
	// retries and the caller set a ScheduleToClose.
	Deadline time.Time `json:"deadline,omitzero"`
}

// headerConverter encodes the header. It is the SDK's default converter, not
// the worker's: the header is the kit's own, and a codec the user installs
// for their payloads would not know it.
var headerConverter = converter.GetDefaultDataConverter()

func writeHeader(fields map[string]*commonpb.Payload, h callHeader) error {
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
func readHeader(ctx context.Context) (callHeader, bool, error) {
	fields := interceptor.Header(ctx)
	p, ok := fields[HeaderKey]
	if !ok || p == nil {
		return callHeader{}, false, nil
	}
	var h callHeader
	if err := headerConverter.FromPayload(p, &h); err != nil {
		return callHeader{}, false, fmt.Errorf("interceptors: decoding the call header: %w", err)
	}
	return h, true, nil
}
