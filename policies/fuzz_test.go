package policies_test

import (
	"testing"
	"time"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// FuzzActivityPolicy feeds any numbers to the constructors: nothing panics,
// whatever constructs also validates, and derived windows always fit.
func FuzzActivityPolicy(f *testing.F) {
	f.Add(uint8(0), int64(900e9), int64(60e9), 3, int64(1e9), 2.0, int64(30e9), int64(60e9), int64(600e9), 0.5, 4)
	f.Add(uint8(1), int64(0), int64(-1), 0, int64(-1), 0.5, int64(-1), int64(-1), int64(-1), -1.0, -1)
	f.Add(uint8(2), int64(1), int64(1), 1, int64(1<<62), 1e308, int64(1<<62), int64(0), int64(1), 1.0, 1<<30)
	f.Add(uint8(3), int64(8e9), int64(4e9), 1<<31, int64(0), 1.0, int64(0), int64(0), int64(8e9), 0.999999, 0)
	f.Fuzz(func(t *testing.T, class uint8, stc, hb int64, attempts int, initial int64, coef float64,
		maxInterval, maxRetryAfter, timeout int64, u float64, n int) {
		c := vocab.Classes()[int(class)%4]
		p := policies.ActivityPolicy{
			Class: c, StartToClose: time.Duration(stc), Heartbeat: time.Duration(hb),
			Retry: policies.RetryConfig{MaxAttempts: attempts, InitialInterval: time.Duration(initial),
				BackoffCoefficient: coef, MaxInterval: time.Duration(maxInterval), MaxRetryAfter: time.Duration(maxRetryAfter)},
		}
		built, err := vocabtest.Validated(p)
		if err == nil {
			if verr := built.Validate(); verr != nil {
				t.Fatalf("constructed but does not validate: %v", verr)
			}
			if built.Heartbeat >= built.StartToClose {
				t.Fatalf("heartbeat %v not inside %v", built.Heartbeat, built.StartToClose)
			}
			w := built.Retry.BackoffWindow(n)
			if w < 0 {
				t.Fatalf("negative backoff window %v", w)
			}
			if wait, jerr := built.Retry.FullJitter(n, u); jerr == nil && (wait < 0 || wait > w) {
				t.Fatalf("jitter %v outside [0, %v]", wait, w)
			}
			opts := built.ActivityOptions()
			if len(opts.RetryPolicy.NonRetryableErrorTypes) != len(vocab.NeverRetryableTypes()) {
				t.Fatalf("mapped retry policy lost the never-retryable names")
			}
		}
		var base *policies.ActivityPolicy
		if err == nil {
			base = &built
		}
		derived, derr := policies.ActivityPolicyFor(c, time.Duration(timeout), base)
		if derr == nil {
			if verr := derived.Validate(); verr != nil {
				t.Fatalf("derived but does not validate: %v", verr)
			}
			if base != nil && derived.Retry != base.Retry {
				t.Fatalf("derivation changed retry settings")
			}
		}
		d := policies.Fit(temporaladk.RetryDecision{Requested: time.Duration(hb), Wait: time.Duration(hb)}, time.Duration(timeout), time.Duration(stc))
		if d.Wait < 0 || (d.Wait > d.Requested && d.Requested >= 0) {
			t.Fatalf("truncation grew or negated a wait: %+v", d)
		}
	})
}
