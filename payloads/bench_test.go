package payloads_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/benchdoc"
	"github.com/temporaladk/adk-go/internal/history"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

// benchTurns is the stored run's length: TEMPORALADK_PAYLOADS_TURNS, or 100.
// The 1,000-turn figures in BENCHMARKS.md are
//
//	TEMPORALADK_PAYLOADS_TURNS=1000 go test -run '^$' -bench BenchmarkConversation -benchtime 1x -timeout 60m ./payloads
func benchTurns(b *testing.B) int {
	s := os.Getenv("TEMPORALADK_PAYLOADS_TURNS")
	if s == "" {
		return 100
	}
	n, err := strconv.Atoi(s)
	require.NoError(b, err)
	return n
}

// peakHeap samples the heap in use until stop is called, and returns the
// highest figure.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// turnTimes is when each model call (Model or LogModel) completed, from the
// start of the run, as the server recorded it.
func turnTimes(h *historypb.History) []time.Duration {
	var out []time.Duration
	start := h.GetEvents()[0].GetEventTime().AsTime()
	scheduled := map[int64]string{}
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && isModel(scheduled[a.GetScheduledEventId()]) {
			out = append(out, e.GetEventTime().AsTime().Sub(start))
		}
	}
	return out
}

// replayTimed replays the history in path with testsuite.ReplayFile, the
// workflow registered and a new store on the bucket in dir (its cache
// empty, as a new worker's is), the SDK's deadlock detector on, as a user
// runs it, and returns how long the replay took, the peak heap during it
// and the heap in use just before it (what the process held already).
func replayTimed(b *testing.B, path, dir string, workflowFunc any) (took time.Duration, peak, before uint64) {
	replayer, _ := newDirStore(b, dir, 0)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: workflowFunc}}}
	var err error
	opts.ExternalStorage, opts.DataConverter, err = replayer.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(b, err)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	stop := peakHeap()
	started := time.Now()
	require.NoError(b, testsuite.ReplayFile(path, opts))
	took = time.Since(started)
	return took, stop(), m.HeapInuse
}

// isModel reports whether an activity type is one of the agents' model
// calls.
func isModel(activityType string) bool { return activityType == "Model" || activityType == "LogModel" }

