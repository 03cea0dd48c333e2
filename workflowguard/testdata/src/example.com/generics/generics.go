// Package generics retries through a generic helper: the method of its type parameter is
// resolved per instantiation, so the no-jitter instantiation stays quiet.
package generics

import (
	"math/rand"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Backoff is the helper's constraint.
type Backoff interface{ Next() time.Duration }

// Constant waits the same every time.
type Constant struct{ D time.Duration }

// Next returns the constant wait.
func (c Constant) Next() time.Duration { return c.D }

// Jittered draws its wait.
type Jittered struct{}

// Next draws from the global source.
func (Jittered) Next() time.Duration { return time.Duration(rand.Int63n(100)) } // want Next:`reaches\(ADK-W002 \(generics.Jittered\).Next → math/rand.Int63n\)`

// retry sleeps on workflow time between attempts, for as long as b says.
func retry[B Backoff](ctx workflow.Context, b B, attempts int) { // want retry:`^reaches\(per instantiation: type parameter 0's Next\)$`
	for range attempts {
		_ = workflow.Sleep(ctx, b.Next())
	}
}

// wait is the same helper without a workflow context.
func wait[B Backoff](b B) time.Duration { return b.Next() } // want wait:`^reaches\(per instantiation: type parameter 0's Next\)$`

func GenericWorkflow(ctx workflow.Context) { // want GenericWorkflow:`reaches\(ADK-W002 generics.GenericWorkflow → generics.retry → \(generics.Jittered\).Next → math/rand.Int63n\)`
	retry(ctx, Constant{D: time.Second}, 3)
	_ = workflow.Sleep(ctx, wait(Constant{D: time.Second}))
	retry(ctx, Jittered{}, 3)                           // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(generics.retry → \(generics.Jittered\).Next → math/rand.Int63n\)`
	_ = workflow.Sleep(ctx, wait[Jittered](Jittered{})) // want `\(generics.wait → \(generics.Jittered\).Next → math/rand.Int63n\)`
}
