package payloads_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"

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

// turnTimes is when each Model call completed, from the start of the run,
// as the server recorded it.
func turnTimes(h *historypb.History) []time.Duration {
	var out []time.Duration
	start := h.GetEvents()[0].GetEventTime().AsTime()
	scheduled := map[int64]string{}
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] == "Model" {
			out = append(out, e.GetEventTime().AsTime().Sub(start))
		}
	}
	return out
}

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

		// The replay is the kit's (testsuite.ReplayFile), of the recorded
		// file, with the SDK's deadlock detector on, as a user runs it.
		path := filepath.Join(b.TempDir(), "agent.json")
		require.NoError(b, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
		replayer, _ := newDirStore(b, bucket.Dir(), 0)
		opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Agent}}}
		opts.ExternalStorage, opts.DataConverter, err = replayer.Configure(opts.ExternalStorage, opts.DataConverter)
		require.NoError(b, err)
		runtime.GC()
		stopReplay := peakHeap()
		replayStarted := time.Now()
		require.NoError(b, testsuite.ReplayFile(path, opts))
		replayTime := time.Since(replayStarted)
		replayPeak := stopReplay()
		b.ReportMetric(replayTime.Seconds(), "replay-s")
		b.ReportMetric(float64(replayPeak)/(1<<20), "replay-peak-MiB")
		b.ReportMetric(float64(replayPeak)/float64(livePeak), "replay/live-peak")
		b.Logf("replay: %v, peak heap %d MiB (%.2f× live)", replayTime.Round(time.Millisecond), replayPeak>>20, float64(replayPeak)/float64(livePeak))
		require.LessOrEqual(b, replayPeak, 2*livePeak)
		_ = payloads.DefaultCacheBytes
	}
}
