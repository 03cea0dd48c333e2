package a

import (
	rand "example.com/myrand"
	"go.temporal.io/sdk/workflow"
)

// ShadowWorkflow uses a package named rand that is not math/rand.
func ShadowWorkflow(ctx workflow.Context) {
	_ = rand.Float64()
	_ = rand.Intn(3)
}

// LocalRandWorkflow has a local variable named rand: the workflow's own stream.
func LocalRandWorkflow(ctx workflow.Context) {
	rand := workflow.GetRandomStream(ctx, "local")
	_ = rand.Uint64()
	buf := make([]byte, 4)
	_, _ = rand.Read(buf)
}
