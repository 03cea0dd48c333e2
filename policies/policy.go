package policies

import (
	"fmt"
	"math"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// RetryConfig is how often and how patiently a class retries. Its fields map
// onto temporal.RetryPolicy; MaxRetryAfter is the kit's own.
type RetryConfig struct {
	// MaxAttempts is the most attempts one call gets, the first included.
	// Must be at least 1; 1 means no retry.
	MaxAttempts int
	// InitialInterval is the backoff window after the first failed attempt.
	// Must not be negative; zero leaves the server's default in the mapped
	// RetryPolicy and gives a zero jitter window.
	InitialInterval time.Duration
	// BackoffCoefficient multiplies the window after each failed attempt.
	// Must be a finite number of at least 1.
	BackoffCoefficient float64
	// MaxInterval caps the backoff window. Must not be negative; zero means
	// 100 × InitialInterval, as Temporal's own default.
	MaxInterval time.Duration
	// MaxRetryAfter is the longest Retry-After a provider may ask for that
	// is honoured; a longer one ends the retries, because waiting past it is
	// not worth it and retrying earlier only earns another refusal. Must not
	// be negative; zero honours none: any Retry-After ends the retries.
	MaxRetryAfter time.Duration
}

// ActivityPolicy is the surface of the kit's decisions for one class: the
// activity's windows and its retry settings. The defaults are values, not
// contract (see Default); this type is the contract.
//
// Build one from a default and change what you need, then check it with
// Validate; the zero value is not a valid policy.
type ActivityPolicy struct {
	// Class is the class the policy is for, in any letter case. Required.
	Class temporaladk.Class
	// StartToClose is how long one attempt may run. Must be greater than
	// zero.
	StartToClose time.Duration
	// Heartbeat is the heartbeat window: an attempt silent for longer is
	// taken for dead. Zero means the class does not heartbeat. Must be
	// shorter than StartToClose: a window wider than the activity could
	// never be breached, so it would not be a timeout.
	Heartbeat time.Duration
	// Retry is how the class retries.
	Retry RetryConfig
	// Priority is the task priority and fairness of the class's calls, as
	// Temporal's matching service reads them when tasks wait in a queue: a
	// PriorityKey from 1 (dispatched first) to MaxPriorityKey, for example
	// MODEL calls below TOOL calls; a FairnessKey for calls with no tenant;
	// a FairnessWeight from MinFairnessWeight to MaxFairnessWeight. Zero
	// fields set nothing: the call inherits the workflow's, else the
	// server's default. A call's tenant (temporaladk.WithTenant) replaces
	// FairnessKey, and each field the caller set on the call's own
	// ActivityOptions.Priority wins over both. Local activities have no
	// task queue of their own: their calls carry none of it.
	Priority temporal.Priority
}

// ValidationError reports a policy that was refused, naming the field.
type ValidationError struct {
	// Field is the field at fault, e.g. "Heartbeat" or
	// "Retry.BackoffCoefficient".
	Field string
	// Reason says what is wrong with it, with its value.
	Reason string
}

// Error describes the failure, with its fields.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("policies: ActivityPolicy.%s %s", e.Field, e.Reason)
}

// Validate returns the first problem with p as a *ValidationError naming the
// field, or nil.
func (p ActivityPolicy) Validate() error {
	invalid := func(field, format string, args ...any) error {
		return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	class := vocab.CanonicalClass(p.Class)
	switch {
	case !class.Valid():
		return invalid("Class", "is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", p.Class)
	case p.StartToClose <= 0:
		return invalid("StartToClose", "is %v: it must be greater than zero", p.StartToClose)
	case p.Heartbeat < 0:
		return invalid("Heartbeat", "is %v: it must not be negative (zero means no heartbeat)", p.Heartbeat)
	case p.Heartbeat >= p.StartToClose:
		return invalid("Heartbeat", "(%v) is not shorter than StartToClose (%v): a heartbeat window wider than the activity is not a timeout", p.Heartbeat, p.StartToClose)
	}
	if err := validatePriority(class, p.Priority); err != nil {
		return err
	}
	return p.Retry.validate()
}

// Validate returns the first problem with r as a *ValidationError naming the
// field, or nil.
func (r RetryConfig) Validate() error { return r.validate() }

func (r RetryConfig) validate() error {
	invalid := func(field, format string, args ...any) error {
		return &ValidationError{Field: "Retry." + field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.MaxAttempts < 1:
		return invalid("MaxAttempts", "is %d: it must be at least 1 (1 means no retry)", r.MaxAttempts)
	case math.IsNaN(r.BackoffCoefficient) || math.IsInf(r.BackoffCoefficient, 0):
		return invalid("BackoffCoefficient", "is %v: it must be a finite number", r.BackoffCoefficient)
	case r.BackoffCoefficient < 1:
		return invalid("BackoffCoefficient", "is %v: it must be at least 1", r.BackoffCoefficient)
	case r.InitialInterval < 0:
		return invalid("InitialInterval", "is %v: it must not be negative", r.InitialInterval)
	case r.MaxInterval < 0:
		return invalid("MaxInterval", "is %v: it must not be negative", r.MaxInterval)
	case r.MaxInterval > 0 && r.MaxInterval < r.InitialInterval:
		return invalid("MaxInterval", "(%v) is shorter than InitialInterval (%v)", r.MaxInterval, r.InitialInterval)
	case r.MaxRetryAfter < 0:
		return invalid("MaxRetryAfter", "is %v: it must not be negative", r.MaxRetryAfter)
	}
	return nil
}

// Retryable reports whether err is a fault another attempt could cure: it
// is Retryable, the kit's one predicate, whatever p's MaxAttempts says. The
// never-retryable errors are never retryable; errors outside the kit's
// hierarchy are left to Temporal.
func (p ActivityPolicy) Retryable(err error) bool { return Retryable(err) }
