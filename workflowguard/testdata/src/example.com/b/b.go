// Package b holds helpers with no workflow of their own: facts carry what they reach.
package b

import (
	"math/rand"
	"net/http"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Ctx aliases the workflow context from another package.
type Ctx = workflow.Context

func jitter() float64 { // want jitter:`reaches\(ADK-W002 b.jitter → math/rand.Float64\)`
	return rand.Float64()
}

// Backoff reaches randomness two calls down.
func Backoff(attempt int) time.Duration { // want Backoff:`reaches\(ADK-W002 b.Backoff → b.jitter → math/rand.Float64\)`
	return time.Duration(float64(attempt) * jitter() * float64(time.Second))
}

// Stamp reads the clock.
func Stamp() time.Time { // want Stamp:`reaches\(ADK-W003 b.Stamp → time.Now\)`
	return time.Now()
}

// Both reaches two rules; each keeps its shortest chain.
func Both() { // want Both:`reaches\(ADK-W002 b.Both → b.jitter → math/rand.Float64; ADK-W003 b.Both → b.Stamp → time.Now\)`
	_ = Stamp()
	_ = jitter()
}

// Fetch does network I/O.
func Fetch() error { // want Fetch:`reaches\(ADK-W004 b.Fetch → net/http.Get\)`
	_, err := http.Get("http://example.com")
	return err
}

// Pure reaches nothing and carries no fact.
func Pure(n int) int { return n * 2 }

// Quiet draws, but its author silenced the draw with a reason, so it carries no fact.
func Quiet() float64 {
	//workflowguard:ignore ADK-W002 callers record the value with workflow.SideEffect
	return rand.Float64()
}

// Recursive reaches the clock through a cycle.
func Recursive(n int) time.Time { // want Recursive:`reaches\(ADK-W003 b.Recursive → b.Stamp → time.Now\)`
	if n == 0 {
		return Stamp()
	}
	return Recursive(n - 1)
}

// Sleeper has a method that sleeps.
type Sleeper struct{}

// Nap sleeps on the wall clock.
func (Sleeper) Nap() { // want Nap:`reaches\(ADK-W003 \(b.Sleeper\).Nap → time.Sleep\)`
	time.Sleep(time.Millisecond)
}

// Box is generic; its method reaches the clock.
type Box[T any] struct{ V T }

// Stamp reads the clock.
func (b *Box[T]) Stamp() time.Time { // want Stamp:`reaches\(ADK-W003 \(\*b.Box\).Stamp → time.Now\)`
	return time.Now()
}

// Pick is a generic helper that draws.
func Pick[T any](xs []T) T { // want Pick:`reaches\(ADK-W002 b.Pick → math/rand.Intn\)`
	return xs[rand.Intn(len(xs))]
}
