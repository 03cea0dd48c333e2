package interceptors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/temporaladk/adk-go/observe"
)

// IdentityMark ends the identity of every worker the kit's plugin
// configures (worker.Options.Identity, as the server records it on each
// poll and each task the worker completes), so that a worker with the kit
// can tell, from the pollers of its task queue, the workers without it.
const IdentityMark = "+temporaladk"

// DefaultFleetInterval is how often a worker with FleetOptions reads the
// pollers of its task queue when FleetOptions.Interval is not set.
const DefaultFleetInterval = time.Minute

// FleetOptions say how a worker with the kit watches its task queue for
// workers without the kit. Client, Logger and MetricsHandler are set
// together, or none of them: without them the kit does not read its
// queue's pollers, and reports the calls it meets in a replayed history
// that were scheduled without its approval gate to the process's default
// slog logger, without a metric.
type FleetOptions struct {
	// Client reads the pollers of each task queue a worker with the kit
	// serves (DescribeTaskQueue, for workflow and activity tasks), when
	// the worker starts and every Interval until it stops: a
	// client.Client, normally the one the worker is built with. If not
	// set, the kit does not watch its queues.
	Client interface {
		DescribeTaskQueue(ctx context.Context, taskQueue string, taskQueueType enumspb.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error)
	}
	// Logger gets an Error line for each read that finds pollers whose
	// identity lacks IdentityMark, naming each identity and the queue, and
	// for each call of a tool declared RequiresApproval that a replayed
	// history shows scheduled without the kit's gate (slog.Default gets
	// those when Fleet is not set). Required with Client.
	Logger log.Logger
	// MetricsHandler records observe.MetricPlainPollers and
	// observe.MetricUngatedCalls. Required with Client
	// (client.MetricsNopHandler records nothing).
	MetricsHandler client.MetricsHandler
	// Interval is the time between two reads of a queue's pollers. If not
	// set, DefaultFleetInterval; negative is an error.
	Interval time.Duration
}

// validateFleet checks f: all of Client, Logger and MetricsHandler, or none
// of them and no Interval.
func validateFleet(f FleetOptions) error {
	set := map[string]bool{"Client": f.Client != nil && !nilPointer(f.Client), "Logger": f.Logger != nil && !nilPointer(f.Logger),
		"MetricsHandler": f.MetricsHandler != nil && !nilPointer(f.MetricsHandler)}
	if f.Interval < 0 {
		return fmt.Errorf("interceptors: Options.Fleet.Interval is %v: it must not be negative (0 reads every %v)", f.Interval, DefaultFleetInterval)
	}
	if !set["Client"] && !set["Logger"] && !set["MetricsHandler"] {
		if f.Interval != 0 {
			return errors.New("interceptors: Options.Fleet.Interval is set but Options.Fleet.Client is not: give the worker's client, its Logger and its MetricsHandler, or leave Fleet unset")
		}
		return nil
	}
	for _, name := range []string{"Client", "Logger", "MetricsHandler"} {
		if !set[name] {
			return fmt.Errorf("interceptors: Options.Fleet.%s is not set: Fleet needs Client, Logger and MetricsHandler together (the kit reports workers without it in the log and the metrics; client.MetricsNopHandler for no metrics)", name)
		}
	}
	return nil
}

// markIdentity is identity with IdentityMark at its end, once. An empty
// identity becomes the SDK's default client identity ("pid@host@") marked.
func markIdentity(identity string) string {
	if strings.HasSuffix(identity, IdentityMark) {
		return identity
	}
	if identity == "" {
		host, err := os.Hostname()
		if err != nil {
			host = "Unknown"
		}
		identity = fmt.Sprintf("%d@%s@", os.Getpid(), host)
	}
	return identity + IdentityMark
}

// maxReportedPollers bounds the identities one queue's report keeps; the
// count says how many there were.
const maxReportedPollers = 16

// describeQueueTimeout bounds each DescribeTaskQueue of a fleet read.
const describeQueueTimeout = 10 * time.Second