// BenchmarkConversation runs the agent with 50 KB tool outputs inline (the
// plain SDK: terminated at turn 42) and on the store, on the dev server, and
// reports per turn: history bytes, stored bytes against the conversation,
// bytes read against bytes decoded, the wall time of the turns both runs
// reach as a ratio, and the replay's peak heap against the live worker's.
func BenchmarkConversation(b *testing.B) {
	turns := benchTurns(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// The plain SDK, in the same run.
		plain := dial(b, nil)
		pq := queue("bench-plain")
		startWorker(b, plain, pq)
		prun, err := plain.ExecuteWorkflow(ctx, startOptions(pq, pq), Agent, AgentInput{Turns: turns, ToolBytes: 50_000})
		require.NoError(b, err)
		require.Error(b, prun.Get(ctx, nil))
		ph, err := testsuite.WorkflowHistory(ctx, plain, prun.GetID(), prun.GetRunID())
		require.NoError(b, err)
		plainTurns := turnTimes(ph)

		runtime.GC()
		store, bucket := newDirStore(b, b.TempDir(), 0)
		c := dial(b, store)
		q := queue("bench-store")
		startWorker(b, c, q)
		stopLive := peakHeap()
		run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), Agent, AgentInput{Turns: turns, ToolBytes: 50_000})
		require.NoError(b, err)
		var res AgentResult
		require.NoError(b, run.Get(ctx, &res))
		livePeak := stopLive()
		require.Equal(b, turns, res.Turns)

		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
		require.NoError(b, err)
		storeTurns := turnTimes(h)
		both := len(plainTurns)
		ratio := float64(storeTurns[both-1]) / float64(plainTurns[both-1])

		desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
		require.NoError(b, err)
		historyBytes := desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
		stored := bucketSize(b, bucket)
		st := store.Stats()

		b.ReportMetric(float64(len(plainTurns)), "plain-turns")
		b.ReportMetric(float64(turns), "store-turns")
		b.ReportMetric(float64(historyBytes)/float64(turns), "history-B/turn")
		b.ReportMetric(float64(stored)/float64(res.ConversationBytes), "stored/conversation")
		b.ReportMetric(float64(st.BytesRead)/float64(st.BytesDecoded), "read/decoded")
		b.ReportMetric(ratio, "store/plain-time-first-turns")
		b.ReportMetric(float64(livePeak)/(1<<20), "live-peak-MiB")
		b.ReportMetric(float64(res.ConversationBytes)/(1<<20), "conversation-MiB")
		b.Logf("plain: %d turns in %v; store: %d turns in %v, the first %d in %v (%.2f× plain); history %d B/turn; stored %.3f× the %d-byte conversation; read %d for %d decoded (%.3f×); peak heap live %d MiB",
			len(plainTurns), plainTurns[both-1].Round(time.Millisecond), turns, storeTurns[turns-1].Round(time.Millisecond), both, storeTurns[both-1].Round(time.Millisecond), ratio,
			historyBytes/int64(turns), float64(stored)/float64(res.ConversationBytes), res.ConversationBytes, st.BytesRead, st.BytesDecoded, float64(st.BytesRead)/float64(st.BytesDecoded),
			livePeak>>20)
		require.LessOrEqual(b, historyBytes/int64(turns), int64(4096))
		require.LessOrEqual(b, float64(stored), 1.5*float64(res.ConversationBytes))
		require.LessOrEqual(b, float64(st.BytesRead), 2*float64(st.BytesDecoded))
		if os.Getenv("TEMPORALADK_PAYLOADS_REPLAY") == "0" {
			continue
		}

		// The replay is the kit's, of the recorded file (replayTimed).
		path := filepath.Join(b.TempDir(), "agent.json")
		require.NoError(b, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
		replayTime, replayPeak, _ := replayTimed(b, path, bucket.Dir(), Agent)
		b.ReportMetric(replayTime.Seconds(), "replay-s")
		b.ReportMetric(float64(replayPeak)/(1<<20), "replay-peak-MiB")
		b.ReportMetric(float64(replayPeak)/float64(livePeak), "replay/live-peak")
		b.Logf("replay: %v, peak heap %d MiB (%.2f× live)", replayTime.Round(time.Millisecond), replayPeak>>20, float64(replayPeak)/float64(livePeak))
		require.LessOrEqual(b, replayPeak, 2*livePeak)
		_ = payloads.DefaultCacheBytes
	}
}

// byRefTurns are the turns whose wall time BenchmarkConversationByReference
// reports (those the run reaches), and byRefReplays the lengths at which it
// replays the Log agent's history.
var (
	byRefTurns   = []int{50, 100, 200, 500, 1000}
	byRefReplays = []int{100, 200, 400, 1000}
)

// turnWindow is how many turns around a reported turn its median is taken
// over, so that one slow turn on a shared machine does not decide it.
const turnWindow = 11

// BenchmarkConversationByReference runs, in one benchmark run on the dev
// server, today's agent on the store (Agent: its conversation a slice,
// encoded whole into every model call) and then the agent whose
// conversation is a conversation.Log (LogAgent: every model call carries
// the Log's head), each on its own local-directory store, with
// 50,000-byte tool outputs, and reports each one's per-turn wall time at
// turns 50, 100, 200, 500 and 1,000 (those the run reaches). Then it
// replays the Log agent's history at 100, 200, 400 and 1,000 turns with
// testsuite.ReplayFile: one run, its history cut after each length's last
// turn, as a worker taking the run over at that turn would replay it.
//
// It is separate from BenchmarkConversation, whose figures ("Payloads of
// long conversations") come from its own command: this one does not run
// the plain SDK (terminated at turn 42) or replay the slices' history, and
// it writes its own part of BENCHMARKS.md when TEMPORALADK_BENCHMARKS_WRITE
// is 1 (the section names its command).
func BenchmarkConversationByReference(b *testing.B) {
	turns := benchTurns(b)
	if turns < 1 {
		b.Fatalf("TEMPORALADK_PAYLOADS_TURNS is %d: the agents need at least one turn", turns)
	}
	write := benchmarksWrite(b)
	for b.Loop() {
		started := time.Now().UTC()
		sliceRun := runAgent(b, "slices", Agent, turns)
		logRun := runAgent(b, "log", LogAgent, turns)
		require.Equal(b, sliceRun.res.Reply, logRun.res.Reply, "the two agents' models read different conversations")

		var replays []replayFigure
		for _, n := range byRefReplays {
			if n > turns {
				break
			}
			path := filepath.Join(b.TempDir(), "log-agent.json")
			require.NoError(b, history.WriteFile(path, &historypb.History{Events: logRun.history.GetEvents()[:cutAfterTurn(b, logRun.history, n)]}))
			f := replayFigure{turns: n}
			for range replayRepeats {
				took, peak, before := replayTimed(b, path, logRun.bucket.Dir(), LogAgent)
				f.took = append(f.took, took)
				f.peak, f.growth = max(f.peak, peak), max(f.growth, peak-min(peak, before))
			}
			slices.Sort(f.took)
			replays = append(replays, f)
			b.Logf("replay of the Log agent's history at %d turns: %v (median of %v), peak heap %d MiB, %d MiB over the heap before it", n, f.median().Round(time.Millisecond), f.took, f.peak>>20, f.growth>>20)
		}

		r := byRefReport{date: started, took: time.Since(started), turns: turns, slices: sliceRun, logs: logRun, replays: replays}
		for _, a := range []agentRun{sliceRun, logRun} {
			for _, f := range a.figures() {
				b.ReportMetric(f.median.Seconds(), fmt.Sprintf("%s-turn%d-s", a.name, f.turn))
			}
		}
		if ratio, _, ok := r.slope(logRun); ok {
			b.ReportMetric(ratio, "log-last/turn50")
		}
		if ratio, ok := r.replayRatio(); ok {
			b.ReportMetric(ratio, "replay-last/100")
		}
		b.Log("\n" + r.section())
		if write {
			rewriteBenchmarks(b, byRefPart, r.section())
		}
	}
}

