// Package internal is a stub of go.temporal.io/sdk/internal: the real workflow.Context is an
// alias of internal.Context, which the analyzer must see through.
package internal

import (
	"io"
	"math/rand/v2"
	"time"
)

// Context mimics the workflow context interface.
type Context interface {
	Deadline() (time.Time, bool)
	Err() error
	Value(key any) any
}

// WorkflowRandomStream is a deterministic pseudorandom source.
type WorkflowRandomStream interface {
	rand.Source
	io.Reader
}

// EncodedValue is a recorded value.
type EncodedValue interface{ Get(valuePtr any) error }

// Future is a pending result.
type Future interface {
	Get(ctx Context, valuePtr any) error
}

// SendChannel is the sending half of a workflow channel.
type SendChannel interface {
	Send(ctx Context, v any)
	SendAsync(v any) bool
}

// ReceiveChannel is the receiving half of a workflow channel.
type ReceiveChannel interface {
	Receive(ctx Context, valuePtr any) bool
}

// Channel is a deterministic channel.
type Channel interface {
	SendChannel
	ReceiveChannel
}

// Selector is a deterministic select.
type Selector interface {
	AddReceive(c ReceiveChannel, f func(c ReceiveChannel, more bool)) Selector
	AddFuture(future Future, f func(f Future)) Selector
	Select(ctx Context)
}

// Logger mimics the SDK logger.
type Logger interface {
	Info(msg string, keyvals ...any)
}
