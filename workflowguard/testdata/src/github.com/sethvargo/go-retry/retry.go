// Package retry is a stub of github.com/sethvargo/go-retry.
package retry

import (
	"context"
	"time"
)

// Backoff is a backoff policy.
type Backoff interface{ Next() (time.Duration, bool) }

func NewConstant(d time.Duration) Backoff                                    { return nil }
func WithMaxDuration(d time.Duration, b Backoff) Backoff                     { return b }
func WithJitter(j time.Duration, b Backoff) Backoff                          { return b }
func Do(ctx context.Context, b Backoff, f func(context.Context) error) error { return nil }
