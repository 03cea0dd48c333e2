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
	"google.golang.org/protobuf/proto"
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
	ExternalStorage    converter.ExternalStorage
	// DisableRegistrationAliasing is the workers' setting of the same name.
	DisableRegistrationAliasing bool
	// DisableDeadlockDetection turns off the SDK's 1s deadlock detector, for
	// the payloads benchmark's 1,000-turn replay (see BENCHMARKS.md).
	DisableDeadlockDetection bool
}

// Replay replays h with a new replayer built from opts. It returns the SDK's
// error unchanged. Some malformed histories make the SDK's replayer panic
// (seen in v1.51.0: a nil workflow context unlocked in a defer, and the
// next-task lookup past the last event); the panic is returned as an error
// naming the history as malformed.
func Replay(h *historypb.History, opts ReplayOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("history: the SDK's replayer panicked on this history, which is malformed or truncated: %v", r)
		}
	}()
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		DataConverter:      opts.DataConverter,
		FailureConverter:   opts.FailureConverter,
		ContextPropagators: append([]workflow.ContextPropagator(nil), opts.ContextPropagators...),
		Interceptors:       append([]interceptor.WorkerInterceptor(nil), opts.Interceptors...),
		Plugins:            append([]worker.Plugin(nil), opts.Plugins...),
		ExternalStorage:    opts.ExternalStorage,

		DisableDeadlockDetection:    opts.DisableDeadlockDetection,
		DisableRegistrationAliasing: opts.DisableRegistrationAliasing,
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
	// The SDK's replayer resolves external storage claims in the history it
	// is given, in place: it replays a copy, so the caller's history keeps
	// its claims.
	h = proto.Clone(h).(*historypb.History)
	return replayer.ReplayWorkflowHistoryWithOptions(logger, h, worker.ReplayWorkflowHistoryOptions{OriginalExecution: originalExecution(h)})
}

// originalExecution is the workflow ID and run ID the history was recorded
// under, from its first event (a server since 1.21 writes the workflow ID
// there); zero where the event does not have them, which the SDK replaces
// with its placeholders. Replaying under the recorded ID keeps commands
// that name things after workflow.GetInfo(ctx).WorkflowExecution (child
// workflow IDs, the kit's charge owners) as they were recorded.
func originalExecution(h *historypb.History) workflow.Execution {
	events := h.GetEvents()
	if len(events) == 0 {
		return workflow.Execution{}
	}
	started := events[0].GetWorkflowExecutionStartedEventAttributes()
	return workflow.Execution{ID: started.GetWorkflowId(), RunID: started.GetOriginalExecutionRunId()}
}
