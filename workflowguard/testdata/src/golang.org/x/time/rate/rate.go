// Package rate is a stub of golang.org/x/time/rate.
package rate

import (
	"context"
	"time"
)

// Limit is events per second.
type Limit float64

// Limiter keeps tokens on the wall clock.
type Limiter struct{ last time.Time }

func NewLimiter(r Limit, b int) *Limiter                  { return &Limiter{} }
func (l *Limiter) Wait(ctx context.Context) error         { time.Sleep(0); return nil }
func (l *Limiter) Allow() bool                            { return l.AllowN(time.Now(), 1) }
func (l *Limiter) AllowN(t time.Time, n int) bool         { l.last = t; return true }
func (l *Limiter) WaitN(ctx context.Context, n int) error { return l.Wait(ctx) }
func (l *Limiter) Tokens() float64                        { return 0 }
func (l *Limiter) SetLimitAt(t time.Time, newLimit Limit) {}
