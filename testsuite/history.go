package testsuite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/history"
)

// WorkflowHistory waits until the workflow run has closed (bounded by ctx)
// and returns its full history, to read back what was scheduled, retried
// and recorded. An empty runID means the latest run.
func WorkflowHistory(ctx context.Context, c client.Client, workflowID, runID string) (*historypb.History, error) {
	if ctx == nil {
		return nil, errors.New("testsuite: WorkflowHistory: ctx is nil: pass a context that bounds the wait")
	}
	h, err := history.Record(ctx, c, workflowID, runID)
	if err != nil {
		return nil, fmt.Errorf("testsuite: %w", err)
	}
	return h, nil
}

// RecordHistory waits until the workflow run has closed (bounded by ctx) and
// writes its full history to path as JSON, the format `temporal workflow show
// --output json` writes and ReplayFile, client.HistoryFromJSON and the SDK's
// replayer read. An empty runID means the latest run. Parent directories are
// created; the file is replaced atomically.
func RecordHistory(ctx context.Context, c client.Client, workflowID, runID, path string) error {
	if ctx == nil {
		return errors.New("testsuite: RecordHistory: ctx is nil: pass a context that bounds the wait")
	}
	h, err := history.Record(ctx, c, workflowID, runID)
	if err != nil {
		return fmt.Errorf("testsuite: %w", err)
	}
	if err := history.WriteFile(path, h); err != nil {
		return fmt.Errorf("testsuite: %w", err)
	}
	return nil
}

// ReplayWorkflow is a workflow to register with the replayer.
type ReplayWorkflow struct {
	// Func is the workflow function.
	Func any
	// Options are its registration options. If Options.Name is empty, the
	// function's name is the workflow type, as with worker.RegisterWorkflow.
	Options workflow.RegisterOptions
}

// ReplayOptions configures ReplayFile, ReplayDir and RecordAndReplay. Pass
// what the workers that ran the workflows took, so the replay sees what
// they saw: their worker.Options in Worker, and their client's converters.
type ReplayOptions struct {
	// Workflows are registered with the replayer. A history whose workflow
	// type is not registered fails to replay.
	Workflows []ReplayWorkflow
	// Worker is the worker.Options the workers ran with, as given to
	// worker.New: the replayer takes its Interceptors and Plugins (after
	// those of the fields below) and its DisableRegistrationAliasing, so
	// that a worker built with the kit's plugin in opts.Plugins replays
	// with the kit from the same value and nothing beside it. Its other
	// fields (pollers, tuners, identity) do not apply to a replay. The kit
	// given here and again in Plugins applies once; two different kits are an error wrapping
	// interceptors.ErrRegisteredTwice. Converters and plugins given to the
	// client (client.Options) are not in it: pass them below.
	Worker worker.Options
	// Interceptors are the worker interceptors, as in worker.Options. If nil,
	// none.
	Interceptors []interceptor.WorkerInterceptor
	// Plugins are the worker plugins, as in worker.Options. If nil, none.
	Plugins []worker.Plugin
	// DataConverter decodes payloads. If nil, the SDK's default. What the
	// workflow encodes during the replay (the inputs of the activities it
	// schedules, of its children, of its next run) is encoded by it too,
	// and a payload of more than 64 KiB is then left out of the commands
	// the replay keeps: the SDK's replayer (v1.51.0) keeps every command of
	// a history until its end and compares them with the history's events
	// by type and ID, never by input, so an agent that schedules its whole
	// conversation every turn would have the replay hold n² bytes where the
	// live worker holds the conversation once. A workflow that decodes,
	// during a replay, a payload of its own of that size (a memo it
	// upserted) gets an error naming the replay.
	DataConverter converter.DataConverter
	// FailureConverter decodes failures. If nil, the SDK's default.
	FailureConverter converter.FailureConverter
	// ContextPropagators are the workers' context propagators. If nil, none.
	ContextPropagators []workflow.ContextPropagator
	// Logger receives the replayer's logs. If nil, they are dropped (a failed
	// replay is reported by the returned error).
	Logger log.Logger
	// ExternalStorage is the workers' external payload storage (experimental
	// in the SDK), for histories whose payloads were stored outside them, as
	// payloads.Store.ExternalStorage gives it; pair it with the store's
	// DataConverter. The history is replayed from a copy, which leaves out
	// the inputs of what the workflow scheduled (no replay reads them): the
	// SDK resolves claims in place and all at once, and the caller's
	// history keeps them. If empty, a stored payload fails the replay with
	// the SDK's [TMPRL1105].
	ExternalStorage converter.ExternalStorage
}

// NondeterminismError reports that replaying a recorded history with the
// current code produced different commands than the history holds: the code
// changed in a way that breaks running workflows. Workflow is the history's workflow type,
// Source the history file, CommandIndex the diverging command's index in
// HistoryCommands(Source) (-1 when the SDK's message does not identify it),
// Expected and Actual the commands there ("" for none), Cause the SDK's
// error. Use errors.As to get it from ReplayFile or ReplayDir.
type NondeterminismError struct {
	// Workflow is the workflow type, when known.
	Workflow string
	// Source is where the history came from (a file), when known.
	Source string
	// CommandIndex is the index of the first diverging command, or -1 when
	// unknown.
	CommandIndex int
	// Expected is the recorded command at CommandIndex; empty when the replay
	// asked for more commands than were recorded.
	Expected string
	// Actual is the replayed command at CommandIndex; empty when the replay
	// stopped short, or when the SDK does not say what it did instead.
	Actual string
	Cause  error
}

