// Package queries draws from the workflow's random stream in a query handler, and reads the
// machine's and the hash seed's randomness.
package queries

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"strconv"
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

// StreamQueryWorkflow takes its random stream in the workflow and draws from it in query
// handlers, which moves the stream between the workflow's own draws.
func StreamQueryWorkflow(ctx workflow.Context) error { // want StreamQueryWorkflow:`reaches`
	stream := workflow.GetRandomStream(ctx, "picks")
	r := rand.New(stream)
	_ = workflow.SetQueryHandler(ctx, "pick", func() (int, error) {
		return r.IntN(3), nil // want `^ADK-W002 random draw on the workflow path \(\(\*math/rand/v2.Rand\).IntN on the workflow's random stream in a query handler\); a query handler is read-only`
	})
	_ = workflow.SetQueryHandler(ctx, "raw", func() (uint64, error) {
		return stream.Uint64(), nil // want `\(\(math/rand/v2.Source\).Uint64 on the workflow's random stream in a query handler\)`
	})
	_ = workflow.SetQueryHandlerWithOptions(ctx, "fresh", func() (int, error) {
		return pick(rand.New(stream)), nil // want `\(example.com/queries.pick on the workflow's random stream in a query handler\)`
	}, workflow.QueryHandlerOptions{})

	// Safe: a value the workflow drew, read by a query; the draw in the workflow itself.
	last := r.IntN(10)
	_ = workflow.SetQueryHandler(ctx, "last", func() (string, error) { return strconv.Itoa(last), nil })
	_ = workflow.SetQueryHandler(ctx, "describe", func() (string, error) { return fmt.Sprint(stream), nil })
	return nil
}

// pick draws from the generator it is handed.
func pick(r *rand.Rand) int { return r.IntN(3) }
