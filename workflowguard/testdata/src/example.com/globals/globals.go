// Package globals keeps process-global state on the workflow path: a cache deciding whether an
// activity runs, a counter, a sync.Once, an atomic round-robin, a shared generator, values set
// at init from the clock and the environment, and a mutex held across a blocking call.
package globals

import (
	"errors"
	"math/rand"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/workflow"
)

var (
	cache     = map[string]string{}
	calls     int
	once      sync.Once
	next      atomic.Int64
	counter   int64
	shared    = rand.New(rand.NewSource(42))
	startedAt = time.Now()
	region    = os.Getenv("REGION")
	mu        sync.Mutex
	defaults  = map[string]int{"a": 1}
	errGone   = errors.New("gone")
	seen      sync.Map
	sink      sync.Map
	config    = sync.OnceValue(func() string { return "config" })
)

func GlobalWorkflow(ctx workflow.Context, key string) (string, error) { // want GlobalWorkflow:`reaches\(ADK-W007 globals.GlobalWorkflow → \(\*sync.Once\).Do on example.com/globals.once\)`
	if v, ok := cache[key]; ok { // want `\(read of example.com/globals.cache, a cache written by globals.GlobalWorkflow\)`
		return v, nil
	}
	var out string
	if err := workflow.ExecuteActivity(ctx, "fetch", key).Get(ctx, &out); err != nil {
		return "", err
	}
	cache[key] = out   // want `^ADK-W007 process-global state on the workflow path \(write to example.com/globals.cache\); keep the state in the workflow`
	delete(cache, "x") // want `\(delete on example.com/globals.cache\)`
	once.Do(func() {}) // want `\(\(\*sync.Once\).Do on example.com/globals.once\); do the work once per run`
	activityTypes := []string{"a", "b"}
	_ = workflow.ExecuteActivity(ctx, activityTypes[next.Add(1)%2]) // want `\(sync/atomic.Add on example.com/globals.next\)`
	_ = shared.Intn(3)                                              // want `\(\(\*math/rand.Rand\).Intn on example.com/globals.shared, shared by every run\)`
	_ = workflow.Now(ctx).Sub(startedAt)                            // want `^ADK-W007 .*\(likely: example.com/globals.startedAt, set from time.Now\); each worker process holds its own value`
	_ = region                                                      // want `\(likely: example.com/globals.region, set from os.Getenv\)`
	mu.Lock()                                                       // want `\(\(\*sync.Mutex\).Lock held across workflow.Sleep\); use workflow.NewMutex`
	_ = workflow.Sleep(ctx, time.Second)
	mu.Unlock()
	mu.Lock() // want `\(\(\*sync.Mutex\).Lock held across \(internal.Future\).Get\)`
	defer mu.Unlock()
	_ = workflow.ExecuteActivity(ctx, "b").Get(ctx, nil)
	if _, ok := seen.Load(key); ok { // want `\(\(\*sync.Map\).Load on example.com/globals.seen\); keep the state in the workflow`
		return "", nil
	}
	_ = config() // want `\(example.com/globals.config, made by sync.OnceValue\); do the work once per run`
	record(key)  // want `^ADK-W005 helper reaches process-global state \(ADK-W007\) on the workflow path \(globals.record → write to example.com/globals.cache\)`

	// Safe: read-only tables, local state, a local lock released before the wait, a local Once,
	// a fixed-seed generator of the run's own, a counter in a SideEffect.
	_ = defaults["a"]
	_ = errGone
	local := map[string]string{}
	local[key] = out
	var lmu sync.Mutex
	lmu.Lock()
	n := len(local)
	lmu.Unlock()
	_ = workflow.Sleep(ctx, time.Second)
	// Only written on the workflow path, never read there: a metric, a sink a test reads.
	calls++
	atomic.AddInt64(&counter, 1)
	sink.Store(key, out)
	var lonce sync.Once
	lonce.Do(func() {})
	var lseen sync.Map
	lseen.Store(key, true)
	localConfig := sync.OnceValue(func() string { return "config" })
	_ = localConfig()
	own := rand.New(rand.NewSource(1))
	_ = own.Intn(3) + n
	_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any { calls++; return calls })
	return out, nil
}

func record(k string) { cache[k] = "seen" } // want record:`reaches\(ADK-W007 globals.record → write to example.com/globals.cache\)`

// Sunk reads the sink, off the workflow path.
func Sunk(key string) bool { _, ok := sink.Load(key); return ok } // want Sunk:`reaches`

// Setup runs in main, off the workflow path: its writes are not reported.
func Setup() { calls = 0; cache = map[string]string{} } // want Setup:`reaches`
