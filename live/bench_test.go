package live_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The stand-in model of the benchmarks and the load they put on a worker.
const (
	// benchTokenRate is how many tokens a second the stand-in model emits,
	// one per tick of a ticker: about a hosted model's pace.
	benchTokenRate = 50
	// benchTokens is how many tokens a MODEL call streams: 2 s at
	// benchTokenRate.
	benchTokens = 100
	// benchSubscribers is how many SSE clients watch one agent in
	// BenchmarkLiveSubscribers.
	benchSubscribers = 1000
	// benchAgents is how many agents stream at once in BenchmarkLiveAgents.
	benchAgents = 100
	// benchHeapTokens and benchHeapBatch are the tokens of a call and the
	// calls run at once in BenchmarkLiveHeap, which runs thousands.
	benchHeapTokens = 10
	benchHeapBatch  = 50

	benchChatType = "BenchLiveChat"
)

// benchEpoch is the origin of the times the stand-in model records and the
// clients compare with: time.Since keeps both on the monotonic clock.
var benchEpoch = time.Now()

// BenchLiveWorkflow is an agent's turn: it asks the stand-in model for
// tokens tokens and returns its reply.
func BenchLiveWorkflow(ctx workflow.Context, tokens int) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute})
	var reply string
	err := workflow.ExecuteActivity(ctx, benchChatType, tokens).Get(ctx, &reply)
	return reply, err
}

// benchModel is the stand-in MODEL activity: it emits "t0 ", "t1 ", … at
// benchTokenRate through providers.ReportText, recording when it reported
// each token in the times its workflow's ID was given (expect), so that a
// client that reads token i knows how long it took.
type benchModel struct {
	mu    sync.Mutex
	times map[string][]atomic.Int64
}

// expect makes the times of the run of workflow id, for tokens tokens.
func (m *benchModel) expect(id string, tokens int) []atomic.Int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := make([]atomic.Int64, tokens)
	m.times[id] = t
	return t
}

func (m *benchModel) forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.times, id)
}

func (m *benchModel) Chat(ctx context.Context, tokens int) (string, error) {
	m.mu.Lock()
	times := m.times[activity.GetInfo(ctx).WorkflowExecution.ID]
	m.mu.Unlock()
	tick := time.NewTicker(time.Second / benchTokenRate)
	defer tick.Stop()
	var reply strings.Builder
	for i := range tokens {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		token := "t" + strconv.Itoa(i) + " "
		if i < len(times) {
			times[i].Store(int64(time.Since(benchEpoch)))
		}
		if _, err := providers.ReportText(ctx, providers.Text, token); err != nil {
			return "", err
		}
		reply.WriteString(token)
	}
	return reply.String(), nil
}

// benchWorkers is the worker process of the benchmarks, on the test
// binary's dev server: two kit workers, each on a task queue of its own,
// one without an observer (the same agents without streaming) and one
// with a live.Observer on a MemoryHub that live.NewHandler serves over
// loopback HTTP. Both poll throughout, so idle polls cost both sides alike.
type benchWorkers struct {
	client client.Client
	hub    *live.MemoryHub
	obs    *live.Observer
	web    *httptest.Server
	http   *http.Client
	model  *benchModel
	meter  *benchkit.CPUMeter
	plain  string
	live   string
	runs   atomic.Int64
}

