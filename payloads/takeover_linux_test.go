//go:build linux

package payloads_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/internal/history"
	"github.com/temporaladk/adk-go/testsuite"
)

// takeoverProc is a worker process of BenchmarkTakeover.
type takeoverProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	waited bool
}

// startTakeoverProc starts a worker process on q and the bucket in dir,
// and returns once it polls.
func startTakeoverProc(b *testing.B, q, dir string) *takeoverProc {
	b.Helper()
	srv := testsuite.DevServerFor(b)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), takeoverQueueEnv+"="+q, takeoverHostPortEnv+"="+srv.Address(),
		takeoverNamespaceEnv+"="+srv.Namespace(), takeoverBucketEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(b, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	p := &takeoverProc{cmd: cmd, stdin: stdin}
	b.Cleanup(func() {
		if !p.waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	out := bufio.NewScanner(stdout)
	require.True(b, out.Scan(), "the worker process did not start")
	require.Equal(b, "started", out.Text())
	return p
}

// kill ends the process with SIGKILL and returns its peak resident set in
// bytes, from the rusage of its wait.
func (p *takeoverProc) kill(b *testing.B) int64 {
	b.Helper()
	require.NoError(b, p.cmd.Process.Signal(syscall.SIGKILL))
	_ = p.cmd.Wait()
	return p.peakRSS()
}

// stop closes the process's stdin, so that it stops its worker and exits,
// and returns its peak resident set in bytes.
func (p *takeoverProc) stop(b *testing.B) int64 {
	b.Helper()
	require.NoError(b, p.stdin.Close())
	require.NoError(b, p.cmd.Wait())
	return p.peakRSS()
}

func (p *takeoverProc) peakRSS() int64 {
	p.waited = true
	return p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}

// takeoverRun is one run of measureTakeover.
type takeoverRun struct {
	// Runs is how many runs the chain had; LastRun is the one taken over,
	// RunTurns its turns.
	Runs, RunTurns int
	LastRun        string
	// Appended is what the taken-over run's logs appended up to the pause:
	// what the new worker's replay appends again.
	Appended int64
	// FirstTask is the new worker's first workflow task, from
	// WorkflowTaskStarted to WorkflowTaskCompleted as the server recorded
	// them.
	FirstTask time.Duration
	// PeakA and PeakB are the replaced and the new process's peak resident
	// sets.
	PeakA, PeakB int64
	History      *historypb.History
}

// measureTakeover runs in on a worker process, which is killed with
// SIGKILL when the run waits at in.PauseAt; a new process takes the run
// over and completes it.
func measureTakeover(b *testing.B, ctx context.Context, c client.Client, dir string, in TakeoverInput) takeoverRun {
	b.Helper()
	q := queue("takeover-bench")
	a := startTakeoverProc(b, q, dir)
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), TakeoverAgent, in)
	require.NoError(b, err)
	runID, err := awaitPause(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(b, err)
	var r takeoverRun
	r.PeakA = a.kill(b)
	bp := startTakeoverProc(b, q, dir)
	require.NoError(b, c.SignalWorkflow(ctx, run.GetID(), runID, "resume", nil))
	var res AgentResult
	require.NoError(b, run.Get(ctx, &res))
	if !in.PauseBeforeContinue {
		require.Equal(b, in.Turns, res.Turns)
	}
	r.PeakB = bp.stop(b)

	r.LastRun = runID
	r.History, err = testsuite.WorkflowHistory(ctx, c, run.GetID(), runID)
	require.NoError(b, err)
	started, completed, ok := firstTaskOf(r.History, fmt.Sprintf("%d@", bp.cmd.Process.Pid))
	require.True(b, ok, "the new process completed no workflow task")
	r.FirstTask = completed.Sub(started)
	r.RunTurns = completed0(r.History)
	r.Appended = appendedAt(b, r.History, len(r.History.GetEvents()))
	for id := runID; id != ""; r.Runs++ {
		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), id)
		require.NoError(b, err)
		id = h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	return r
}

