// Package all is reported in full by the plugin without settings: every rule, in any package.
package all

import (
	"math/rand/v2"
	"time"

	"example.com/helpers"
	"go.temporal.io/sdk/workflow"
)

func Flow(ctx workflow.Context) int64 { // want Flow:`^reaches\(ADK-W002 all\.Flow → math/rand/v2\.Float64; ADK-W003 all\.Flow → time\.Now\)$`
	_ = time.Now()          // want `^ADK-W003 wall clock on the workflow path \(time\.Now\)`
	_ = rand.Float64()      // want `^ADK-W002 random draw on the workflow path \(math/rand/v2\.Float64\)`
	return helpers.Jitter() // want `^ADK-W005 helper reaches a random draw \(ADK-W002\) on the workflow path \(helpers\.Jitter → math/rand/v2\.Int64N\)`
}
