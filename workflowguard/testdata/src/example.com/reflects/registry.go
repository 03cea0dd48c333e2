package reflects

import (
	"math/rand"
	"reflect"
	"strings"

	"go.temporal.io/sdk/workflow"
)

// Tool is a registry entry whose function is kept as any and called through reflection.
type Tool struct {
	Name string
	Fn   any // want Fn:`^reaches\(ADK-W002 \(reflects.Tool\).Fn → math/rand.Intn\)$`
}

// Activity is an entry whose function is handed to ExecuteActivity, never called here.
type Activity struct {
	Name string
	Fn   any
}

var toolbox = []Tool{{Name: "roll", Fn: rand.Intn}, {Name: "upper", Fn: strings.ToUpper}}

var activityList = []Activity{{Name: "roll", Fn: rand.Intn}}

func ToolboxWorkflow(ctx workflow.Context) error { // want ToolboxWorkflow:`reaches`
	for _, t := range toolbox {
		_ = reflect.ValueOf(t.Fn).Call(nil) // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(\(reflects.Tool\).Fn → math/rand.Intn, taken as a function value\)`
	}

	// Safe: the entries handed to activities, and a field's type read without a call.
	for _, a := range activityList {
		_ = workflow.ExecuteActivity(ctx, a.Fn)
		_ = reflect.ValueOf(a.Fn).Kind()
	}
	return nil
}
