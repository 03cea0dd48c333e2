// Package c sits between a workflow and package b.
package c

import "example.com/b"

// Helper reaches b's randomness.
func Helper() float64 { // want Helper:`reaches\(ADK-W002 c.Helper → b.Backoff → b.jitter → math/rand.Float64\)`
	return float64(b.Backoff(1))
}

// Calm calls only silenced or pure helpers.
func Calm() float64 { return b.Quiet() + float64(b.Pure(1)) }
