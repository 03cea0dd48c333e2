package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/observe"
)

// MetricDropped counts the events an Observer did not publish, with tag
// reason: "full" (its buffer was full: the hub is slower than the calls)
// or "hub" (the hub refused or failed).
const MetricDropped = "temporaladk_live_dropped"

// DefaultBuffer is the events an Observer holds for its hub when Options
// leaves Buffer unset.
const DefaultBuffer = 1024

// Origin is the run an event is of, for Options.Stream.
type Origin struct {
	// WorkflowID and RunID name the run.
	WorkflowID, RunID string
	// RootWorkflowID is the root of the run's family when the run is a
	// child, "" otherwise.
	RootWorkflowID string
}

// Options configure an Observer.
type Options struct {
	// Stream names the stream a run's events go to. If not set, the root
	// workflow ID of the run's family, else its workflow ID: a
	// continue-as-new chain keeps its workflow ID, and its children are in
	// it too. A Stream that returns "" leaves that default.
	Stream func(Origin) string
	// Buffer is how many events wait for the hub at most; an event beyond
	// it is dropped and counted (MetricDropped), so that a slow or down
	// hub never slows a call. If not set, DefaultBuffer.
	Buffer int
	// MetricsHandler counts MetricDropped. If not set, nothing is counted
	// but Dropped.
	MetricsHandler client.MetricsHandler
	// Logger says once that events are being dropped, and why. If not set,
	// slog's default logger.
	Logger log.Logger
}

// Observer is an observe.Observer that publishes the kit's events to a
// Hub: the calls planned and ended, each attempt's reset and text deltas,
// approvals asked and decided, charges. Give it to the kit in
// interceptors.Options.Observer, and Close it when the worker stops.
type Observer struct {
	observe.Base
	hub     Hub
	opts    Options
	queue   chan Event
	done    chan struct{}
	closing sync.Once
	closed  atomic.Bool
	dropped atomic.Int64
	warned  atomic.Bool
}

// NewObserver returns an Observer publishing to hub, and starts the
// goroutine that does it. A nil hub or a negative Buffer is an error.
func NewObserver(hub Hub, opts Options) (*Observer, error) {
	if hub == nil {
		return nil, errors.New("live: NewObserver: hub is nil")
	}
	if opts.Buffer < 0 {
		return nil, fmt.Errorf("live: NewObserver: Options.Buffer is %d: it must not be negative (0 is the default, %d)", opts.Buffer, DefaultBuffer)
	}
	if opts.Buffer == 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.Logger == nil {
		opts.Logger = log.NewStructuredLogger(slog.Default())
	}
	o := &Observer{hub: hub, opts: opts, queue: make(chan Event, opts.Buffer), done: make(chan struct{})}
	go o.run()
	return o, nil
}

// run publishes what is queued, in order, until Close.
func (o *Observer) run() {
	defer close(o.done)
	for e := range o.queue {
		if err := o.hub.Publish(context.Background(), e); err != nil {
			o.drop("hub", err)
		}
	}
}

// Close publishes what is queued and stops; events after it are dropped.
func (o *Observer) Close() error {
	o.closing.Do(func() {
		o.closed.Store(true)
		close(o.queue)
	})
	<-o.done
	return nil
}

// Dropped is how many events the Observer did not publish.
func (o *Observer) Dropped() int64 { return o.dropped.Load() }

// publish queues e without waiting. The workflow-side callbacks call it
// from workflow code, outside replay only: its select is a non-blocking
// send whose outcome (queued, or dropped and counted) never returns to the
// workflow, so no decision of the workflow depends on it.
//
//workflowguard:ignore ADK-W006 a non-blocking send to the stream's queue; nothing of it returns to the workflow, and the kit calls it outside replay only
func (o *Observer) publish(e Event) {
	if o.closed.Load() {
		o.drop("closed", nil)
		return
	}
	defer func() {
		// A Close racing this send: the event is dropped, never a panic in
		// the caller's call.
		if recover() != nil {
			o.drop("closed", nil)
		}
	}()
	select {
	case o.queue <- e:
	default:
		o.drop("full", nil)
	}
}

// drop counts an event not published, and says so once.
func (o *Observer) drop(reason string, err error) {
	o.dropped.Add(1)
	if o.opts.MetricsHandler != nil {
		o.opts.MetricsHandler.WithTags(map[string]string{"reason": reason}).Counter(MetricDropped).Inc(1)
	}
	if o.warned.CompareAndSwap(false, true) {
		o.opts.Logger.Warn("temporaladk: live stream events are being dropped (best effort: the calls go on, and history holds their results); counted in "+MetricDropped+", said once",
			"reason", reason, "error", err)
	}
}

// stream names the stream of o.
func (o *Observer) stream(origin Origin) string {
	if o.opts.Stream != nil {
		if s := o.opts.Stream(origin); s != "" {
			return s
		}
	}
	if origin.RootWorkflowID != "" {
		return origin.RootWorkflowID
	}
	return origin.WorkflowID
}

// attemptEvent is an event of attempt a.
func (o *Observer) attemptEvent(kind Kind, a observe.Attempt) Event {
	return Event{Stream: o.stream(Origin{WorkflowID: a.WorkflowID, RunID: a.RunID, RootWorkflowID: a.RootWorkflowID}),
		Kind: kind, WorkflowID: a.WorkflowID, RunID: a.RunID, Call: a.Call, Local: a.Local, ActivityID: a.ActivityID,
		ActivityType: a.ActivityType, Class: a.Class, Attempt: a.Number}
}

