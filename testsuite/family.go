package testsuite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/internal/history"
)

// maxFamilyRuns bounds the runs RecordFamily records: a family larger than
// that is not a test's, and a bound keeps a server that answered with a
// loop from filling the disk.
const maxFamilyRuns = 10_000

// RecordFamily writes into dir the history of every run of workflowID's
// chain (the runs it continued as new to, and the retries of a failed or
// timed-out run), and of every child workflow those runs started, with
// their own chains and children, one JSON file per run as RecordHistory
// writes it. It returns the files in order: each run, then the families of
// the children it started, then the chain's next run; the first file is
// the chain's first run.
//
// The runs are found in the histories themselves, not through visibility
// (ListWorkflow lags the server): the chain begins at the first run of
// workflowID's latest execution and follows each run's closing event to
// the next; a child is the execution its ChildWorkflowExecutionStarted
// event names. So the family can be recorded as soon as the workflow has
// completed. A run still open is waited for, bounded by ctx: give ctx a
// deadline; a run that has not closed when ctx ends is an error that names
// it. The next runs a cron schedule starts are not followed: each replays
// on its own.
//
// The names follow each run's place in the family, not its IDs, so that a
// recording made again with other IDs writes the same files: the chain's
// runs are run-1.json, run-2.json, ...; the second child run 1 started,
// of workflow type SubAgent, is run-1.child-2-SubAgent.run-1.json, its next
// run run-1.child-2-SubAgent.run-2.json. Children are numbered in the
// order the run started them, counting those that failed to start. A file
// of that name is replaced; other files in dir, an earlier and longer
// recording's among them, are left as they are: record into a directory of
// the family's own, and empty it first to record again. dir is created if
// missing.
//
// A nil client, an empty workflowID or dir, a dir that cannot be written,
// a workflow the server does not have, and a run still open when ctx ends
// are errors naming what is wrong; the files written before the error are
// returned with it.
func RecordFamily(ctx context.Context, c client.Client, workflowID, dir string) ([]string, error) {
	return recordFamily(ctx, c, workflowID, dir, "RecordFamily")
}

// RecordAndReplay records workflowID's family into dir with RecordFamily,
// then replays each file it wrote with ReplayFile and opts: the one call a
// test needs after a workflow completes to check that the current code
// replays every run it made. It returns the files, and the recording's
// error, or the replays' errors joined (errors.As finds each
// *NondeterminismError). opts without a workflow is an error, before
// anything is recorded.
func RecordAndReplay(ctx context.Context, c client.Client, workflowID, dir string, opts ReplayOptions) ([]string, error) {
	if len(opts.Workflows) == 0 {
		return nil, errors.New("testsuite: RecordAndReplay: opts.Workflows is empty: register the workflows the worker ran, as ReplayWorkflow{Func: ...}")
	}
	files, err := recordFamily(ctx, c, workflowID, dir, "RecordAndReplay")
	if err != nil {
		return files, err
	}
	var errs []error
	for _, f := range files {
		if err := ReplayFile(f, opts); err != nil {
			errs = append(errs, err)
		}
	}
	return files, errors.Join(errs...)
}

// recordFamily is RecordFamily, its errors naming fn, the entry point the
// user called.
func recordFamily(ctx context.Context, c client.Client, workflowID, dir, fn string) ([]string, error) {
	switch {
	case ctx == nil:
		return nil, fmt.Errorf("testsuite: %s: ctx is nil: pass a context that bounds the wait for the runs to close", fn)
	case c == nil:
		return nil, fmt.Errorf("testsuite: %s: the client is nil", fn)
	case strings.TrimSpace(workflowID) == "":
		return nil, fmt.Errorf("testsuite: %s: workflowID is empty: name the workflow whose runs and children to record", fn)
	case strings.TrimSpace(dir) == "":
		return nil, fmt.Errorf("testsuite: %s: dir is empty: name the directory to write the histories into", fn)
	}
	// A directory that cannot take a file fails here, before the server is
	// asked for anything.
	if err := checkWritable(dir); err != nil {
		return nil, fmt.Errorf("testsuite: %s: dir %q cannot hold the histories: %w", fn, dir, err)
	}
	first, err := firstRunID(ctx, c, workflowID)
	if err != nil {
		return nil, fmt.Errorf("testsuite: %s: %w", fn, err)
	}
	r := &familyRecorder{c: c, dir: dir, seen: map[string]bool{}}
	if err := r.chain(ctx, workflowID, first, ""); err != nil {
		return r.files, fmt.Errorf("testsuite: %s of workflow %q: %w", fn, workflowID, err)
	}
	return r.files, nil
}

// checkWritable creates dir if missing and checks that a file can be made
// in it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".recordfamily-*")
	if err != nil {
		return err
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return os.Remove(name)
}

