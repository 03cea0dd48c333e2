package globals

import (
	"context"

	"go.temporal.io/sdk/workflow"
)

// Caches filled while the worker serves runs, read on the workflow path: a read decides on what
// earlier runs on this worker left. Tables filled at start-up are read alike and stay quiet.
var (
	prices = map[string]int{}  // filled by an activity
	memo   = map[string]bool{} // filled by a helper an activity calls
	units  = map[string]int{"s": 1, "ms": 1000}
	tools  = map[string]string{}
	limits = map[string]int{}
)

func init() { // want init:`reaches`
	Register("search", "v1")
	limits["search"] = 3
}

// Register adds a tool at start-up; its duplicate check reads the table too.
func Register(name, version string) { // want Register:`reaches`
	if _, dup := tools[name]; dup {
		panic("registered twice: " + name)
	}
	tools[name] = version
}

// FetchPrice is an activity that remembers what it fetched.
func FetchPrice(ctx context.Context, item string) (int, error) { // want FetchPrice:`reaches`
	prices[item] = len(item)
	remember(item)
	return prices[item], nil
}

func remember(item string) { memo[item] = true }

func seenBefore(item string) bool { return memo[item] } // want seenBefore:`reaches\(ADK-W007 globals.seenBefore → read of example.com/globals.memo, a cache written by globals.remember\)`

func CacheWorkflow(ctx workflow.Context, item string) (int, error) { // want CacheWorkflow:`reaches`
	if p, ok := prices[item]; ok { // want `^ADK-W007 process-global state on the workflow path \(read of example.com/globals.prices, a cache written by globals.FetchPrice\); keep the state in the workflow`
		return p, nil
	}
	if seenBefore(item) { // want `^ADK-W005 helper reaches process-global state \(ADK-W007\) on the workflow path \(globals.seenBefore → read of example.com/globals.memo, a cache written by globals.remember\)`
		return 0, nil
	}

	// Safe: tables filled in their declaration, at init, or by a registration function.
	n := units["ms"] + limits["search"] + len(tools[item])
	var p int
	err := workflow.ExecuteActivity(ctx, FetchPrice, item).Get(ctx, &p)
	return p + n, err
}