// completed0 is how many model calls the run completed.
func completed0(h *historypb.History) int {
	n := 0
	scheduled := map[int64]bool{}
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "ModelLog" {
			scheduled[e.GetEventId()] = true
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] {
			n++
		}
	}
	return n
}

// logBytes is the "bytes" of a Log's encoding: what it appended since it
// was made, over the chain's runs.
type logBytes struct {
	Bytes int64 `json:"bytes"`
}

// appendedAt is what the run's logs appended in its first n events: the
// Log's bytes in the last model call scheduled among them, less those the
// run started with.
func appendedAt(b *testing.B, h *historypb.History, n int) int64 {
	b.Helper()
	var start struct{ Conversation *logBytes }
	in := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	require.NoError(b, json.Unmarshal(in[0].GetData(), &start))
	var last logBytes
	for _, e := range h.GetEvents()[:n] {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "ModelLog" {
			require.NoError(b, json.Unmarshal(a.GetInput().GetPayloads()[0].GetData(), &last))
		}
	}
	if start.Conversation != nil {
		return last.Bytes - start.Conversation.Bytes
	}
	return last.Bytes
}

// truncatedAt is h up to the first model call scheduled after the run's
// logs appended limit bytes, and false when they never did.
func truncatedAt(b *testing.B, h *historypb.History, limit int64) (*historypb.History, bool) {
	b.Helper()
	for i, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "ModelLog" && appendedAt(b, h, i+1) >= limit {
			return &historypb.History{Events: h.GetEvents()[:i+1]}, true
		}
	}
	return nil, false
}

// replayTime replays h with testsuite.ReplayFile, on the store over dir,
// and returns its time and peak heap.
func replayTime(b *testing.B, h *historypb.History, dir string) (time.Duration, uint64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "takeover.json")
	require.NoError(b, history.WriteFile(path, h))
	store, _ := newDirStore(b, dir, 0)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: TakeoverAgent}}, Worker: kitWorkerOptions(b)}
	var err error
	opts.ExternalStorage, opts.DataConverter, err = store.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(b, err)
	runtime.GC()
	stop := peakHeap()
	started := time.Now()
	require.NoError(b, testsuite.ReplayFile(path, opts))
	took := time.Since(started)
	return took, stop()
}

// replays is how many times BenchmarkTakeover replays the run cut at the
// replay limit: the figure is their median.
const replays = 5

// takeoverCase is one takeover BenchmarkTakeover measures.
type takeoverCase struct {
	name string
	takeoverRun
}

