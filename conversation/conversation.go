package conversation

import (
	"errors"
	"fmt"
	"reflect"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/internal/budget"
)

// DefaultUpdateLimit is the Updates a Temporal server accepts per run by
// default (its dynamic config history.maxTotalUpdates). Set another with
// WithUpdateLimit when the server is configured otherwise.
const DefaultUpdateLimit = 2000

// chainOf is the run's chain state for call: a nil ctx is an error, and a
// workflow without the kit's interceptor panics (budget.Require), which
// fails the workflow task so that a worker with the kit retries it, rather
// than run with a budget that nothing carries or charges.
func chainOf(ctx workflow.Context, call string) (*budget.Chain, error) {
	if ctx == nil {
		return nil, fmt.Errorf("conversation: %s: ctx is nil: pass the workflow's context", call)
	}
	return budget.Require(ctx, "conversation."+call), nil
}

type updateLimitKey struct{}

type historyByteLimitKey struct{}

type replayByteLimitKey struct{}

// DefaultReplayByteLimit is the bytes a run's conversation logs may append
// before ShouldContinueAsNew is true, when WithReplayByteLimit set no other
// limit: 16 MiB. A worker that takes the run over replays it in one workflow
// task and appends those bytes again (each tool output decoded from the
// store, each message encoded and hashed); the limit keeps that replay
// under a tenth of the server's default workflow task timeout of 10 s. How
// it was chosen: payloads' BenchmarkTakeover times testsuite.ReplayFile of
// a run of 50 KB tool outputs cut where its logs had appended this many
// bytes, five times, on the 2-core machine CI runs on, shared with other
// work, and fails when the median passes a tenth of the timeout (1 s).
// 32 MiB, the limit first set, took a median of 1.17 s, and 0.95 s once
// Append stopped encoding each segment twice: no room left for a loaded
// machine, nor for the takeover's own fetch of the history. 16 MiB leaves
// that room (BENCHMARKS.md, "A takeover by a new worker process", has the
// last run's figures).
const DefaultReplayByteLimit = 16 << 20

// WithReplayByteLimit returns a context on which ShouldContinueAsNew is true
// once the conversation logs (Log) of the run appended nine tenths of limit
// bytes, instead of DefaultReplayByteLimit: what a worker that takes the run
// over must append again in its first workflow task. Raise it with the run's
// WorkflowTaskTimeout. A limit below 1 and a nil ctx are errors; a workflow
// without the kit's interceptor panics, failing its workflow task.
func WithReplayByteLimit(ctx workflow.Context, limit int64) (workflow.Context, error) {
	if _, err := chainOf(ctx, "WithReplayByteLimit"); err != nil {
		return nil, err
	}
	if limit < 1 {
		return ctx, fmt.Errorf("conversation: WithReplayByteLimit: limit is %d: it must be at least 1", limit)
	}
	return workflow.WithValue(ctx, replayByteLimitKey{}, limit), nil
}

// ReplayByteLimit is the appended bytes ShouldContinueAsNew counts against
// on ctx: the limit WithReplayByteLimit set, or DefaultReplayByteLimit. A
// nil ctx panics, naming the call.
func ReplayByteLimit(ctx workflow.Context) int64 {
	if ctx == nil {
		panic("conversation: ReplayByteLimit: ctx is nil: pass the workflow's context")
	}
	if limit, ok := ctx.Value(replayByteLimitKey{}).(int64); ok {
		return limit
	}
	return DefaultReplayByteLimit
}

// AppendedBytes is how many bytes the run's conversation logs appended, the
// count ShouldContinueAsNew holds against ReplayByteLimit. Without the
// kit's interceptor, which alone counts them, it panics, failing the
// workflow task; a nil ctx panics too.
func AppendedBytes(ctx workflow.Context) int64 {
	return budget.Require(ctx, "conversation.AppendedBytes").Appended()
}

// WithHistoryByteLimit returns a context on which ShouldContinueAsNew is
// also true once the run's history reaches nine tenths of limit bytes
// (workflow.GetInfo(ctx).GetCurrentHistorySize(), as the server counts it),
// so that a run's history, and the replay of it, stays as small as the
// application wants. The server suggests continuing at its own size
// (limit.historySize.suggestContinueAsNew) whatever the limit. A
// conversation whose payloads are inline passes the server's 2 MiB payload
// limit long before its history fills: with 50 KB tool outputs at turn 42,
// where continuing as new cannot carry it either; with the kit's payload
// store (package payloads) a turn adds about 2 KB of history, and this is
// the limit that decides. The limit is workflow code, the same on replay. A
// limit below 1 and a nil ctx are errors; a workflow without the kit's
// interceptor panics, failing its workflow task.
func WithHistoryByteLimit(ctx workflow.Context, limit int) (workflow.Context, error) {
	if _, err := chainOf(ctx, "WithHistoryByteLimit"); err != nil {
		return nil, err
	}
	if limit < 1 {
		return ctx, fmt.Errorf("conversation: WithHistoryByteLimit: limit is %d: it must be at least 1", limit)
	}
	return workflow.WithValue(ctx, historyByteLimitKey{}, limit), nil
}