// fleet is what the kit knows of the workers it runs on and the pollers of
// their queues. Its maps hold an entry per worker configured and not
// stopped, and per queue such a worker serves.
type fleet struct {
	opts FleetOptions

	mu sync.Mutex
	// workers are the workers the plugin configured, by instance key.
	workers map[string]*kitWorker
	// plain is, by task queue, the last read's pollers without the mark.
	plain map[string]plainPollers
	// ungated holds the calls reported as scheduled without the gate
	// (run ID and activity ID), so that a run replayed again is not
	// reported again; cleared when full.
	ungated map[string]bool
}

// maxUngatedReported bounds fleet.ungated.
const maxUngatedReported = 4096

// kitWorker is one worker the plugin configured.
type kitWorker struct {
	queue string
	// refused is why the worker must not start (two kits on it).
	refused error
	// stop ends its watch; done is closed when the watch has ended.
	stop context.CancelFunc
	done chan struct{}
}

// plainPollers is what one read found on a queue: the identities without
// the mark (at most maxReportedPollers), how many there were, and when.
type plainPollers struct {
	identities []string
	count      int
	at         time.Time
}

func newFleet(opts FleetOptions) *fleet {
	if opts.Interval == 0 {
		opts.Interval = DefaultFleetInterval
	}
	return &fleet{opts: opts, workers: map[string]*kitWorker{}, plain: map[string]plainPollers{}, ungated: map[string]bool{}}
}

// watching reports whether the kit reads its queues' pollers.
func (f *fleet) watching() bool { return f.opts.Client != nil && !nilPointer(f.opts.Client) }

// configured records the worker key serves queue, refused if refused is
// not nil.
func (f *fleet) configured(key, queue string, refused error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.workers[key]
	if w == nil {
		w = &kitWorker{queue: queue}
		f.workers[key] = w
	}
	if w.refused == nil {
		w.refused = refused
	}
}

// start is the worker key's start: its refusal, or nil after its watch has
// begun (when the kit watches).
func (f *fleet) start(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.workers[key]
	if w == nil {
		return nil
	}
	if w.refused != nil {
		return w.refused
	}
	if !f.watching() || w.stop != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop, w.done = cancel, make(chan struct{})
	go f.watch(ctx, w.queue, w.done)
	return nil
}

// stopped ends the worker key's watch and forgets it, and its queue's
// report when no other worker serves that queue.
func (f *fleet) stopped(key string) {
	f.mu.Lock()
	w := f.workers[key]
	delete(f.workers, key)
	f.mu.Unlock()
	if w == nil {
		return
	}
	if w.stop != nil {
		w.stop()
		<-w.done
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.servesQueue(w.queue) {
		delete(f.plain, w.queue)
	}
}

// watch reads queue's pollers now and every interval until ctx ends.
func (f *fleet) watch(ctx context.Context, queue string, done chan struct{}) {
	defer close(done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		f.read(ctx, queue)
		timer.Reset(f.opts.Interval)
	}
}

// pollerTypes are the task types whose pollers a read lists.
var pollerTypes = []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY}

// read lists queue's pollers once, records the ones without the mark, and
// reports them: an Error line naming each and the queue, and the gauge
// observe.MetricPlainPollers.
func (f *fleet) read(ctx context.Context, queue string) {
	found := map[string]bool{}
	for _, typ := range pollerTypes {
		dctx, cancel := context.WithTimeout(ctx, describeQueueTimeout)
		resp, err := f.opts.Client.DescribeTaskQueue(dctx, queue, typ)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				f.opts.Logger.Warn("temporaladk: the pollers of the task queue could not be read; workers without the kit on it go unreported until the next read",
					"task_queue", queue, "task_queue_type", typ.String(), "error", err)
			}
			return
		}
		for _, p := range resp.GetPollers() {
			if id := p.GetIdentity(); !strings.HasSuffix(id, IdentityMark) {
				found[id] = true
			}
		}
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range found {
			if !yield(id) {
				return
			}
		}
	})
	report := plainPollers{identities: ids[:min(len(ids), maxReportedPollers)], count: len(ids), at: time.Now()}
	f.mu.Lock()
	if f.servesQueue(queue) {
		if report.count > 0 {
			f.plain[queue] = report
		} else {
			delete(f.plain, queue)
		}
	}
	f.mu.Unlock()
	f.opts.MetricsHandler.WithTags(map[string]string{"task_queue": queue}).Gauge(observe.MetricPlainPollers).Update(float64(report.count))
	if report.count > 0 {
		f.opts.Logger.Error(plainText(queue, report), "task_queue", queue, "identities", report.identities)
	}
}