// BenchmarkTakeover measures a takeover by a new worker process: a worker
// process runs the by-reference agent (50,000-byte tool outputs) for
// TEMPORALADK_PAYLOADS_TURNS turns (100 unless set) and is killed with
// SIGKILL where the run waits; a new process takes the run over and
// completes it. Three runs: one without continue-as-new, taken over at its
// last turn; a chain continued by conversation.ShouldContinueAsNew with a
// 1 MiB history limit, taken over at its last turn; and a run taken over
// where ShouldContinueAsNew first says to continue by
// conversation.DefaultReplayByteLimit or the server's suggestion (the most
// a takeover replays under them), the chain ending one turn later. It
// reports the new process's first workflow task (server
// event times) and both processes' peak resident sets, and times
// testsuite.ReplayFile of the first run whole and, five times, cut where
// its logs had appended DefaultReplayByteLimit, and fails when their
// median passes a tenth of the 10 s default workflow task timeout, the
// promise of the limit's doc. With TEMPORALADK_BENCHMARKS_WRITE=1 it
// writes its part of BENCHMARKS.md ("takeover"):
//
//	TEMPORALADK_PAYLOADS_TURNS=1000 TEMPORALADK_BENCHMARKS_WRITE=1 \
//	  go test -run '^$' -bench BenchmarkTakeover -benchtime 1x -timeout 60m ./payloads
func BenchmarkTakeover(b *testing.B) {
	turns := benchTurns(b)
	write := benchmarksWrite(b)
	const toolBytes, historyLimit = 50_000, 1 << 20
	ctx := context.Background()
	for b.Loop() {
		dir := b.TempDir()
		store, _ := newDirStore(b, dir, 0)
		c := dial(b, store)
		began := time.Now()
		cases := []takeoverCase{
			{"one run, no continue-as-new, at its last turn", measureTakeover(b, ctx, c, dir,
				TakeoverInput{Turns: turns, ToolBytes: toolBytes, PauseAt: turns})},
			{"a chain continued by `ShouldContinueAsNew` (1 MiB history limit), at its last turn", measureTakeover(b, ctx, c, dir,
				TakeoverInput{Turns: turns, ToolBytes: toolBytes, PauseAt: turns, HistoryByteLimit: historyLimit})},
		}
		// The history limit is there to turn ShouldContinueAsNew on; the
		// replay limit or the server's suggestion decides first.
		limitRun := TakeoverInput{Turns: turns, ToolBytes: toolBytes, HistoryByteLimit: 1 << 30, PauseBeforeContinue: true}
		reachesLimit := int64(turns)*toolBytes > conversation.DefaultReplayByteLimit
		if reachesLimit {
			cases = append(cases, takeoverCase{"where `ShouldContinueAsNew` first says to continue (by `DefaultReplayByteLimit` or the server's suggestion), before it does", measureTakeover(b, ctx, c, dir, limitRun)})
		}
		one := cases[0]
		wholeTime, wholePeak := replayTime(b, one.History, dir)
		limit := int64(conversation.DefaultReplayByteLimit)
		cut, reached := truncatedAt(b, one.History, limit)
		var cutTimes []time.Duration
		var cutPeak uint64
		for range replays {
			if !reached {
				break
			}
			t, peak := replayTime(b, cut, dir)
			cutTimes = append(cutTimes, t)
			cutPeak = max(cutPeak, peak)
		}
		slices.Sort(cutTimes)
		for i, r := range cases {
			b.ReportMetric(r.FirstTask.Seconds(), fmt.Sprintf("case%d-first-task-s", i+1))
			b.ReportMetric(float64(r.PeakB)/float64(r.PeakA), fmt.Sprintf("case%d-peakB/peakA", i+1))
			b.Logf("%s: run %d of the chain, %d turns, %.1f MiB appended; new process's first task %v; peak RSS replaced %d MiB, new %d MiB (%.2f×)",
				r.name, r.Runs, r.RunTurns, float64(r.Appended)/(1<<20), r.FirstTask.Round(time.Millisecond), r.PeakA>>20, r.PeakB>>20, float64(r.PeakB)/float64(r.PeakA))
		}
		b.ReportMetric(wholeTime.Seconds(), "replay-s")
		b.Logf("ReplayFile of the %d-turn run: %v, peak heap %d MiB", turns, wholeTime.Round(time.Millisecond), wholePeak>>20)
		if reached {
			b.ReportMetric(cutTimes[len(cutTimes)/2].Seconds(), "replay-at-limit-s")
			b.Logf("ReplayFile of the run cut at %d MiB appended, %d times: %v, peak heap %d MiB", limit>>20, replays, cutTimes, cutPeak>>20)
		}
		if write {
			rewriteBenchmarks(b, "takeover", takeoverSection(turns, began, cases, wholeTime, wholePeak, cutTimes, cutPeak))
		}
		if reached {
			require.Less(b, cutTimes[len(cutTimes)/2], time.Second,
				"a replay of DefaultReplayByteLimit appended bytes outlasts a tenth of the 10 s default workflow task timeout: lower the limit (conversation/conversation.go)")
		}
	}
}

