// Package backoff is a stub of github.com/cenkalti/backoff/v4.
package backoff

import "time"

// Clock is the backoff's clock.
type Clock interface{ Now() time.Time }

// ExponentialBackOff as in v4: NextBackOff draws a jitter and stops at MaxElapsedTime.
type ExponentialBackOff struct {
	InitialInterval     time.Duration
	RandomizationFactor float64
	Multiplier          float64
	MaxInterval         time.Duration
	MaxElapsedTime      time.Duration
	Clock               Clock
}

// ExponentialBackOffOpts is an option of NewExponentialBackOff.
type ExponentialBackOffOpts func(*ExponentialBackOff)

func WithRandomizationFactor(f float64) ExponentialBackOffOpts {
	return func(b *ExponentialBackOff) { b.RandomizationFactor = f }
}
func WithMaxElapsedTime(d time.Duration) ExponentialBackOffOpts {
	return func(b *ExponentialBackOff) { b.MaxElapsedTime = d }
}

func NewExponentialBackOff(opts ...ExponentialBackOffOpts) *ExponentialBackOff {
	return &ExponentialBackOff{RandomizationFactor: 0.5, MaxElapsedTime: 15 * time.Minute}
}
func (b *ExponentialBackOff) NextBackOff() time.Duration { return 0 }

// BackOff is a backoff policy.
type BackOff interface{ NextBackOff() time.Duration }

// Operation is retried.
type Operation func() error

func Retry(o Operation, b BackOff) error { return nil }
