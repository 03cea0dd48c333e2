// Package myprovider is a model SDK the analyzer knows only through -providers.
package myprovider

import "context"

func Complete(ctx context.Context, prompt string) string { return "" }