// Error describes the failure, with its fields.
func (e *NondeterminismError) Error() string {
	if e == nil {
		return "<nil *testsuite.NondeterminismError>"
	}
	var b strings.Builder
	b.WriteString("nondeterminism")
	if e.Workflow != "" {
		fmt.Fprintf(&b, ": workflow %q", e.Workflow)
	}
	if e.Source != "" {
		b.WriteString(" in " + e.Source)
	}
	if e.CommandIndex >= 0 {
		fmt.Fprintf(&b, " at command %d", e.CommandIndex)
	}
	switch {
	case e.Expected != "" && e.Actual != "":
		fmt.Fprintf(&b, ": history has %s, replay produced %s", e.Expected, e.Actual)
	case e.Expected != "":
		fmt.Fprintf(&b, ": history has %s, replay did not produce it", e.Expected)
	case e.Actual != "":
		fmt.Fprintf(&b, ": history has nothing, replay produced %s", e.Actual)
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, "\n\tcause: %v", e.Cause)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *NondeterminismError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// ReplayFile replays the history in path (JSON, as RecordHistory writes) with
// the workflows and worker options in opts. It returns nil when the current
// code reproduces the history, a *NondeterminismError when it produces other
// commands, and another error when the file cannot be read or replayed.
func ReplayFile(path string, opts ReplayOptions) error {
	h, err := history.ReadFile(path)
	if err != nil {
		return fmt.Errorf("testsuite: %w", err)
	}
	workflows := make([]history.Workflow, len(opts.Workflows))
	for i, w := range opts.Workflows {
		workflows[i] = history.Workflow{Func: w.Func, Options: w.Options}
	}
	err = history.Replay(h, history.ReplayOptions{
		Workflows:    workflows,
		Interceptors: slices.Concat(opts.Interceptors, opts.Worker.Interceptors),
		Plugins:      slices.Concat(opts.Plugins, opts.Worker.Plugins),

		DisableRegistrationAliasing: opts.Worker.DisableRegistrationAliasing,
		DataConverter:               opts.DataConverter,
		FailureConverter:            opts.FailureConverter,
		ContextPropagators:          opts.ContextPropagators,
		Logger:                      opts.Logger,
		ExternalStorage:             opts.ExternalStorage,
	})
	if err == nil {
		return nil
	}
	workflowType := history.WorkflowType(h)
	if d, ok := history.ParseNondeterminism(err.Error(), h); ok {
		return &NondeterminismError{
			Workflow:     workflowType,
			Source:       path,
			CommandIndex: d.CommandIndex,
			Expected:     d.Expected,
			Actual:       d.Actual,
			Cause:        err,
		}
	}
	return fmt.Errorf("testsuite: replaying workflow %q from %s: %w", workflowType, path, err)
}

// ReplayDir replays every *.json file under dir (subdirectories included, in
// lexical order) with ReplayFile. It returns the errors of all files that
// failed, joined (errors.As finds each *NondeterminismError), and an error
// when dir holds no history, so an empty directory cannot pass silently.
func ReplayDir(dir string, opts ReplayOptions) error {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("testsuite: listing histories: %w", err)
	}
	if len(files) == 0 {
		return fmt.Errorf("testsuite: no *.json histories under %s", dir)
	}
	sort.Strings(files)
	var errs []error
	for _, f := range files {
		if err := ReplayFile(f, opts); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// HistoryCommands lists the commands recorded in a history file, one per
// command event: "ScheduleActivityTask(Charge)", "StartTimer(1s)",
// "RecordMarker(Version)", "CompleteWorkflowExecution". Compare two lists
// with CompareCommands.
func HistoryCommands(path string) ([]string, error) {
	h, err := history.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testsuite: %w", err)
	}
	return history.Commands(h), nil
}

// CommandDiff is the first place where two command lists differ.
type CommandDiff struct {
	// Index is the first diverging position.
	Index int
	// Expected is expected[Index], or "" when actual asks for more commands.
	Expected string
	// Actual is actual[Index], or "" when actual stops short.
	Actual string
}

// String reads "command 2: expected StartTimer(1s), actual ScheduleActivityTask(Charge)".
func (d CommandDiff) String() string {
	return fmt.Sprintf("command %d: expected %s, actual %s", d.Index, orNothing(d.Expected), orNothing(d.Actual))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// CompareCommands returns ok when expected and actual are equal, and the
// first difference otherwise. An actual that stops short differs at
// len(actual) with Actual empty; one that asks for more differs at
// len(expected) with Expected empty.
func CompareCommands(expected, actual []string) (diff CommandDiff, ok bool) {
	i, ok := history.FirstDivergence(expected, actual)
	if ok {
		return CommandDiff{Index: -1}, true
	}
	diff.Index = i
	if i < len(expected) {
		diff.Expected = expected[i]
	}
	if i < len(actual) {
		diff.Actual = actual[i]
	}
	return diff, false
}