// agentRun is one agent's run in BenchmarkConversationByReference.
type agentRun struct {
	name     string
	res      AgentResult
	history  *historypb.History
	bucket   *payloads.DirBucket
	livePeak uint64
	// perTurn is each turn's wall time: from the completion of the turn
	// before's model call (or the run's start) to its own, as the server
	// recorded them.
	perTurn []time.Duration
	took    time.Duration
	// loadBefore and loadAfter are the machine's load average at the
	// run's start and end.
	loadBefore, loadAfter string
}

// runAgent runs agent for turns turns on a store of its own and returns
// what it measured.
func runAgent(b *testing.B, name string, agent func(workflow.Context, AgentInput) (AgentResult, error), turns int) agentRun {
	ctx := context.Background()
	runtime.GC()
	store, bucket := newDirStore(b, b.TempDir(), 0)
	c := dial(b, store)
	q := queue("byref-" + name)
	startWorker(b, c, q)
	a := agentRun{name: name, bucket: bucket, loadBefore: loadAverage()}
	stop := peakHeap()
	run, err := c.ExecuteWorkflow(ctx, startOptions(q, q), agent, AgentInput{Turns: turns, ToolBytes: 50_000})
	require.NoError(b, err)
	require.NoError(b, run.Get(ctx, &a.res))
	a.livePeak = stop()
	a.loadAfter = loadAverage()
	require.Equal(b, turns, a.res.Turns)
	a.history, err = testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(b, err)
	done := turnTimes(a.history)
	require.Len(b, done, turns)
	for i, t := range done {
		if i == 0 {
			a.perTurn = append(a.perTurn, t)
		} else {
			a.perTurn = append(a.perTurn, t-done[i-1])
		}
	}
	events := a.history.GetEvents()
	a.took = events[len(events)-1].GetEventTime().AsTime().Sub(events[0].GetEventTime().AsTime())
	b.Logf("%s agent: %d turns in %v, live peak heap %d MiB", name, turns, a.took.Round(time.Millisecond), a.livePeak>>20)
	return a
}

// loadAverage is the machine's one-minute load average as /proc/loadavg
// says it, or "unknown" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	first, _, _ := strings.Cut(string(b), " ")
	return first
}

// turnFigure is the median and the fastest wall time of the turns around
// turn. Turns slowed by other work on the machine raise the median; the
// fastest is what a turn costs when nothing else runs.
type turnFigure struct {
	turn            int
	median, fastest time.Duration
}

// figures are the run's per-turn wall times at byRefTurns and at its last
// turn: each the median of the turnWindow turns around it (those the run
// has, so the last turn's are the turns before it).
func (a agentRun) figures() []turnFigure {
	n := len(a.perTurn)
	var at []int
	for _, t := range byRefTurns {
		if t <= n {
			at = append(at, t)
		}
	}
	if len(at) == 0 || at[len(at)-1] != n {
		at = append(at, n)
	}
	var out []turnFigure
	for _, t := range at {
		lo := max(1, t-turnWindow/2)
		hi := min(n, lo+turnWindow-1)
		lo = max(1, hi-turnWindow+1)
		window := slices.Clone(a.perTurn[lo-1 : hi])
		slices.Sort(window)
		out = append(out, turnFigure{turn: t, median: window[len(window)/2], fastest: window[0]})
	}
	return out
}

