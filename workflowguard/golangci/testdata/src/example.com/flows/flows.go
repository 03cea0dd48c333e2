// Package flows is a workflow package: the chosen rules (ADK-W002, ADK-W005) are reported, the
// clock read (ADK-W003) is not, and a malformed directive is, whatever the rules.
package flows

import (
	"math/rand/v2"
	"time"

	"example.com/helpers"
	"go.temporal.io/sdk/workflow"
)

func Flow(ctx workflow.Context) int64 { // want Flow:`^reaches\(ADK-W002 flows\.Flow → math/rand/v2\.Float64; ADK-W003 flows\.Flow → time\.Now\)$`
	_ = time.Now()
	_ = 0                   /* want `^malformed workflowguard directive` */ //workflowguard:ignore ADK-W003
	_ = rand.Float64()      // want `^ADK-W002 random draw on the workflow path \(math/rand/v2\.Float64\)`
	return helpers.Jitter() // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(helpers\.Jitter → math/rand/v2\.Int64N\)`
}
