// Package fanout fans out through libraries: errgroup, sync.WaitGroup.Go, a worker pool, and
// waits on a rate limiter.
package fanout

import (
	"context"
	"sync"

	"example.com/pool"
	"go.temporal.io/sdk/workflow"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"
)

func FanOutWorkflow(ctx workflow.Context, items []string) error { // want FanOutWorkflow:`reaches`
	var g errgroup.Group
	for _, it := range items {
		g.Go(func() error { return workflow.ExecuteActivity(ctx, "act", it).Get(ctx, nil) }) // want `^ADK-W006 native concurrency or map order on the workflow path \(\(\*golang.org/x/sync/errgroup.Group\).Go\); start it with workflow.Go`
	}
	_ = g.TryGo(func() error { return nil }) // want `\(\(\*golang.org/x/sync/errgroup.Group\).TryGo\)`
	_ = g.Wait()
	var wg sync.WaitGroup
	wg.Go(func() {}) // want `\(\(\*sync.WaitGroup\).Go\)`
	wg.Wait()
	pool.Run(items, func(string) {}) // want `^ADK-W005 helper reaches native concurrency or map order \(ADK-W006\) on the workflow path \(pool.Run → pool.start → go statement\); start it with workflow.Go`
	lim := rate.NewLimiter(1, 1)
	_ = lim.Wait(context.Background()) // want `^ADK-W003 wall clock on the workflow path \(\(\*golang.org/x/time/rate.Limiter\).Wait\); use workflow.Sleep`
	_ = lim.Allow()                    // want `^ADK-W003 .*\(\(\*golang.org/x/time/rate.Limiter\).Allow\); use workflow.Now`

	// Safe: the SDK's coroutines, a pool helper that starts nothing, a limiter on workflow time.
	workflow.Go(ctx, func(ctx workflow.Context) {})
	_ = pool.Size(items)
	_ = lim.AllowN(workflow.Now(ctx), 1)
	return nil
}