// HistoryByteLimit is the history size ShouldContinueAsNew counts against on
// ctx, and false when WithHistoryByteLimit set none (then only the server's
// suggestion counts bytes).
func HistoryByteLimit(ctx workflow.Context) (int, bool) {
	if ctx == nil {
		return 0, false
	}
	limit, ok := ctx.Value(historyByteLimitKey{}).(int)
	return limit, ok
}

// WithUpdateLimit returns a context on which ShouldContinueAsNew counts
// against limit Updates per run instead of DefaultUpdateLimit: the server's
// history.maxTotalUpdates where it is configured otherwise. The limit is
// workflow code, the same on replay. A limit below 1 and a nil ctx are
// errors; a workflow without the kit's interceptor panics, failing its
// workflow task.
func WithUpdateLimit(ctx workflow.Context, limit int) (workflow.Context, error) {
	if _, err := chainOf(ctx, "WithUpdateLimit"); err != nil {
		return nil, err
	}
	if limit < 1 {
		return ctx, fmt.Errorf("conversation: WithUpdateLimit: limit is %d: it must be at least 1", limit)
	}
	return workflow.WithValue(ctx, updateLimitKey{}, limit), nil
}

// UpdateLimit is the Updates per run ShouldContinueAsNew counts against on
// ctx: the one WithUpdateLimit set, or DefaultUpdateLimit. A nil ctx
// panics, naming the call.
func UpdateLimit(ctx workflow.Context) int {
	if ctx == nil {
		panic("conversation: UpdateLimit: ctx is nil: pass the workflow's context")
	}
	if limit, ok := ctx.Value(updateLimitKey{}).(int); ok {
		return limit
	}
	return DefaultUpdateLimit
}

// Updates is how many Updates this run has accepted, the kit's charges and
// the user's own, as the server counts them toward its limit. Without the
// kit's interceptor in the running workflow, which alone counts them, it
// panics, failing the workflow task; a nil ctx panics too.
func Updates(ctx workflow.Context) int {
	return budget.Require(ctx, "conversation.Updates").Updates()
}

// ShouldContinueAsNew reports whether the run should continue as new: the
// server suggests it (workflow.GetInfo(ctx).GetContinueAsNewSuggested(),
// which covers the history's length and size), the history's bytes reached
// nine tenths of the limit WithHistoryByteLimit set, the bytes the run's
// conversation logs appended reached nine tenths of ReplayByteLimit(ctx)
// (what a takeover's replay appends again), or the Updates the run
// accepted reached nine tenths of UpdateLimit(ctx), the threshold at which
// the server itself suggests it. It reads only what replays the same.
// Without the kit's interceptor, which alone counts the Updates, it panics,
// failing the workflow task; a nil ctx panics too.
func ShouldContinueAsNew(ctx workflow.Context) bool {
	chain := budget.Require(ctx, "conversation.ShouldContinueAsNew")
	info := workflow.GetInfo(ctx)
	if info.GetContinueAsNewSuggested() {
		return true
	}
	if limit, ok := HistoryByteLimit(ctx); ok && info.GetCurrentHistorySize() >= nearLimit(limit) {
		return true
	}
	if limit := ReplayByteLimit(ctx); chain.Appended() >= (limit*9+9)/10 {
		return true
	}
	return chain.Updates() >= nearLimit(UpdateLimit(ctx))
}

// nearLimit is nine tenths of limit, rounded up, as the server rounds.
func nearLimit(limit int) int {
	return (limit*9 + 9) / 10
}

// ContinueAsNew waits until every Update handler of the run has finished
// (workflow.AllHandlersFinished), so that no charge or decision is cut off
// mid-way, and until no approved call of the run waits to be scheduled
// (package approvals). It then returns
// workflow.NewContinueAsNewError(ctx, wfn, args...): return it from the
// workflow. The kit hands the run's named budgets to the next run in its
// start header, and the calls still waiting for people, with their
// approvals so far, deadline and digest: the next run's code makes such a
// call again and it waits on there (see "Continue-as-new" in package
// approvals). A run recorded before the kit carried them waited here until
// no call waited, and replays so. An error of the wait (the workflow's context cancelled) is
// returned instead, and so is a wfn or args the SDK refuses (it panics on
// them; the run goes on, so that the workflow can say what is wrong). A nil
// ctx is an error; a workflow without the kit's interceptor, which alone
// hands the budgets over, panics, failing its workflow task.
func ContinueAsNew(ctx workflow.Context, wfn any, args ...any) (err error) {
	if _, err := chainOf(ctx, "ContinueAsNew"); err != nil {
		return err
	}
	if v := reflect.ValueOf(wfn); wfn == nil || (v.Kind() == reflect.Func && v.IsNil()) {
		return errors.New("conversation: ContinueAsNew: the workflow function is nil")
	}
	// A run recorded before pending approvals were carried waited for them
	// here; one that records approval.CarryChangeID waits only for a call
	// decided and not yet scheduled, and the kit carries the rest.
	settled := func() bool { return approval.Pending(ctx) == 0 }
	if approval.Pending(ctx) > 0 && workflow.GetVersion(ctx, approval.CarryChangeID, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		settled = func() bool { return approval.Deciding(ctx) == 0 }
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && settled() }); err != nil {
		return fmt.Errorf("conversation: ContinueAsNew: waiting for the run's Update handlers and decided approvals: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("conversation: ContinueAsNew: %v", r)
		}
	}()
	return workflow.NewContinueAsNewError(ctx, wfn, args...)
}
