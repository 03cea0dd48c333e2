// Package llmflows calls the provider of the providers setting from a workflow.
package llmflows

import (
	"context"

	"example.com/llm"
	"go.temporal.io/sdk/workflow"
)

func Ask(ctx workflow.Context) string { // want Ask:`^reaches\(ADK-W001 llmflows\.Ask → example\.com/llm\.Complete\)$`
	return llm.Complete(context.Background(), "hi") // want `^ADK-W001 model provider call on the workflow path \(example\.com/llm\.Complete\)`
}