func newBenchWorkers(b *testing.B) *benchWorkers {
	b.Helper()
	srv := testsuite.DevServerFor(b)
	meter, err := benchkit.NewCPUMeter(srv.PID())
	require.NoError(b, err, "the CPU figures read getrusage and /proc (Linux)")
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(b, err)
	obs, err := live.NewObserver(hub, live.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { _ = obs.Close() })
	h, err := live.NewHandler(hub, live.HandlerOptions{Authorize: func(*http.Request, string) error { return nil }})
	require.NoError(b, err)
	web := httptest.NewServer(h)
	b.Cleanup(web.Close)
	// Clients keep their connections between runs, as a page does.
	transport := &http.Transport{MaxIdleConns: 2 * benchSubscribers, MaxIdleConnsPerHost: 2 * benchSubscribers, DisableCompression: true}
	b.Cleanup(transport.CloseIdleConnections)
	w := &benchWorkers{client: srv.Client(), hub: hub, obs: obs, web: web, http: &http.Client{Transport: transport},
		model: &benchModel{times: map[string][]atomic.Int64{}}, meter: meter}
	prefix := fmt.Sprintf("bench-%s-%d", b.Name(), time.Now().UnixNano())
	w.plain, w.live = prefix+"-plain", prefix+"-live"
	for _, q := range []struct {
		queue    string
		observer *live.Observer
	}{{w.plain, nil}, {w.live, obs}} {
		opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{benchChatType: {Class: temporaladk.Model}}}
		if q.observer != nil {
			opts.Observer = q.observer
		}
		plugin, err := interceptors.NewPlugin(opts)
		require.NoError(b, err)
		wk := worker.New(w.client, q.queue, worker.Options{Plugins: []worker.Plugin{plugin}})
		wk.RegisterWorkflow(BenchLiveWorkflow)
		wk.RegisterActivityWithOptions(w.model.Chat, activity.RegisterOptions{Name: benchChatType})
		require.NoError(b, wk.Start())
		b.Cleanup(wk.Stop)
	}
	return w
}

// benchRun is what one run of some agents measured.
type benchRun struct {
	// cpu is the worker process's CPU time (user and system) from the
	// first start request to the last client's last read.
	cpu time.Duration
	// latencies are, for each token each client read, the time from the
	// model's ReportText to the client's read of its text-delta.
	latencies []time.Duration
	// want and read are the tokens the clients were to read, and read.
	want, read int
}

// run runs a turn of agents agents at once, each streaming tokens tokens,
// on the streaming worker with subscribers SSE clients per agent, or on
// the one without streaming (then subscribers must be 0).
func (w *benchWorkers) run(ctx context.Context, streaming bool, agents, subscribers, tokens int) (benchRun, error) {
	queue := w.plain
	if streaming {
		queue = w.live
	}
	n := w.runs.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ids := make([]string, agents)
	var (
		ready, done sync.WaitGroup
		mu          sync.Mutex
		out         benchRun
		errs        = make(chan error, agents*(subscribers+1))
	)
	for a := range ids {
		ids[a] = fmt.Sprintf("%s-%d-%d", queue, n, a)
		times := w.model.expect(ids[a], tokens)
		defer w.model.forget(ids[a])
		for range subscribers {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				lat, read, err := benchClient(ctx, w.http, w.web.URL+"?stream="+ids[a], times, ready.Done)
				mu.Lock()
				defer mu.Unlock()
				out.latencies = append(out.latencies, lat...)
				out.read += read
				out.want += tokens
				if err != nil {
					errs <- err
				}
			}()
		}
	}
	// Every client is subscribed before the first token.
	ready.Wait()
	start, _, err := w.meter.Read()
	if err != nil {
		return benchRun{}, err
	}
	for _, id := range ids {
		done.Add(1)
		go func() {
			defer done.Done()
			run, err := w.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, BenchLiveWorkflow, tokens)
			if err == nil {
				err = run.Get(ctx, nil)
			}
			if err != nil {
				errs <- fmt.Errorf("agent %s: %w", id, err)
				cancel()
			}
		}()
	}
	done.Wait()
	end, _, err := w.meter.Read()
	if err != nil {
		return benchRun{}, err
	}
	close(errs)
	if err := <-errs; err != nil {
		return benchRun{}, err
	}
	out.cpu = end - start
	return out, nil
}

