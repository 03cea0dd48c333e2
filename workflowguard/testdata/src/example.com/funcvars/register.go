package funcvars

import (
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Tables filled through a registration function: the closure handed to it is an element of the
// table it stores its parameter into.
var commands = map[string]func() string{} // want commands:`^reaches\(ADK-W003 funcvars\.commands → time\.Now\)$`

var labels = map[string]func(string) string{}

// RegisterCommand stores f under name.
func RegisterCommand(name string, f func() string) { commands[name] = f } // want RegisterCommand:`reaches\(ADK-W007`

// RegisterLabel stores f under name.
func RegisterLabel(name string, f func(string) string) { labels[name] = f } // want RegisterLabel:`reaches\(ADK-W007`

func init() { // want init:`reaches\(ADK-W007`
	RegisterCommand("now", func() string { return time.Now().Format(time.RFC3339) })
	RegisterLabel("upper", strings.ToUpper)
	RegisterLabel("trim", func(s string) string { return strings.TrimSpace(s) })
}

func CommandWorkflow(ctx workflow.Context, name string) string { // want CommandWorkflow:`reaches`
	out := commands[name]() // want `^ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(funcvars.commands → time.Now\)`

	// Safe: a table of pure functions filled the same way.
	return labels["upper"](out)
}
