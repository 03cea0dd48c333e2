package a

import (
	"context"
	"math/rand"
	"net/http"
	"time"

	"example.com/b"
	"go.temporal.io/sdk/workflow"
)

// Activity takes a context.Context: it may do anything, and is out of scope.
func Activity(ctx context.Context) (float64, error) { // want Activity:`^reaches\(ADK-W002 a\.Activity → math/rand\.Float64; ADK-W003 a\.Activity → time\.Sleep; ADK-W004 a\.Activity → net/http\.Get\)$`
	_, _ = http.Get("http://example.com")
	time.Sleep(time.Second)
	return rand.Float64(), nil
}

// Activities is a struct of activity methods.
type Activities struct{}

// Fetch is an activity method.
func (a *Activities) Fetch(ctx context.Context) error { // want Fetch:`^reaches\(ADK-W004 \(\*a\.Activities\)\.Fetch → net/http\.Get\)$`
	_, err := http.Get("http://example.com")
	return err
}

// genID is a SideEffect callback: its first parameter is a workflow.Context, but it is recorded
// once and never replayed, so it is not a workflow.
func genID(ctx workflow.Context) any { return rand.Int() } // want genID:`^reaches\(ADK-W002 a\.genID → math/rand\.Int\)$`

func ScheduledWorkflow(ctx workflow.Context) error {
	acts := &Activities{}
	_ = workflow.ExecuteActivity(ctx, Activity)
	_ = workflow.ExecuteActivity(ctx, acts.Fetch)
	_ = workflow.ExecuteLocalActivity(ctx, func(ctx context.Context) (time.Time, error) {
		return time.Now(), nil
	})
	registry := map[string]any{"fetch": acts.Fetch, "activity": Activity}
	_ = registry
	return nil
}

func SideEffectWorkflow(ctx workflow.Context) {
	_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any { return rand.Float64() })
	_ = workflow.SideEffect(ctx, genID)
	_ = workflow.SideEffectWithOptions(ctx, workflow.SideEffectOptions{}, func(ctx workflow.Context) any {
		return time.Now()
	})
	_ = workflow.MutableSideEffect(ctx, "now", func(ctx workflow.Context) any { return time.Now() },
		func(a, b any) bool { return a == b })
	_ = workflow.MutableSideEffectWithOptions(ctx, "id", workflow.MutableSideEffectOptions{},
		func(ctx workflow.Context) any { return rand.Int() }, func(a, b any) bool { return a == b })
	stamp := func(ctx workflow.Context) any { return time.Now() }
	_ = workflow.SideEffect(ctx, stamp)
}

func CallsActivityDirectly(ctx workflow.Context) { // want CallsActivityDirectly:`^reaches\(ADK-W002 a\.CallsActivityDirectly → a\.Activity → math/rand\.Float64; ADK-W003 a\.CallsActivityDirectly → a\.Activity → time\.Sleep; ADK-W004 a\.CallsActivityDirectly → a\.Activity → net/http\.Get\)$`
	_, _ = Activity(context.Background()) // want `^ADK-W005 helper reaches network, process, environment or file I/O \(ADK-W004\) on the workflow path \(a.Activity → net/http.Get\)` `ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(a.Activity → math/rand.Float64\)` `ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(a.Activity → time.Sleep\)`
	_ = genID(ctx)                        // want `ADK-W005 .*\(a.genID → math/rand.Int\)`
}

func ChildWorkflow(ctx workflow.Context) { // want ChildWorkflow:`^reaches\(ADK-W003 a\.ChildWorkflow → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
}

// ParentWorkflow calls a workflow of the same package: ChildWorkflow's own finding is reported
// where it is, not again here.
func ParentWorkflow(ctx workflow.Context) { // want ParentWorkflow:`^reaches\(ADK-W003 a\.ParentWorkflow → a\.ChildWorkflow → time\.Now\)$`
	ChildWorkflow(ctx)
}

func ChainWorkflow(ctx workflow.Context) { // want ChainWorkflow:`^reaches\(ADK-W002 a\.ChainWorkflow → b\.Backoff → b\.jitter → math/rand\.Float64; ADK-W003 a\.ChainWorkflow → b\.Stamp → time\.Now; ADK-W004 a\.ChainWorkflow → b\.Fetch → net/http\.Get\)$`
	_ = b.Backoff(1)   // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(b.Backoff → b.jitter → math/rand.Float64\); draw from workflow.GetRandomStream`
	_ = b.Stamp()      // want `ADK-W005 .*\(ADK-W003\) .*\(b.Stamp → time.Now\); use workflow.Now`
	_ = b.Fetch()      // want `ADK-W005 .*\(ADK-W004\) .*\(b.Fetch → net/http.Get\)`
	b.Both()           // want `\(b.Both → b.jitter → math/rand.Float64\)` `\(b.Both → b.Stamp → time.Now\)`
	_ = b.Recursive(3) // want `b.Recursive → b.Stamp → time.Now`
	_ = b.Pure(1)
	_ = b.Quiet()
	_ = helperTwoDeep() // want `\(a.helperTwoDeep → a.helperOneDeep → b.Backoff → b.jitter → math/rand.Float64\)`
}

func helperOneDeep() time.Duration { return b.Backoff(2) }    // want helperOneDeep:`^reaches\(ADK-W002 a\.helperOneDeep → b\.Backoff → b\.jitter → math/rand\.Float64\)$`
func helperTwoDeep() time.Duration { return helperOneDeep() } // want helperTwoDeep:`^reaches\(ADK-W002 a\.helperTwoDeep → a\.helperOneDeep → b\.Backoff → b\.jitter → math/rand\.Float64\)$`

func GenericWorkflow[T any](ctx workflow.Context, xs []T) T { // want GenericWorkflow:`^reaches\(ADK-W002 a\.GenericWorkflow → b\.Pick → math/rand\.Intn; ADK-W003 a\.GenericWorkflow → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
	box := &b.Box[T]{}
	_ = box.Stamp()      // want `\(\(\*b.Box\).Stamp → time.Now\)`
	_ = b.Pick(xs)       // want `\(b.Pick → math/rand.Intn\)`
	return b.Pick[T](xs) // want `\(b.Pick → math/rand.Intn\)`
}

// Generic helpers in this package are summarised too.
func pickLocal[T any](xs []T) T { return xs[rand.Intn(len(xs))] } // want pickLocal:`^reaches\(ADK-W002 a\.pickLocal → math/rand\.Intn\)$`

func UsesLocalGeneric(ctx workflow.Context) int { // want UsesLocalGeneric:`^reaches\(ADK-W002 a\.UsesLocalGeneric → a\.pickLocal → math/rand\.Intn\)$`
	return pickLocal([]int{1, 2}) // want `\(a.pickLocal → math/rand.Intn\)`
}
