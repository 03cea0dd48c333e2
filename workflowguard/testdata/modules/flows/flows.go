// Package flows calls a worker pool of another module: its goroutines are reported at the call,
// its own channels are its business.
package flows

import (
	"example.com/pool"
	"go.temporal.io/sdk/workflow"
)

func FanOutWorkflow(ctx workflow.Context, items []string) { // want FanOutWorkflow:`^reaches\(ADK-W006 flows.FanOutWorkflow → pool.Run → go statement\)$`
	pool.Run(items, func(string) {}) // want `^ADK-W005 helper reaches native concurrency or map order \(ADK-W006\) on the workflow path \(pool.Run → go statement\); start it with workflow.Go`
	_ = pool.Drain(items)
}
