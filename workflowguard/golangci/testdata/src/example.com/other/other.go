// Package other is in no workflow package pattern: none of its findings is reported.
package other

import (
	"math/rand/v2"
	"time"

	"go.temporal.io/sdk/workflow"
)

func Other(ctx workflow.Context) float64 { // want Other:`^reaches\(ADK-W002 other\.Other → math/rand/v2\.Float64; ADK-W003 other\.Other → time\.Now\)$`
	_ = time.Now()
	return rand.Float64()
}
