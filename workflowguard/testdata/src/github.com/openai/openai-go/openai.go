// Package openai is a stub of github.com/openai/openai-go.
package openai

import "context"

type Client struct{}

func NewClient() Client { return Client{} }

// NewChatCompletion makes a request: it takes a context.
func (Client) NewChatCompletion(ctx context.Context, prompt string) (string, error) { return "", nil }

// String is a pure value helper: no context, not a model call.
func String(s string) *string { return &s }
