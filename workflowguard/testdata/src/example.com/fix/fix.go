// Package fix holds hazards with a mechanical rewrite.
package fix

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

func FixWorkflow(ctx workflow.Context) error { // want FixWorkflow:`^reaches\(ADK-W003 fix\.FixWorkflow → time\.Now; ADK-W006 fix\.FixWorkflow → go statement\)$`
	start := time.Now()     // want `\(time.Now\)`
	time.Sleep(time.Second) // want `\(time.Sleep\)`
	_ = time.Since(start)   // want `\(time.Since\)`
	go work(1)              // want `\(go statement\)`
	go func() {             // want `\(go statement\)`
		work(2)
	}()
	workflow.Go(ctx, func(gctx workflow.Context) {
		_ = time.Now() // want `\(time.Now\)`
	})
	f := time.Now // want `taken as a function value`
	_ = f()
	_ = time.Until(start) // want `\(time.Until\)`
	return nil
}

func work(int) {}
