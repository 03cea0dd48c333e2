package a

import (
	"time"

	"example.com/b"
	other "example.com/notsdk/workflow"
	"go.temporal.io/sdk/workflow"
)

// C aliases the workflow context, and C2 aliases the alias.
type (
	C  = workflow.Context
	C2 = C
)

func AliasWorkflow(ctx C) { // want AliasWorkflow:`^reaches\(ADK-W003 a\.AliasWorkflow → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
}

func DoubleAliasWorkflow(ctx C2) { // want DoubleAliasWorkflow:`^reaches\(ADK-W003 a\.DoubleAliasWorkflow → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
}

func ForeignAliasWorkflow(ctx b.Ctx) { // want ForeignAliasWorkflow:`^reaches\(ADK-W003 a\.ForeignAliasWorkflow → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
}

type Workflows struct{}

// Method reports too: the receiver is not the first parameter.
func (Workflows) Method(ctx workflow.Context) { // want Method:`^reaches\(ADK-W003 \(a\.Workflows\)\.Method → time\.Now\)$`
	_ = time.Now() // want `ADK-W003`
}

// NotTemporal takes a Context from a package that merely has the same name.
func NotTemporal(ctx other.Context) { // want NotTemporal:`^reaches\(ADK-W003 a\.NotTemporal → time\.Now\)$`
	_ = time.Now()
}

// SecondParam has the workflow context second: not a workflow.
func SecondParam(n int, ctx workflow.Context) { // want SecondParam:`^reaches\(ADK-W003 a\.SecondParam → time\.Now\)$`
	_ = time.Now()
}