// firstRunID is the first run of the chain of workflowID's latest
// execution.
func firstRunID(ctx context.Context, c client.Client, workflowID string) (string, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return "", fmt.Errorf("the server has no workflow %q in the client's namespace: %w", workflowID, err)
		}
		return "", fmt.Errorf("describing workflow %q: %w", workflowID, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if first := info.GetFirstRunId(); first != "" {
		return first, nil
	}
	// A server that does not report the first run (before 1.24) writes it
	// in every run's started event.
	latest := info.GetExecution().GetRunId()
	iter := c.GetWorkflowHistory(ctx, workflowID, latest, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !iter.HasNext() {
		return "", fmt.Errorf("workflow %q run %q has no history", workflowID, latest)
	}
	e, err := iter.Next()
	if err != nil {
		return "", fmt.Errorf("reading the first event of workflow %q run %q: %w", workflowID, latest, err)
	}
	if first := e.GetWorkflowExecutionStartedEventAttributes().GetFirstExecutionRunId(); first != "" {
		return first, nil
	}
	return latest, nil
}

// familyRecorder records a family's runs, depth first.
type familyRecorder struct {
	c     client.Client
	dir   string
	files []string
	// seen holds the runs recorded, by workflow ID and run ID, so that
	// nothing is recorded twice or followed in a loop.
	seen map[string]bool
}

// chain records the run runID of workflowID and the runs that follow it,
// each with its children, naming the files prefix + "run-N".
func (r *familyRecorder) chain(ctx context.Context, workflowID, runID, prefix string) error {
	for n := 1; runID != ""; n++ {
		key := workflowID + "\x00" + runID
		if r.seen[key] {
			return fmt.Errorf("workflow %q run %q is reached twice: its chain loops", workflowID, runID)
		}
		if len(r.seen) >= maxFamilyRuns {
			return fmt.Errorf("the family has more than %d runs", maxFamilyRuns)
		}
		r.seen[key] = true
		h, err := history.Record(ctx, r.c, workflowID, runID)
		if err != nil {
			if stillOpen(ctx, err) {
				return fmt.Errorf("workflow %q run %q had not closed when ctx ended: a family is recorded once its runs have closed; wait for the workflow's result, or give ctx more time: %w", workflowID, runID, err)
			}
			return err
		}
		name := prefix + "run-" + strconv.Itoa(n)
		path := filepath.Join(r.dir, name+".json")
		if err := history.WriteFile(path, h); err != nil {
			return err
		}
		r.files = append(r.files, path)
		for _, ch := range children(h) {
			if err := r.chain(ctx, ch.workflowID, ch.runID, name+".child-"+strconv.Itoa(ch.number)+"-"+fileSafe(ch.workflowType)+"."); err != nil {
				return err
			}
		}
		runID = nextRunID(h)
	}
	return nil
}

// stillOpen reports whether err ended a wait for a run to close because
// ctx ended.
func stillOpen(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &de)
}

// child is a child workflow a run started: its execution, its type, and
// its place among the children the run initiated, from 1.
type child struct {
	workflowID, runID, workflowType string
	number                          int
}

// children lists the children h started, in the order it initiated them.
func children(h *historypb.History) []child {
	number := map[int64]int{} // initiated event ID -> place
	var out []child
	for _, e := range h.GetEvents() {
		if e.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil {
			number[e.GetEventId()] = len(number) + 1
		}
		if a := e.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			out = append(out, child{
				workflowID:   a.GetWorkflowExecution().GetWorkflowId(),
				runID:        a.GetWorkflowExecution().GetRunId(),
				workflowType: a.GetWorkflowType().GetName(),
				number:       number[a.GetInitiatedEventId()],
			})
		}
	}
	// Started events can come in another order than the initiations: the
	// files are written in the order the run initiated the children.
	slices.SortStableFunc(out, func(a, b child) int { return cmp.Compare(a.number, b.number) })
	return out
}

// nextRunID is the run h's closing event started in its chain: the run it
// continued as new to, or the retry of a failed or timed-out run; "" for
// none, and for the next run of a cron schedule.
func nextRunID(h *historypb.History) string {
	events := h.GetEvents()
	if len(events) == 0 {
		return ""
	}
	cron := events[0].GetWorkflowExecutionStartedEventAttributes().GetCronSchedule() != ""
	last := events[len(events)-1]
	if a := last.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
		return a.GetNewExecutionRunId()
	}
	if cron {
		return ""
	}
	if a := last.GetWorkflowExecutionFailedEventAttributes(); a != nil {
		return a.GetNewExecutionRunId()
	}
	if a := last.GetWorkflowExecutionTimedOutEventAttributes(); a != nil {
		return a.GetNewExecutionRunId()
	}
	return ""
}

// fileSafe is s with every character but ASCII letters, digits, '-' and
// '_' replaced by '_', for a part of a file name; "workflow" for "".
func fileSafe(s string) string {
	if s == "" {
		return "workflow"
	}
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
