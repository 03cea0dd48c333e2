// Package kinds holds one workflow with a hazard of each kind the guard follows through
// libraries, iterators, deadlines, process-global state and generic helpers: the command, go vet
// and golangci-lint must report the same findings here.
package kinds

import (
	"context"
	"maps"
	"math/rand"
	"slices"
	"time"

	"example.com/pool"
	"go.temporal.io/sdk/workflow"
)

var (
	cache     = map[string]string{}
	startedAt = time.Now()
)

type constant struct{}

func (constant) Next() time.Duration { return time.Second }

type jittered struct{}

func (jittered) Next() time.Duration { return time.Duration(rand.Int63n(100)) } // want Next:`reaches`

func wait[B interface{ Next() time.Duration }](b B) time.Duration { return b.Next() } // want wait:`per instantiation`

func KindsWorkflow(ctx workflow.Context, tools map[string]string) error { // want KindsWorkflow:`reaches`
	pool.Run(slices.Collect(maps.Keys(tools)), func(string) {}) // want `ADK-W005 .*\(pool.Run → go statement\)`
	keys := slices.Collect(maps.Keys(tools))                    // want `ADK-W006 .*\(slice filled in map order, ranged at line 35 where its order decides commands\)`
	for _, k := range keys {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	tctx, cancel := context.WithTimeout(context.Background(), time.Minute) // want `ADK-W003 .*\(context.WithTimeout\)`
	defer cancel()
	_ = tctx
	if _, done := cache["last"]; !done { // want `ADK-W007 .*\(read of example.com/app/kinds.cache, a cache written by kinds.KindsWorkflow\)`
		cache["last"] = keys[0] // want `ADK-W007 .*\(write to example.com/app/kinds.cache\)`
	}
	_ = workflow.Now(ctx).Sub(startedAt)      // want `ADK-W007 .*\(likely: example.com/app/kinds.startedAt, set from time.Now\)`
	_ = workflow.Sleep(ctx, wait(constant{})) // quiet: resolved per instantiation
	_ = workflow.Sleep(ctx, wait(jittered{})) // want `ADK-W005 .*\(kinds.wait → \(kinds.jittered\).Next → math/rand.Int63n\)`
	return nil
}
