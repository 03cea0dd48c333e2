// Package workflow is a stub of go.temporal.io/sdk/workflow: the analyzer recognises a workflow by
// its first parameter of this package's Context type.
package workflow

// Context stands in for the SDK's workflow context.
type Context interface{ Done() }
