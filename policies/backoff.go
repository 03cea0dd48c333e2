package policies

import (
	"fmt"
	"math"
	"time"

	"github.com/temporaladk/adk-go/temporaladk"
)

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(math.MaxInt64)

// BackoffWindow returns the jitter window after failed attempt n (n ≥ 1):
// min(InitialInterval × BackoffCoefficient^(n−1), MaxInterval), with a zero
// MaxInterval read as 100 × InitialInterval. An n below 1 is read as 1.
// The result never overflows.
func (r RetryConfig) BackoffWindow(n int) time.Duration {
	if r.InitialInterval <= 0 {
		// A zero window, whatever the coefficient: 0 × coef^n is 0, and
		// 0 × +Inf, for a huge n, would be NaN.
		return 0
	}
	if n < 1 {
		n = 1
	}
	ceiling := r.MaxInterval
	if ceiling <= 0 {
		ceiling = saturatingMul(r.InitialInterval, 100)
	}
	coef := r.BackoffCoefficient
	if coef < 1 || math.IsNaN(coef) {
		coef = 1
	}
	w := float64(r.InitialInterval) * math.Pow(coef, float64(n-1))
	if math.IsNaN(w) || math.IsInf(w, 0) || w >= float64(ceiling) {
		return ceiling
	}
	return time.Duration(w)
}

// FullJitter returns the wait after failed attempt n drawn with full
// jitter: u × BackoffWindow(n), where u is a random number in [0, 1) that the
// caller draws (inside the activity, never on the workflow path). A u
// outside [0, 1) is an error naming it.
func (r RetryConfig) FullJitter(n int, u float64) (time.Duration, error) {
	if math.IsNaN(u) || u < 0 || u >= 1 {
		return 0, fmt.Errorf("policies: jitter draw %v is not in [0, 1)", u)
	}
	return time.Duration(u * float64(r.BackoffWindow(n))), nil
}

// Fit fits a decided wait (a drawn jitter, an honoured Retry-After, or a
// plain RetryDecision{Requested: wait, Wait: wait}) to what is left of an
// activity's overall deadline: timeout is the deadline measured from the
// first attempt's schedule (ScheduleToClose, or the run's own ceiling) and
// elapsed is how much of it is gone. It keeps d's Source, Requested and a
// Final that was already decided, by the rule DecideWait uses. A wait that
// leaves no time for the attempt it is for is final: cut to what is left and
// reported as truncated when it was longer, with a reason naming the
// deadline, because dropping it silently leaves an operator reading a
// schedule the run never followed. A timeout of zero or less means no
// deadline. A negative wait is read as no wait.
func Fit(d temporaladk.RetryDecision, timeout, elapsed time.Duration) temporaladk.RetryDecision {
	if timeout <= 0 {
		d.Wait = max(d.Wait, 0)
		return d
	}
	return fitLeft(d, timeout-elapsed, timeout.String())
}

// RetryAfterDecision decides what to do with a wait a provider asked for:
// honoured when it is within MaxRetryAfter, Final otherwise. The result is
// not yet fitted to the deadline (see Fit).
func (r RetryConfig) RetryAfterDecision(retryAfter time.Duration) temporaladk.RetryDecision {
	d := temporaladk.RetryDecision{Source: "retry-after", Requested: retryAfter, Wait: retryAfter}
	if retryAfter > r.MaxRetryAfter {
		d.Wait, d.Final = 0, true
		d.Reason = fmt.Sprintf("provider asked to retry after %v, beyond MaxRetryAfter %v", retryAfter, r.MaxRetryAfter)
	}
	return d
}

func saturatingMul(d time.Duration, n int64) time.Duration {
	if d > 0 && int64(d) > math.MaxInt64/n {
		return maxDuration
	}
	return d * time.Duration(n)
}

// JitterDecision is FullJitter as a decision, with Source "jitter"; fit it to
// the deadline with Fit.
func (r RetryConfig) JitterDecision(n int, u float64) (temporaladk.RetryDecision, error) {
	wait, err := r.FullJitter(n, u)
	if err != nil {
		return temporaladk.RetryDecision{}, err
	}
	return temporaladk.RetryDecision{Source: "jitter", Requested: wait, Wait: wait}, nil
}