// benchClient reads the stream at url as a screen would, until [DONE]: for
// each text-delta of a token it reads, the time since the model reported
// it. It calls ready once it has subscribed (or failed).
func benchClient(ctx context.Context, hc *http.Client, url string, times []atomic.Int64, ready func()) (lat []time.Duration, read int, err error) {
	once := sync.OnceFunc(ready)
	defer once()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	// The handler subscribes before it answers.
	once()
	lat = make([]time.Duration, 0, len(times))
	r := bufio.NewReader(resp.Body)
	marker := []byte(`"delta":"t`)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the stream ended before [DONE]")
			}
			return lat, read, err
		}
		if bytes.Equal(line, []byte("data: [DONE]\n")) {
			// Drain the body so that the connection is kept.
			_, _ = io.Copy(io.Discard, r)
			return lat, read, nil
		}
		// A text-delta part: {"delta":"t12 ","id":…,"type":"text-delta"}.
		i := bytes.Index(line, marker)
		if i < 0 || !bytes.Contains(line, []byte(`"type":"text-delta"`)) {
			continue
		}
		digits := line[i+len(marker):]
		if j := bytes.IndexByte(digits, ' '); j > 0 {
			digits = digits[:j]
		}
		token, err := strconv.Atoi(string(digits))
		if err != nil || token >= len(times) {
			continue
		}
		lat = append(lat, time.Since(benchEpoch)-time.Duration(times[token].Load()))
		read++
	}
}

// benchPairs runs b.N pairs of a turn of agents agents: without streaming,
// and streaming to subscribers clients per agent, in turns (the side
// without streaming first in even pairs), after one warm-up turn each. It
// reports the worker process's CPU time of each side (medians), the
// median of the pairs' ratios, and the token-to-read latency over every
// token every client read.
func benchPairs(b *testing.B, agents, subscribers int) {
	w := newBenchWorkers(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, streaming := range []bool{false, true} {
		_, err := w.run(ctx, streaming, agents, subscribersIf(streaming, subscribers), benchTokens)
		require.NoError(b, err, "warm-up")
	}
	var plainCPU, liveCPU, ratios []float64
	var all benchRun
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		var pair [2]float64
		for _, streaming := range order {
			r, err := w.run(ctx, streaming, agents, subscribersIf(streaming, subscribers), benchTokens)
			require.NoError(b, err)
			ms := float64(r.cpu) / float64(time.Millisecond)
			if streaming {
				liveCPU, pair[1] = append(liveCPU, ms), ms
				all.latencies = append(all.latencies, r.latencies...)
				all.want += r.want
				all.read += r.read
			} else {
				plainCPU, pair[0] = append(plainCPU, ms), ms
			}
		}
		ratios = append(ratios, pair[1]/pair[0])
	}
	b.StopTimer()
	summarize := func(xs []float64) benchkit.Summary {
		s, err := benchkit.Summarize(xs)
		require.NoError(b, err)
		return s
	}
	plain, streaming, ratio := summarize(plainCPU), summarize(liveCPU), summarize(ratios)
	b.ReportMetric(plain.Median, "plain-cpu-ms/turn")
	b.ReportMetric(streaming.Median, "live-cpu-ms/turn")
	b.ReportMetric(ratio.Median, "median-pair-cpu-live/plain")
	// The 95% interval of that median; with fewer than 6 pairs, the
	// pairs' range.
	b.ReportMetric(ratio.CILow, "ci-low-cpu-live/plain")
	b.ReportMetric(ratio.CIHigh, "ci-high-cpu-live/plain")
	// What streaming adds per token a client read, from the medians.
	b.ReportMetric((streaming.Median-plain.Median)*1000/(float64(all.read)/float64(b.N)), "extra-cpu-us/token-read")
	reportLatency(b, all)
	b.ReportMetric(float64(w.obs.Dropped()), "observer-dropped")
	b.ReportMetric(float64(w.hub.Stats().Slow), "slow-subscribers-closed")
}

func subscribersIf(streaming bool, n int) int {
	if streaming {
		return n
	}
	return 0
}

