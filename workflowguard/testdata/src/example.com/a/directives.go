package a

import (
	"math/rand"
	"time"

	"example.com/b"
	"example.com/c"
	"go.temporal.io/sdk/workflow"
)

func SuppressedWorkflow(ctx workflow.Context) { // want SuppressedWorkflow:`^reaches\(ADK-W003 a\.SuppressedWorkflow → time\.Now\)$`
	_ = time.Now() //workflowguard:ignore ADK-W003 only feeds a log line
	//workflowguard:ignore ADK-W002 replay-tested: the draw is discarded
	_ = rand.Float64()
	_ = b.Stamp()  //workflowguard:ignore ADK-W005 reviewed helper
	_ = b.Stamp()  //workflowguard:ignore ADK-W003 suppressed by the underlying rule
	_ = b.Stamp()  //workflowguard:ignore ADK-W001,ADK-W003 a list of rules
	_ = time.Now() /* want `ADK-W003` */ //workflowguard:ignore ADK-W002 names the wrong rule
}

func MalformedWorkflow(ctx workflow.Context) { // want MalformedWorkflow:`^reaches\(ADK-W002 a\.MalformedWorkflow → math/rand\.Float64; ADK-W003 a\.MalformedWorkflow → time\.Now\)$`
	_ = time.Now() /* want `malformed workflowguard directive: has no reason` `ADK-W003` */ //workflowguard:ignore ADK-W003
	/* want `malformed workflowguard directive: names no rule` */ //workflowguard:ignore
	_ = rand.Float64()                                            // want `ADK-W002`
	/* want `malformed workflowguard directive: names unknown rule ADK-W009` */ //workflowguard:ignore ADK-W009 typo
	_ = rand.Float64()                                                          // want `ADK-W002`
}

// DocSuppressedWorkflow reads the clock for logging only.
//
//workflowguard:ignore ADK-W003 timestamps only feed log lines
func DocSuppressedWorkflow(ctx workflow.Context) { // want DocSuppressedWorkflow:`^reaches\(ADK-W002 a\.DocSuppressedWorkflow → math/rand\.Float64\)$`
	_ = time.Now()
	time.Sleep(0)
	_ = rand.Float64() // want `ADK-W002`
}

func CrossPackageChainWorkflow(ctx workflow.Context) { // want CrossPackageChainWorkflow:`^reaches\(ADK-W002 a\.CrossPackageChainWorkflow → c\.Helper → b\.Backoff → b\.jitter → math/rand\.Float64\)$`
	_ = c.Helper() // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(c.Helper → b.Backoff → b.jitter → math/rand.Float64\)`
	_ = c.Calm()
}