// takeoverSection is the "takeover" section of BENCHMARKS.md; cutTimes are
// the replays at the limit, sorted, none if the run did not reach it.
func takeoverSection(turns int, began time.Time, cases []takeoverCase, wholeTime time.Duration, wholePeak uint64, cutTimes []time.Duration, cutPeak uint64) string {
	var s strings.Builder
	load, _ := os.ReadFile("/proc/loadavg")
	limit := int64(conversation.DefaultReplayByteLimit)
	fmt.Fprintf(&s, "## A takeover by a new worker process\n\n")
	fmt.Fprintf(&s, "Not written by `go run ./bench`: written by `BenchmarkTakeover` (payloads/takeover_linux_test.go), %s UTC, %d turns, in %v, "+
		"`DefaultReplayByteLimit` %d MiB; load average at the end %s (2 cores shared with other work: timings are noisy):\n\n",
		began.UTC().Format("2006-01-02 15:04"), turns, time.Since(began).Round(time.Second), limit>>20, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintf(&s, "```sh\nTEMPORALADK_PAYLOADS_TURNS=%d TEMPORALADK_BENCHMARKS_WRITE=1 \\\n  go test -run '^$' -bench BenchmarkTakeover -benchtime 1x -timeout 60m ./payloads\n```\n\n", turns)
	s.WriteString("A worker process (the test binary run again) runs the by-reference agent (`TakeoverAgent`: a `conversation.Log`, 50,000-byte tool outputs, " +
		"the kit's store on a local directory, default cache) on the test dev server until the run waits for a signal; the process is killed " +
		"(SIGKILL) and a new process takes the run over: its first workflow task replays the run and makes the next command (the model call, or " +
		"the continue-as-new). The task's time is from its WorkflowTaskStarted to its WorkflowTaskCompleted event, as the server recorded them; " +
		"peak RSS is each process's `Maxrss` (rusage).\n\n")
	s.WriteString("| taken over | run of the chain | its turns | its logs appended | new process's first task | aim < 2 s | peak RSS, replaced / new | new / replaced | aim < 1.5× |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range cases {
		ratio := float64(r.PeakB) / float64(r.PeakA)
		fmt.Fprintf(&s, "| %s | %d | %d | %.1f MiB | %d ms | %s | %d / %d MiB | %.2f× | %s |\n", r.name, r.Runs, r.RunTurns, float64(r.Appended)/(1<<20),
			r.FirstTask.Milliseconds(), met(r.FirstTask < 2*time.Second), r.PeakA>>20, r.PeakB>>20, ratio, met(ratio < 1.5))
	}
	fmt.Fprintf(&s, "\n`testsuite.ReplayFile` of the run without continue-as-new (%d turns, %.1f MiB appended), in the test process: %d ms, peak heap %d MiB.\n",
		turns, float64(cases[0].Appended)/(1<<20), wholeTime.Milliseconds(), wholePeak>>20)
	if len(cutTimes) == 0 {
		fmt.Fprintf(&s, "\nThe run's logs appended less than `conversation.DefaultReplayByteLimit` (%d MiB): run it with more turns to time a replay of that many bytes.\n", limit>>20)
		return s.String()
	}
	ms := make([]string, len(cutTimes))
	for i, t := range cutTimes {
		ms[i] = strconv.FormatInt(t.Milliseconds(), 10)
	}
	median := cutTimes[len(cutTimes)/2]
	fmt.Fprintf(&s, "\nThe replay limit (`conversation.DefaultReplayByteLimit`, %d MiB; its doc says how it was chosen): `ReplayFile` of the same run cut at "+
		"the first model call after its logs had appended %d MiB, %d times: **%d ms** median (%s ms; peak heap %d MiB), against a tenth of the "+
		"10 s default workflow task timeout, 1,000 ms: %s.\n",
		limit>>20, limit>>20, len(cutTimes), median.Milliseconds(), strings.Join(ms, ", "), cutPeak>>20, met(median < time.Second))
	return s.String()
}
