// Package workflow is a stub of go.temporal.io/sdk/workflow with the same alias structure.
package workflow

import (
	"time"

	"go.temporal.io/sdk/internal"
)

type (
	// Context is an alias, as in the SDK.
	Context = internal.Context
	// WorkflowRandomStream is an alias, as in the SDK.
	WorkflowRandomStream = internal.WorkflowRandomStream
	// Future is an alias, as in the SDK.
	Future = internal.Future
	// SideEffectOptions configures SideEffectWithOptions.
	SideEffectOptions struct{ Summary string }
	// MutableSideEffectOptions configures MutableSideEffectWithOptions.
	MutableSideEffectOptions struct{ Summary string }
	// QueryHandlerOptions configures SetQueryHandlerWithOptions.
	QueryHandlerOptions struct{ Description string }
)

func Now(ctx Context) time.Time                                          { return time.Time{} }
func Sleep(ctx Context, d time.Duration) error                           { return nil }
func NewTimer(ctx Context, d time.Duration) Future                       { return nil }
func Go(ctx Context, f func(ctx Context))                                {}
func ExecuteActivity(ctx Context, activity any, args ...any) Future      { return nil }
func ExecuteLocalActivity(ctx Context, activity any, args ...any) Future { return nil }
func SetUpdateHandler(ctx Context, name string, handler any) error       { return nil }
func GetRandomStream(ctx Context, name string) WorkflowRandomStream      { return nil }
func SetQueryHandler(ctx Context, queryType string, handler any) error   { return nil }
func SetQueryHandlerWithOptions(ctx Context, queryType string, handler any, options QueryHandlerOptions) error {
	return nil
}
func Await(ctx Context, condition func() bool) error         { return nil }
func WithCancel(parent Context) (ctx Context, cancel func()) { return parent, func() {} }

func SideEffect(ctx Context, f func(ctx Context) any) internal.EncodedValue { return nil }
func SideEffectWithOptions(ctx Context, o SideEffectOptions, f func(ctx Context) any) internal.EncodedValue {
	return nil
}
func MutableSideEffect(ctx Context, id string, f func(ctx Context) any, eq func(a, b any) bool) internal.EncodedValue {
	return nil
}
func MutableSideEffectWithOptions(ctx Context, id string, o MutableSideEffectOptions, f func(ctx Context) any, eq func(a, b any) bool) internal.EncodedValue {
	return nil
}

type (
	// Channel is an alias, as in the SDK.
	Channel = internal.Channel
	// Selector is an alias, as in the SDK.
	Selector = internal.Selector
	// ReceiveChannel is an alias, as in the SDK.
	ReceiveChannel = internal.ReceiveChannel
)

func NewChannel(ctx Context) Channel                                              { return nil }
func NewSelector(ctx Context) Selector                                            { return nil }
func GetLogger(ctx Context) internal.Logger                                       { return nil }
func ExecuteChildWorkflow(ctx Context, childWorkflow any, args ...any) Future     { return nil }
func SignalExternalWorkflow(ctx Context, id, runID, name string, arg any) Future  { return nil }
func UpsertMemo(ctx Context, memo map[string]any) error                           { return nil }
func GetVersion(ctx Context, changeID string, minSupported, maxSupported int) int { return 0 }

const DefaultVersion = -1
