package flagged

import (
	"context"

	"example.com/myprovider"
	"go.temporal.io/sdk/workflow"
)

func Workflow(ctx workflow.Context) { // want Workflow:`^reaches\(ADK-W001 flagged\.Workflow → example\.com/myprovider\.Complete\)$`
	_ = myprovider.Complete(context.Background(), "hi") // want `ADK-W001 model provider call on the workflow path \(example.com/myprovider.Complete\)`
}