// cutAfterTurn is the number of h's events that a run which has completed
// turn turns holds: through the workflow task that handled that turn's
// model reply and the commands it made.
func cutAfterTurn(b *testing.B, h *historypb.History, turn int) int {
	events := h.GetEvents()
	scheduled := map[int64]string{}
	models := 0
	for i, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a == nil || scheduled[a.GetScheduledEventId()] != "LogModel" {
			continue
		}
		if models++; models < turn {
			continue
		}
		for j := i + 1; j < len(events); j++ {
			if events[j].GetWorkflowTaskCompletedEventAttributes() == nil {
				continue
			}
			// The commands of that task follow it, up to the next event
			// that no command made.
			k := j + 1
			for k < len(events) && events[k].GetActivityTaskScheduledEventAttributes() != nil {
				k++
			}
			if k < len(events) && events[k].GetWorkflowExecutionCompletedEventAttributes() != nil {
				k++
			}
			return k
		}
	}
	b.Fatalf("the history holds %d model calls, not %d", models, turn)
	return 0
}

// replayRepeats is how many times BenchmarkConversationByReference replays
// each length, so that one replay slowed by the shared machine does not
// decide its figure.
const replayRepeats = 3

// replayFigure is the replays of the Log agent's history at one length.
type replayFigure struct {
	turns int
	// took is each replay's time, sorted.
	took []time.Duration
	// peak is the highest heap in use during a replay, and growth the most
	// a replay added to the heap in use before it.
	peak, growth uint64
}

// median is the replays' median time.
func (f replayFigure) median() time.Duration { return f.took[len(f.took)/2] }

// byRefPart is the kept part of BENCHMARKS.md that
// BenchmarkConversationByReference writes.
const byRefPart = "conversation-log"

// byRefReport is what BenchmarkConversationByReference measured.
type byRefReport struct {
	date    time.Time
	took    time.Duration
	turns   int
	slices  agentRun
	logs    agentRun
	replays []replayFigure
}

// slope is a's last turn's median wall time over turn 50's, and the same
// ratio of their fastest, if it has both turns.
func (r byRefReport) slope(a agentRun) (median, fastest float64, ok bool) {
	f := a.figures()
	if f[0].turn != 50 || len(f) < 2 {
		return 0, 0, false
	}
	last := f[len(f)-1]
	return float64(last.median) / float64(f[0].median), float64(last.fastest) / float64(f[0].fastest), true
}

// replayRatio is the longest replay's time over the 100-turn one's.
func (r byRefReport) replayRatio() (float64, bool) {
	if len(r.replays) < 2 {
		return 0, false
	}
	return float64(r.replays[len(r.replays)-1].median()) / float64(r.replays[0].median()), true
}

