package globals

import (
	"context"
	"sync"

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

// Caches kept in a field of a package-level struct, behind its mutex: an activity fills the
// embeddings one; the config one is filled at init.
var (
	embeddings = struct {
		sync.Mutex
		byText map[string][]float64
	}{byText: map[string][]float64{}}
	settings = struct{ models map[string]string }{models: map[string]string{}}
)

func init() { settings.models["default"] = "small" } // want init:`reaches`

// Embed is an activity that keeps what it computed.
func Embed(ctx context.Context, text string) ([]float64, error) { // want Embed:`reaches`
	embeddings.Lock()
	defer embeddings.Unlock()
	v := []float64{float64(len(text))}
	embeddings.byText[text] = v
	return v, nil
}

func FieldCacheWorkflow(ctx workflow.Context, text string) ([]float64, error) { // want FieldCacheWorkflow:`reaches`
	embeddings.Lock()
	v, ok := embeddings.byText[text] // want `^ADK-W007 process-global state on the workflow path \(read of example.com/globals.embeddings, a cache written by globals.Embed\)`
	embeddings.Unlock()
	if ok {
		return v, nil
	}
	// Safe: a table in a struct filled at init.
	_ = settings.models["default"]
	err := workflow.ExecuteActivity(ctx, Embed, text).Get(ctx, &v)
	return v, err
}
