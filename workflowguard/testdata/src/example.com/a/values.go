package a

import (
	"math/rand"
	"time"

	"example.com/b"
	"go.temporal.io/sdk/workflow"
)

func FunctionValueWorkflow(ctx workflow.Context) { // want FunctionValueWorkflow:`^reaches\(ADK-W002 a\.FunctionValueWorkflow → math/rand\.Float64; ADK-W003 a\.FunctionValueWorkflow → time\.Now\)$`
	f := rand.Float64 // want `ADK-W002 random draw on the workflow path \(math/rand.Float64, taken as a function value\)`
	_ = f()
	var now func() time.Time = time.Now // want `\(time.Now, taken as a function value\)`
	_ = now()
	g := f
	_ = g()
	nap := b.Sleeper{}.Nap // want `ADK-W005 .*\(\(b.Sleeper\).Nap → time.Sleep, taken as a function value\)`
	nap()
	apply(b.Stamp)              // want `\(b.Stamp → time.Now, taken as a function value\)`
	var anything any = time.Now // stored in an interface: only reflection could call it
	_ = anything
	_ = time.Now // discarded, never called
}

func MethodValueWorkflow(ctx workflow.Context) { // want MethodValueWorkflow:`^reaches\(ADK-W002 a\.MethodValueWorkflow → \(\*math/rand\.Rand\)\.Intn on a source seeded from time\.Now; ADK-W003 a\.MethodValueWorkflow → time\.Now\)$`
	r := rand.New(rand.NewSource(time.Now().UnixNano())) // want `time.Now`
	draw := r.Intn                                       // want `\(\(\*math/rand.Rand\).Intn on a source seeded from time.Now, taken as a function value\)`
	_ = draw(3)
}

func apply(f func() time.Time) time.Time { return f() }

func ClosureWorkflow(ctx workflow.Context) { // want ClosureWorkflow:`^reaches\(ADK-W002 a\.ClosureWorkflow → math/rand\.Float64; ADK-W003 a\.ClosureWorkflow → time\.Sleep\)$`
	jitter := func() float64 {
		return rand.Float64() // want `math/rand.Float64`
	}
	_ = jitter()
	func() {
		time.Sleep(time.Millisecond) // want `time.Sleep`
	}()
	defer func() {
		_ = time.Now() // want `time.Now`
	}()
	workflow.Go(ctx, func(ctx workflow.Context) {
		_ = time.Now() // want `time.Now`
	})
	_ = workflow.SetUpdateHandler(ctx, "update", func(ctx workflow.Context, n int) error {
		time.Sleep(time.Second) // want `time.Sleep`
		return nil
	})
	unused := func() { _ = rand.Float64() }
	_ = workflow.ExecuteActivity(ctx, unused) // stored as any: an activity, not run here
}

// LiteralWorkflow is a workflow declared as a package-level function literal.
var LiteralWorkflow = func(ctx workflow.Context) error { // want LiteralWorkflow:`^reaches\(ADK-W003 a\.LiteralWorkflow → time\.Now\)$`
	_ = time.Now() // want `time.Now`
	return nil
}

// Helpers that are not workflows, and closures outside workflows, report nothing themselves.
func notAWorkflow() { // want notAWorkflow:`^reaches\(ADK-W002 a\.notAWorkflow → math/rand\.Float64; ADK-W003 a\.notAWorkflow → time\.Now\)$`
	_ = time.Now()
	func() { _ = rand.Float64() }()
}

// A workflow registered inline from ordinary code is still a workflow.
func register(reg func(any)) {
	reg(func(ctx workflow.Context) error {
		_ = rand.Float64() // want `math/rand.Float64`
		return nil
	})
}
