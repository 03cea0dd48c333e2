// Package backoff is a stub of github.com/cenkalti/backoff/v5, whose NextBackOff has no deadline.
package backoff

import (
	"context"
	"time"
)

// ExponentialBackOff as in v5.
type ExponentialBackOff struct {
	InitialInterval     time.Duration
	RandomizationFactor float64
	Multiplier          float64
	MaxInterval         time.Duration
}

func NewExponentialBackOff() *ExponentialBackOff {
	return &ExponentialBackOff{RandomizationFactor: 0.5}
}
func (b *ExponentialBackOff) NextBackOff() time.Duration                { return 0 }
func Retry[T any](ctx context.Context, op func() (T, error)) (T, error) { var t T; return t, nil }
