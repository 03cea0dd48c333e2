package history

import (
	"fmt"
	"log/slog"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Workflow is one workflow to register with the replayer.
type Workflow struct {
	Func    any
	Options workflow.RegisterOptions
}

// ReplayOptions configures a replayer; see testsuite.ReplayOptions.
type ReplayOptions struct {
	Workflows          []Workflow
	Interceptors       []interceptor.WorkerInterceptor
	Plugins            []worker.Plugin
	DataConverter      converter.DataConverter
	FailureConverter   converter.FailureConverter
	ContextPropagators []workflow.ContextPropagator
	Logger             sdklog.Logger
}

// Replay replays h with a new replayer built from opts. It returns the SDK's
// error unchanged.
func Replay(h *historypb.History, opts ReplayOptions) error {
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		DataConverter:      opts.DataConverter,
		FailureConverter:   opts.FailureConverter,
		ContextPropagators: append([]workflow.ContextPropagator(nil), opts.ContextPropagators...),
		Interceptors:       append([]interceptor.WorkerInterceptor(nil), opts.Interceptors...),
		Plugins:            append([]worker.Plugin(nil), opts.Plugins...),
	})
	if err != nil {
		return fmt.Errorf("history: creating the replayer: %w", err)
	}
	for _, w := range opts.Workflows {
		replayer.RegisterWorkflowWithOptions(w.Func, w.Options)
	}
	logger := opts.Logger
	if logger == nil {
		// The SDK's default logger prints every replayed task, and a failed
		// replay is already the returned error.
		logger = sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	}
	return replayer.ReplayWorkflowHistory(logger, h)
}