// workflowEvent is an event of the run ctx is of.
func (o *Observer) workflowEvent(ctx workflow.Context, kind Kind) Event {
	info := workflow.GetInfo(ctx)
	origin := Origin{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID}
	if root := info.RootWorkflowExecution; root != nil && root.ID != origin.WorkflowID {
		origin.RootWorkflowID = root.ID
	}
	return Event{Stream: o.stream(origin), Kind: kind, WorkflowID: origin.WorkflowID, RunID: origin.RunID}
}

// AttemptStarted publishes the attempt's Reset. An attempt without the
// kit's header (scheduled by a worker without the kit) has no call number
// and publishes nothing.
func (o *Observer) AttemptStarted(_ context.Context, a observe.Attempt) {
	if !a.Header || a.Call < 1 {
		return
	}
	e := o.attemptEvent(Reset, a)
	e.ID = ResetID(a.RunID, a.Local, a.Call, a.Number)
	o.publish(e)
}

// TextDelta publishes the delta.
func (o *Observer) TextDelta(_ context.Context, a observe.Attempt, d observe.Delta) {
	if !a.Header || a.Call < 1 {
		return
	}
	e := o.attemptEvent(Delta, a)
	e.ID, e.Seq, e.TextKind, e.Text = DeltaID(a.RunID, a.Local, a.Call, a.Number, d.Seq), d.Seq, d.Kind, d.Text
	o.publish(e)
}

// CallPlanned publishes the call's Planned.
func (o *Observer) CallPlanned(ctx workflow.Context, c observe.Call) {
	e := o.workflowEvent(ctx, Planned)
	e.Call, e.Local, e.ActivityType, e.Class = c.Seq, c.Local, c.ActivityType, c.Class
	e.ID = PlannedID(e.RunID, c.Local, c.Seq)
	o.publish(e)
}

// CallEnded publishes the call's Final, with the result history recorded.
func (o *Observer) CallEnded(ctx workflow.Context, c observe.Call, end observe.CallEnd) {
	e := o.workflowEvent(ctx, Final)
	e.Call, e.Local, e.ActivityType, e.Class = c.Seq, c.Local, c.ActivityType, c.Class
	e.ID = FinalID(e.RunID, c.Local, c.Seq)
	e.Outcome, e.ErrorType = end.Outcome, end.ErrorType
	if p := end.Result.Payload(); p != nil && string(p.GetMetadata()[converter.MetadataEncoding]) == converter.MetadataEncodingJSON && json.Valid(p.GetData()) {
		e.Output = append(json.RawMessage(nil), p.GetData()...)
	}
	o.publish(e)
}

// ApprovalAsked publishes the wait, with the Approval as Data.
func (o *Observer) ApprovalAsked(ctx workflow.Context, a observe.Approval) {
	e := o.workflowEvent(ctx, ApprovalAsked)
	e.ID, e.ActivityType, e.Class = e.RunID+"/"+a.Call+"/asked", a.ActivityType, a.Class
	e.Data = marshal(approvalData{Approval: a.Call, Status: "waiting", Summary: a.Summary, Digest: a.Digest, Required: a.Required, Principals: a.Principals, Deadline: a.Deadline.UTC().Format(timeFormat)})
	o.publish(e)
}

// ApprovalDecided publishes how the wait ended, with the Decision as Data.
func (o *Observer) ApprovalDecided(ctx workflow.Context, a observe.Approval, d observe.Decision) {
	e := o.workflowEvent(ctx, ApprovalDecided)
	e.ID, e.ActivityType, e.Class = e.RunID+"/"+a.Call+"/decided", a.ActivityType, a.Class
	e.Data = marshal(approvalData{Approval: a.Call, Status: string(d.Outcome), Summary: a.Summary, Digest: a.Digest, Required: a.Required, Principals: a.Principals,
		By: d.By, Reason: d.Reason, Approvals: d.Approvals})
	o.publish(e)
}

// Charged publishes the charge, with what the budget has left as Data.
func (o *Observer) Charged(ctx workflow.Context, c observe.Charge) {
	e := o.workflowEvent(ctx, Charged)
	e.ID, e.ActivityType, e.Class, e.Attempt = e.RunID+"/"+c.Call+"/charged/"+strconv.Itoa(c.Attempt), c.ActivityType, c.Class, c.Attempt
	e.Data = marshal(chargeData{Call: c.Call, Attempt: c.Attempt, Remaining: c.Remaining})
	o.publish(e)
}

const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// approvalData is an approval event's Data.
type approvalData struct {
	Approval   string   `json:"approval"`
	Status     string   `json:"status"`
	Summary    string   `json:"summary,omitempty"`
	Digest     string   `json:"digest,omitempty"`
	Required   int      `json:"required,omitempty"`
	Principals []string `json:"principals,omitempty"`
	Deadline   string   `json:"deadline,omitempty"`
	By         string   `json:"by,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Approvals  []string `json:"approvals,omitempty"`
}

// chargeData is a Charged event's Data.
type chargeData struct {
	Call      string `json:"call"`
	Attempt   int    `json:"attempt"`
	Remaining *int   `json:"remaining,omitempty"`
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
