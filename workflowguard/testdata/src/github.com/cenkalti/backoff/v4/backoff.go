// Package backoff is a stub of github.com/cenkalti/backoff/v4.
package backoff

import "time"

type ExponentialBackOff struct{}

func NewExponentialBackOff() *ExponentialBackOff         { return &ExponentialBackOff{} }
func (b *ExponentialBackOff) NextBackOff() time.Duration { return 0 }