// servesQueue reports whether a worker the fleet knows serves queue; f.mu
// is held.
func (f *fleet) servesQueue(queue string) bool {
	for _, w := range f.workers {
		if w.queue == queue {
			return true
		}
	}
	return false
}

// plainText says what one read found.
func plainText(queue string, r plainPollers) string {
	more := ""
	if r.count > len(r.identities) {
		more = fmt.Sprintf(" and %d more", r.count-len(r.identities))
	}
	return fmt.Sprintf("temporaladk: task queue %q is polled by %d worker(s) without the kit (identity without %q): %s%s; a task they take runs unguarded: register interceptors.NewPlugin on every worker of the queue",
		queue, r.count, IdentityMark, strings.Join(quoteAll(r.identities), ", "), more)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for k, v := range s {
		out[k] = fmt.Sprintf("%q", v)
	}
	return out
}

// reason is what the kit last read of workers without it on the queues it
// serves, for a refusal about a worker without the kit: "" when it read
// none (or does not watch).
func (f *fleet) reason() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.plain) == 0 {
		return ""
	}
	var parts []string
	for _, q := range slices.Sorted(func(yield func(string) bool) {
		for q := range f.plain {
			if !yield(q) {
				return
			}
		}
	}) {
		r := f.plain[q]
		parts = append(parts, fmt.Sprintf("task queue %q: %s (read %s)", q, strings.Join(quoteAll(r.identities), ", "), r.at.UTC().Format(time.RFC3339)))
	}
	return " [the kit's worker saw pollers without the kit: " + strings.Join(parts, "; ") + "]"
}

// ungatedCall reports, once per call, a call of activityType, declared
// RequiresApproval on this worker, that the run's replayed history shows
// scheduled without the kit's gate (its approval version marker missing):
// an Error line, to FleetOptions.Logger, else to the process's default
// slog logger (slog.Default), so that the report is made whatever the
// options; and observe.MetricUngatedCalls, with FleetOptions.
func (f *fleet) ungatedCall(workflowType, workflowID, runID, activityType string, seq int) {
	key := fmt.Sprintf("%s/%s/%d", runID, activityType, seq)
	f.mu.Lock()
	if f.ungated[key] {
		f.mu.Unlock()
		return
	}
	if len(f.ungated) >= maxUngatedReported {
		clear(f.ungated)
	}
	f.ungated[key] = true
	f.mu.Unlock()
	logger := f.opts.Logger
	if logger == nil {
		logger = log.NewStructuredLogger(slog.Default())
	} else {
		f.opts.MetricsHandler.WithTags(map[string]string{"workflow_type": workflowType, "activity_type": activityType}).
			Counter(observe.MetricUngatedCalls).Inc(1)
	}
	logger.Error(fmt.Sprintf("temporaladk: run %s of workflow %s scheduled activity %s, declared RequiresApproval on this worker, without the kit's approval gate (its history has no %s marker): a worker without the kit ran that workflow task, or a build before the declaration did; the kit cannot tell which from workflow code, and goes on as recorded. Find the workflow task's worker identity in the history%s",
		runID, workflowID, activityType, approvalChangeID+"/"+activityType, f.reason()),
		"workflow_type", workflowType, "activity_type", activityType)
}
