// Package llm is a model provider SDK the analyzer's built-in list does not know.
package llm

import "context"

func Complete(ctx context.Context, prompt string) string { return prompt }