// reportLatency reports the p50 and p99 of r's latencies (nearest rank),
// how many there were, and the tokens the clients did not read.
func reportLatency(b *testing.B, r benchRun) {
	b.Helper()
	if len(r.latencies) == 0 {
		b.Fatal("no client read a token")
	}
	sorted := slices.Clone(r.latencies)
	slices.Sort(sorted)
	rank := func(p float64) time.Duration {
		i := int(float64(len(sorted))*p+0.999999) - 1
		return sorted[max(0, min(i, len(sorted)-1))]
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(rank(0.50)), "p50-token-to-read-ms")
	b.ReportMetric(ms(rank(0.99)), "p99-token-to-read-ms")
	b.ReportMetric(float64(len(sorted)), "tokens-read")
	b.ReportMetric(float64(r.want-r.read), "tokens-not-read")
}

// BenchmarkLiveLatency: one agent's MODEL call streams benchTokens tokens
// at benchTokenRate through providers.ReportText in a real activity under
// the kit on the dev server, to one SSE client of live.NewHandler over
// loopback HTTP, in this process (MemoryHub); interleaved with the same
// turn on a worker without streaming. Per turn (b.N pairs): the worker
// process's CPU on both sides; over every token, the time from ReportText
// to the client's read.
func BenchmarkLiveLatency(b *testing.B) { benchPairs(b, 1, 1) }

// BenchmarkLiveSubscribers: as BenchmarkLiveLatency, with benchSubscribers
// SSE clients on the one agent's stream. The clients run in the worker's
// process, so its CPU counts their reading too.
func BenchmarkLiveSubscribers(b *testing.B) { benchPairs(b, 1, benchSubscribers) }

// BenchmarkLiveAgents: benchAgents agents stream at once, one SSE client
// each, against the same agents without streaming.
func BenchmarkLiveAgents(b *testing.B) { benchPairs(b, benchAgents, 1) }

// BenchmarkLiveHeap runs b.N calls on the worker without streaming, then
// b.N on the streaming one (one SSE client each; benchHeapBatch calls at
// once, each an agent of its own, benchHeapTokens tokens), and reports the
// worker process's heap after a GC, as bytes per call over its first
// tenth of the calls (N) and over all of them (10N): flat per call if
// nothing a call leaves behind stays. The MemoryHub keeps each agent's
// stream until DefaultMaxStreams, by design; its streams are reported.
func BenchmarkLiveHeap(b *testing.B) {
	w := newBenchWorkers(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, streaming := range []bool{false, true} {
		_, err := w.run(ctx, streaming, benchHeapBatch, subscribersIf(streaming, 1), benchHeapTokens)
		require.NoError(b, err, "warm-up")
	}
	tenth := max(1, b.N/10)
	b.ReportAllocs()
	b.ResetTimer()
	var all benchRun
	for _, side := range []struct {
		name      string
		streaming bool
	}{{"plain", false}, {"live", true}} {
		base := benchHeap()
		var atTenth uint64
		for done := 0; done < b.N; {
			batch := min(benchHeapBatch, b.N-done)
			if done < tenth {
				batch = min(batch, tenth-done)
			}
			r, err := w.run(ctx, side.streaming, batch, subscribersIf(side.streaming, 1), benchHeapTokens)
			require.NoError(b, err)
			all.latencies = append(all.latencies, r.latencies...)
			all.want += r.want
			all.read += r.read
			done += batch
			if done == tenth {
				atTenth = benchHeap()
			}
		}
		atAll := benchHeap()
		perCall := func(heap uint64, calls int) float64 { return (float64(heap) - float64(base)) / float64(calls) }
		b.ReportMetric(perCall(atTenth, tenth), side.name+"-heap-B/call@N")
		b.ReportMetric(perCall(atAll, b.N), side.name+"-heap-B/call@10N")
	}
	b.StopTimer()
	b.ReportMetric(float64(w.hub.Streams()), "hub-streams-held")
	reportLatency(b, all)
}

// benchHeap is the live heap after a full collection.
func benchHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