// section is the part of BENCHMARKS.md that the run writes.
func (r byRefReport) section() string {
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Conversations by reference: the per-turn slope and the replay\n\n")
	p("Not written by `go run ./bench`: written by `BenchmarkConversationByReference` in `payloads/`, by\n\n")
	p("\tTEMPORALADK_PAYLOADS_TURNS=1000 TEMPORALADK_BENCHMARKS_WRITE=1 go test -run '^$' -bench BenchmarkConversationByReference -benchtime 1x -timeout 60m ./payloads\n\n")
	p("run from the repository's root. This run: %s UTC, %d turns, %d CPUs (GOMAXPROCS), %s in all.\n", r.date.Format("2006-01-02 15:04"), r.turns, runtime.GOMAXPROCS(0), r.took.Round(time.Second))
	p("In it, on the test dev server, one agent after the other, each on its own store (a local directory, the default\n")
	p("cache), each turn a 50,000-byte tool output and a model call on the whole conversation: today's agent\n")
	p("(`Agent`, the conversation a slice of messages, encoded whole into every model call) and the agent on a\n")
	p("`conversation.Log` (`LogAgent`, every model call carrying the Log's head; the model reads it with\n")
	p("`Messages`). A turn's wall time is the time from the model reply before it to its own, from the server's\n")
	p("event times: the median of the %d turns around it (at the last turn, the %d up to it), and in parentheses the\n", turnWindow, turnWindow)
	p("fastest of them. The machine is shared with other work, whose load raises the medians of a stretch of turns by\n")
	p("tens of percent; the fastest are the nearer to what a turn costs on an idle machine, and the load average is the\n")
	p("machine's (`/proc/loadavg`, one minute) at each run's start and end.\n\n")
	p("| turn | `Agent` (slices) | `LogAgent` |\n|---|---|---|\n")
	sf, lf := r.slices.figures(), r.logs.figures()
	for i := range lf {
		p("| %d | %.3fs (%.3fs) | %.3fs (%.3fs) |\n", lf[i].turn, sf[i].median.Seconds(), sf[i].fastest.Seconds(), lf[i].median.Seconds(), lf[i].fastest.Seconds())
	}
	if sm, sfast, ok := r.slope(r.slices); ok {
		lm, lfast, _ := r.slope(r.logs)
		p("| turn %d / turn 50 | %.2f× (%.2f×) | **%.2f×** (%.2f×) (aim ≤ 1.3×: %s) |\n", r.turns, sm, sfast, lm, lfast, met(lm <= 1.3))
	}
	p("| whole run | %v | %v |\n", r.slices.took.Round(time.Millisecond), r.logs.took.Round(time.Millisecond))
	p("| load average, start → end | %s → %s | %s → %s |\n", r.slices.loadBefore, r.slices.loadAfter, r.logs.loadBefore, r.logs.loadAfter)
	p("| live peak heap | %d MiB | %d MiB |\n\n", r.slices.livePeak>>20, r.logs.livePeak>>20)
	if len(r.replays) == 0 {
		p("No replay: the run is shorter than 100 turns.\n")
		return s.String()
	}
	p("`testsuite.ReplayFile` of `LogAgent`'s history, the SDK's deadlock detector on, each replay with a store of\n")
	p("its own (an empty cache) on the run's bucket. The histories are the run's, cut after the workflow task that\n")
	p("handled the last turn's reply, as a worker that takes the run over at that turn replays it: one run, not one\n")
	p("per length. Each length is replayed %d times: the median time (the range), the process's highest heap in use\n", replayRepeats)
	p("during a replay, and the most a replay added to the heap in use just before it. That includes garbage not yet\n")
	p("collected: Go's collector lets the heap grow to about twice what is live, and what is live includes the two\n")
	p("runs' workers and caches, so the figure is an upper bound on what the replay holds.\n\n")
	p("| turns | replay | peak heap | added by the replay |\n|---|---|---|---|\n")
	for _, f := range r.replays {
		p("| %d | %v (%v – %v) | %d MiB | %d MiB |\n", f.turns, f.median().Round(time.Millisecond),
			f.took[0].Round(time.Millisecond), f.took[len(f.took)-1].Round(time.Millisecond), f.peak>>20, f.growth>>20)
	}
	if ratio, ok := r.replayRatio(); ok {
		last := r.replays[len(r.replays)-1].turns
		p("| %d / 100 | **%.2f×** for %.0f× the turns (aim for 1,000 / 100: under 12×%s) | | |\n", last, ratio, float64(last)/100, aimReplay(last, ratio))
	}
	return s.String()
}

// benchmarksWrite reports whether a benchmark rewrites its own part of
// BENCHMARKS.md: TEMPORALADK_BENCHMARKS_WRITE is 1. Another value than 1, 0
// or none is a named error.
func benchmarksWrite(b *testing.B) bool {
	switch v := os.Getenv("TEMPORALADK_BENCHMARKS_WRITE"); v {
	case "", "0":
		return false
	case "1":
		return true
	default:
		b.Fatalf("TEMPORALADK_BENCHMARKS_WRITE is %q: set it to 1 to rewrite BENCHMARKS.md's part, or leave it unset", v)
		return false
	}
}

// rewriteBenchmarks replaces the body of BENCHMARKS.md's kept part name.
func rewriteBenchmarks(b *testing.B, name, body string) {
	require.NoError(b, benchdoc.Rewrite(filepath.Join("..", "BENCHMARKS.md"), name, body))
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// aimReplay says whether the 1,000-turn replay met the aim, when
// the run reached it.
func aimReplay(last int, ratio float64) string {
	if last != 1000 {
		return ""
	}
	return ": " + met(ratio < 12)
}
