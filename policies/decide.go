package policies

import (
	"errors"
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Retryable is the kit's one answer to "is this failure a fault another
// attempt could cure?", read from the kit's error table, one row per
// error type (ARCHITECTURE.md, "Where each decision is made"). The never-retryable errors (guardrail,
// schema, budget, approval, scope) are never retryable, whatever any setting
// says. Errors outside the table are not retryable by the kit: it does not
// know what repeating them repeats, and leaves them to Temporal. A kit error
// carried by a Temporal ApplicationError is recognised by its type.
//
// Whether an attempt is left is a separate question: see DecideWait.
func Retryable(err error) bool { return vocab.Retryable(err) }

// WaitInput is everything the decision after a failed attempt depends on.
// It holds no clock: the caller reads the time left. The random source is
// the caller's too (inside the activity, never on the workflow path);
// DecideWait draws from it once, and only when the wait is full jitter.
type WaitInput struct {
	// Err is the failure.
	Err error
	// Attempt is the attempt that failed, 1 for the first.
	Attempt int
	// MaxAttempts is how many attempts the call gets, the first included;
	// zero or less means unlimited.
	MaxAttempts int
	// Retry gives the backoff windows and MaxRetryAfter.
	Retry RetryConfig
	// Random returns the random number in [0, 1) that full jitter is drawn
	// from. Required when the decision is a jitter wait; never called
	// otherwise.
	Random func() float64
	// HasDeadline says whether the call has an overall deadline, and Left
	// is what is left of it now.
	HasDeadline bool
	Left        time.Duration
}

// DecideWait decides what follows a failed attempt: whether another attempt
// is made, and after how long. In this order:
//   - a failure that is not Retryable is final;
//   - a call out of attempts is final;
//   - a failure whose row of the error table fixes a wait
//     (vocab.ErrorType.Wait: the kit's own failures, whatever their
//     cause asked) waits that long;
//   - a provider's Retry-After is honoured when it is within MaxRetryAfter,
//     and final beyond it (retrying earlier only earns another refusal);
//   - otherwise the wait is full jitter, Draw × BackoffWindow(Attempt);
//   - the wait is fitted to what is left of the deadline: a wait that leaves
//     no time for the attempt it is for is final, cut to what is left and
//     reported as truncated when it was longer.
//
// A missing Random, or a draw outside [0, 1), is an error naming it. Every component that decides
// a wait (the activity interceptor, ActivityAttempts) calls this.
func DecideWait(in WaitInput) (temporaladk.RetryDecision, error) {
	row, known := vocab.ErrorTypeOf(in.Err)
	if !Retryable(in.Err) {
		reason := "the failure is outside the kit's hierarchy: the kit does not know what repeating it repeats"
		if known {
			reason = row.Type + " is not retryable"
			if row.Retry == vocab.RetryNever {
				reason = row.Type + " is never retried, whatever any setting says"
			}
		}
		return temporaladk.RetryDecision{Final: true, Reason: reason}, nil
	}
	if in.MaxAttempts > 0 && in.Attempt >= in.MaxAttempts {
		return temporaladk.RetryDecision{Final: true, Reason: fmt.Sprintf("attempt %d of %d: no attempt left", in.Attempt, in.MaxAttempts)}, nil
	}
	var d temporaladk.RetryDecision
	if row.Wait > 0 {
		d = temporaladk.RetryDecision{Source: "fixed", Requested: row.Wait, Wait: row.Wait}
	} else if retryAfter, asked := vocab.RetryAfterOf(in.Err); asked {
		d = in.Retry.RetryAfterDecision(retryAfter)
	} else {
		if in.Random == nil {
			return temporaladk.RetryDecision{}, errors.New("policies: DecideWait: WaitInput.Random is nil, and the wait is full jitter")
		}
		var err error
		if d, err = in.Retry.JitterDecision(in.Attempt, in.Random()); err != nil {
			return temporaladk.RetryDecision{}, err
		}
	}
	if in.HasDeadline {
		d = fitLeft(d, in.Left, "")
	}
	return d, nil
}

// fitLeft fits d.Wait to left, the time that remains of a deadline. A wait
// that leaves no time for the attempt it is for (Wait ≥ left) is final: cut
// to what is left, and truncated when it was longer. deadline names the
// deadline in the reason ("" for "the deadline").
func fitLeft(d temporaladk.RetryDecision, left time.Duration, deadline string) temporaladk.RetryDecision {
	d.Wait = max(d.Wait, 0)
	if d.Final {
		return d
	}
	name := "the deadline"
	if deadline != "" {
		name = "the " + deadline + " deadline"
	}
	switch {
	case left <= 0:
		d.Truncated = d.Wait > 0
		d.Wait, d.Final = 0, true
		d.Reason = fmt.Sprintf("no time left of %s", name)
	case d.Wait >= left:
		d.Truncated = d.Wait > left
		d.Reason = fmt.Sprintf("wait of %v cut to %v: that is what is left of %s, no time for another attempt", d.Wait, left, name)
		d.Wait, d.Final = left, true
	}
	return d
}
