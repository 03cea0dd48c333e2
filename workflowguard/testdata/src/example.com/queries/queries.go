// Package queries draws from the workflow's random stream in a query handler, and reads the
// machine's and the hash seed's randomness.
package queries

import (
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"time"

	"go.temporal.io/sdk/workflow"
)

func QueryWorkflow(ctx workflow.Context) error { // want QueryWorkflow:`reaches`
	_ = workflow.SetQueryHandler(ctx, "pick", func() (int, error) {
		r := rand.New(workflow.GetRandomStream(ctx, "q")) // want `^ADK-W002 random draw on the workflow path \(workflow.GetRandomStream in a query handler\); a query handler is read-only and must not draw`
		return r.IntN(3), nil
	})
	_ = maphash.MakeSeed() // want `^ADK-W002 .*\(hash/maphash.MakeSeed\)`
	_ = runtime.NumCPU()   // want `^ADK-W004 .*\(runtime.NumCPU\); read it in an activity`

	// Safe: a query handler that reads workflow state, the clock in read-only code, a draw in the workflow.
	state := 0
	_ = workflow.SetQueryHandler(ctx, "state", func() (int, error) { return state, nil })
	_ = workflow.SetQueryHandler(ctx, "asof", func() (time.Time, error) { return time.Now(), nil })
	r := rand.New(workflow.GetRandomStream(ctx, "w"))
	state = r.IntN(3)
	return nil
}
