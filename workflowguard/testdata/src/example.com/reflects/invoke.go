package reflects

import (
	"math/rand"
	"reflect"
	"strings"

	"go.temporal.io/sdk/workflow"
)

// invoke calls a tool kept as any through reflection, as tool dispatchers do: what its callers
// hand it is called.
func invoke(tool any, args ...any) []reflect.Value {
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	return reflect.ValueOf(tool).Call(in)
}

// tools is a registry of tools kept as any, whose entries InvokeWorkflow calls through reflection.
var tools = map[string]any{ // want tools:`^reaches\(ADK-W002 reflects\.tools → math/rand\.Intn\)$`
	"roll":  rand.Intn,
	"upper": strings.ToUpper,
}

// activities is a registry handed to ExecuteActivity, never called by the workflow.
var activities = map[string]any{"roll": rand.Intn}

// describe only reads the type of what it is handed.
func describe(tool any) string { return reflect.ValueOf(tool).Type().String() }

func InvokeWorkflow(ctx workflow.Context) string { // want InvokeWorkflow:`reaches`
	out := invoke(rand.Intn, 6) // want `^ADK-W002 random draw on the workflow path \(math/rand.Intn, taken as a function value\)`
	roll := rand.Int63n         // want `\(math/rand.Int63n, taken as a function value\)`
	_ = invoke(roll, int64(100))
	_ = out
	_ = reflect.ValueOf(tools["roll"]).Call(nil) // want `\(reflects.tools → math/rand.Intn, taken as a function value\)`

	// Safe: a pure function invoked, a draw handed to a function that only inspects it, arguments
	// of an invoker that are values.
	_ = invoke(strings.ToUpper, "x")
	_ = invoke(strings.Repeat, "ab", 3)
	_ = workflow.ExecuteActivity(ctx, activities["roll"], 6)
	return describe(rand.Intn)
}
