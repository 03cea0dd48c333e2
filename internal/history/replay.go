package history

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	commonpb "go.temporal.io/api/common/v1"
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
	replayer, err := worker.NewWorkflowReplayerWithOptions(replayerOptions(opts))
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
	// is given, in place and all at once, before it replays: it replays a
	// copy, so the caller's history keeps its claims, and the copy leaves
	// out the payloads a replay never reads (Unread), so that it neither
	// fetches nor holds them.
	h = proto.Clone(h).(*historypb.History)
	Unread(h)
	return replayer.ReplayWorkflowHistoryWithOptions(logger, h, worker.ReplayWorkflowHistoryOptions{OriginalExecution: originalExecution(h)})
}

// replayerOptions are the SDK replayer's options for opts: the caller's,
// with the data converter a replay needs (ReplayConverter).
func replayerOptions(opts ReplayOptions) worker.WorkflowReplayerOptions {
	return worker.WorkflowReplayerOptions{
		DataConverter:      ReplayConverter(opts.DataConverter),
		FailureConverter:   opts.FailureConverter,
		ContextPropagators: append([]workflow.ContextPropagator(nil), opts.ContextPropagators...),
		Interceptors:       append([]interceptor.WorkerInterceptor(nil), opts.Interceptors...),
		Plugins:            append([]worker.Plugin(nil), opts.Plugins...),
		ExternalStorage:    opts.ExternalStorage,

		DisableRegistrationAliasing: opts.DisableRegistrationAliasing,
	}
}

// OmittedEncoding is the metadata encoding of a payload the workflow
// encoded during a replay and ReplayConverter left out.
const OmittedEncoding = "temporaladk/omitted-in-replay"

// OmitAbove is the size above which ReplayConverter leaves a payload the
// workflow encodes out of the replay.
const OmitAbove = 64 << 10

// ReplayConverter is dc (nil: the SDK's default) for a replay: what the
// workflow encodes is encoded by dc, and a payload of more than OmitAbove
// bytes is then replaced by a stand-in that names its size. The SDK's
// replayer (v1.51.0) replays a whole history as one workflow task and keeps
// every command the workflow code makes until its end, to match them
// against the history's events by type and ID, never by input
// (isCommandMatchEvent); an agent that schedules its whole, growing
// conversation every turn would have the replay hold n² bytes over n
// turns, where the live worker, one task at a time, holds the conversation
// once. Nothing a replay decides reads those inputs; a workflow that
// decodes, during a replay, a payload it encoded itself (a large
// MutableSideEffect value, a memo it upserted) gets an error naming the
// stand-in rather than a wrong value.
func ReplayConverter(dc converter.DataConverter) converter.DataConverter {
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	return replayConverter{dc}
}

// replayConverter is ReplayConverter's: dc, with the payloads it encodes
// above OmitAbove left out. It passes the workflow's context on to dc, so
// that a context-aware converter (a key per workflow, the store's pause of
// the deadlock detector) works as it does on the worker.
type replayConverter struct{ dc converter.DataConverter }

func (c replayConverter) ToPayload(value any) (*commonpb.Payload, error) {
	p, err := c.dc.ToPayload(value)
	if err != nil {
		return nil, err
	}
	return omit(p), nil
}

func (c replayConverter) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	ps, err := c.dc.ToPayloads(values...)
	if err != nil || ps == nil {
		return ps, err
	}
	out := &commonpb.Payloads{Payloads: make([]*commonpb.Payload, len(ps.GetPayloads()))}
	for i, p := range ps.GetPayloads() {
		out.Payloads[i] = omit(p)
	}
	return out, nil
}

func (c replayConverter) FromPayload(p *commonpb.Payload, valuePtr any) error {
	if err := omitted(p); err != nil {
		return err
	}
	return c.dc.FromPayload(p, valuePtr)
}

func (c replayConverter) FromPayloads(ps *commonpb.Payloads, valuePtrs ...any) error {
	for _, p := range ps.GetPayloads() {
		if err := omitted(p); err != nil {
			return err
		}
	}
	return c.dc.FromPayloads(ps, valuePtrs...)
}

func (c replayConverter) ToString(p *commonpb.Payload) string { return c.dc.ToString(p) }

func (c replayConverter) ToStrings(ps *commonpb.Payloads) []string { return c.dc.ToStrings(ps) }

// WithWorkflowContext is dc's for ctx, when dc is context-aware.
func (c replayConverter) WithWorkflowContext(ctx workflow.Context) converter.DataConverter {
	if aware, ok := c.dc.(converter.ContextAware); ok {
		return replayConverter{aware.WithWorkflowContext(ctx)}
	}
	return c
}

// WithContext is dc's for ctx, when dc is context-aware.
func (c replayConverter) WithContext(ctx context.Context) converter.DataConverter {
	if aware, ok := c.dc.(converter.ContextAware); ok {
		return replayConverter{aware.WithContext(ctx)}
	}
	return c
}

// omit is p, or its stand-in when p is over OmitAbove bytes.
func omit(p *commonpb.Payload) *commonpb.Payload {
	n := proto.Size(p)
	if n <= OmitAbove {
		return p
	}
	return &commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(OmittedEncoding)},
		Data:     []byte(strconv.Itoa(n)),
	}
}

// omitted is the error of decoding p when p is a stand-in omit made.
func omitted(p *commonpb.Payload) error {
	if string(p.GetMetadata()[converter.MetadataEncoding]) != OmittedEncoding {
		return nil
	}
	return fmt.Errorf("history: the workflow decoded, during a replay, a payload of %s bytes it encoded itself; a replay leaves each payload of more than %d bytes the workflow encodes out of the commands it keeps (ReplayConverter), since none is compared with the history", p.GetData(), OmitAbove)
}

// Unread clears, in h, the payloads a replay never reads: the inputs of
// what the workflow scheduled or started (an activity's, a child
// workflow's, a signal's to another workflow, the next run's on
// continue-as-new). Replaying, the workflow code makes those inputs again
// and the SDK matches each command to its event by type and ID, never by
// input (isCommandMatchEvent in v1.51.0), so nothing a replay decides
// reads them. An agent that re-sends its growing conversation to the model
// every turn has its whole conversation in every scheduled activity's
// input: n² bytes over n turns, which the SDK's replayer would otherwise
// fetch from the payload store and hold for the whole replay. What the
// workflow does read (its start input, results, failures, signals, Update
// arguments, markers) stays.
func Unread(h *historypb.History) {
	for _, e := range h.GetEvents() {
		switch {
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			e.GetActivityTaskScheduledEventAttributes().Input = nil
		case e.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
			e.GetStartChildWorkflowExecutionInitiatedEventAttributes().Input = nil
		case e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes() != nil:
			e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().Input = nil
		case e.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
			e.GetWorkflowExecutionContinuedAsNewEventAttributes().Input = nil
		}
	}
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
