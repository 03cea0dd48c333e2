package natslive_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/contrib/natslive"
	"github.com/temporaladk/adk-go/contrib/natslive/natstest"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The stand-in model of the benchmark: the pace and the size of
// BenchmarkLiveLatency's in live/bench_test.go, so that the figures
// compare.
const (
	// benchTokenRate is how many tokens a second the stand-in model emits,
	// one per tick of a ticker.
	benchTokenRate = 50
	// benchTokens is how many tokens a MODEL call streams.
	benchTokens = 100

	benchChatType = "BenchNATSChat"
)

// benchEpoch is the origin of the times the stand-in model records and the
// client compares with, on the monotonic clock.
var benchEpoch = time.Now()

// BenchNATSWorkflow is an agent's turn: it asks the stand-in model for
// tokens tokens and returns its reply.
func BenchNATSWorkflow(ctx workflow.Context, tokens int) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute})
	var reply string
	err := workflow.ExecuteActivity(ctx, benchChatType, tokens).Get(ctx, &reply)
	return reply, err
}

// benchModel is the stand-in MODEL activity: it emits "t0 ", "t1 ", … at
// benchTokenRate through providers.ReportText, recording when it reported
// each token in the times given for its workflow's ID.
type benchModel struct {
	mu    sync.Mutex
	times map[string][]atomic.Int64
}

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

// benchSide is a kit worker whose live.Observer publishes to one hub, and
// the SSE handler that serves a screen from another (or the same).
type benchSide struct {
	queue string
	obs   *live.Observer
	web   *httptest.Server
}

// benchConnect is a JetStream context on a connection of its own: a
// process of the fleet.
func benchConnect(b *testing.B, srv *natstest.Server) jetstream.JetStream {
	b.Helper()
	nc, err := nats.Connect(srv.URL)
	require.NoError(b, err)
	b.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(b, err)
	return js
}

// startBenchSide starts a kit worker on queue of its own Temporal client,
// publishing to publish, and serves subscribe over loopback HTTP.
func startBenchSide(b *testing.B, dev *testsuite.DevServer, model *benchModel, queue string, publish, subscribe live.Hub) benchSide {
	b.Helper()
	// The SDK's default logger would print every activity in the output.
	c, err := client.Dial(client.Options{HostPort: dev.Address(), Namespace: dev.Namespace(),
		Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(b, err)
	b.Cleanup(c.Close)
	obs, err := live.NewObserver(publish, live.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { _ = obs.Close() })
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs,
		Activities: map[string]temporaladk.Declaration{benchChatType: {Class: temporaladk.Model}}})
	require.NoError(b, err)
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(BenchNATSWorkflow)
	w.RegisterActivityWithOptions(model.Chat, activity.RegisterOptions{Name: benchChatType})
	require.NoError(b, w.Start())
	b.Cleanup(w.Stop)
	h, err := live.NewHandler(subscribe, live.HandlerOptions{Authorize: func(*http.Request, string) error { return nil }})
	require.NoError(b, err)
	web := httptest.NewServer(h)
	b.Cleanup(web.Close)
	return benchSide{queue: queue, obs: obs, web: web}
}

// benchFleet is the fleet of the benchmarks on the test binary's dev
// server: a side that streams in one process (a MemoryHub) and one that
// streams through NATS JetStream on loopback (the worker's natslive.Hub
// and the web's, each on a NATS connection of its own).
type benchFleet struct {
	dev    *testsuite.DevServer
	meter  *benchkit.CPUMeter
	model  *benchModel
	http   *http.Client
	memory benchSide
	nats   benchSide
	runs   atomic.Int64
}

func newBenchFleet(b *testing.B, ctx context.Context) *benchFleet {
	b.Helper()
	dev := testsuite.DevServerFor(b)
	meter, err := benchkit.NewCPUMeter(dev.PID())
	require.NoError(b, err, "the CPU figures read getrusage and /proc (Linux)")
	nsrv := natstest.Start(b)
	workerHub, err := natslive.New(ctx, benchConnect(b, nsrv), natslive.Options{})
	require.NoError(b, err)
	webHub, err := natslive.New(ctx, benchConnect(b, nsrv), natslive.Options{})
	require.NoError(b, err)
	memory, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(b, err)
	f := &benchFleet{dev: dev, meter: meter, model: &benchModel{times: map[string][]atomic.Int64{}}}
	transport := &http.Transport{MaxIdleConnsPerHost: 200, DisableCompression: true}
	b.Cleanup(transport.CloseIdleConnections)
	f.http = &http.Client{Transport: transport}
	prefix := fmt.Sprintf("bench-nats-%d", time.Now().UnixNano())
	f.memory = startBenchSide(b, dev, f.model, prefix+"-memory", memory, memory)
	f.nats = startBenchSide(b, dev, f.model, prefix+"-nats", workerHub, webHub)
	return f
}

// run runs a turn of agents agents at once on side, each streaming tokens
// tokens to an SSE client of its own: the time from each token's
// ReportText to the client's read, and the test process's CPU from the
// first start request to the last read (nats-server's is not counted).
func (f *benchFleet) run(ctx context.Context, side benchSide, agents, tokens int) (lat []time.Duration, cpu time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := f.runs.Add(1)
	var (
		subscribed, done sync.WaitGroup
		mu               sync.Mutex
		errs             = make(chan error, 2*agents)
	)
	ids := make([]string, agents)
	for a := range ids {
		ids[a] = fmt.Sprintf("%s-%d-%d", side.queue, n, a)
		times := f.model.expect(ids[a], tokens)
		defer f.model.forget(ids[a])
		subscribed.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			l, err := benchClient(ctx, f.http, side.web.URL+"?stream="+ids[a], times, subscribed.Done)
			if err == nil && len(l) != tokens {
				err = fmt.Errorf("agent %s: the client read %d of %d tokens", ids[a], len(l), tokens)
			}
			if err != nil {
				errs <- err
			}
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, l...)
		}()
	}
	subscribed.Wait()
	start, _, err := f.meter.Read()
	if err != nil {
		return nil, 0, err
	}
	for _, id := range ids {
		done.Add(1)
		go func() {
			defer done.Done()
			run, err := f.dev.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: side.queue}, BenchNATSWorkflow, tokens)
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
	end, _, err := f.meter.Read()
	if err != nil {
		return nil, 0, err
	}
	close(errs)
	if err := <-errs; err != nil {
		return nil, 0, err
	}
	return lat, end - start, nil
}

// BenchmarkLiveNATSLatency: one agent's MODEL call streams benchTokens
// tokens at benchTokenRate through providers.ReportText in a real activity
// under the kit on the dev server, to one SSE client of live.NewHandler
// over loopback HTTP: in one process (a MemoryHub), and through NATS
// JetStream on loopback, the two in turns (b.N pairs, memory first in
// even pairs). Over every token, the time from ReportText to the client's
// read, per side; the test process's CPU per turn, per side.
func BenchmarkLiveNATSLatency(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	f := newBenchFleet(b, ctx)
	sides := []benchSide{f.memory, f.nats}
	names := []string{"memory", "nats"}
	for _, side := range sides {
		_, _, err := f.run(ctx, side, 1, benchTokens)
		require.NoError(b, err, "warm-up")
	}
	lat := make([][]time.Duration, len(sides))
	cpu := make([][]float64, len(sides))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		for j := range sides {
			s := (i + j) % len(sides)
			l, c, err := f.run(ctx, sides[s], 1, benchTokens)
			require.NoError(b, err, names[s])
			lat[s] = append(lat[s], l...)
			cpu[s] = append(cpu[s], float64(c)/float64(time.Millisecond))
		}
	}
	b.StopTimer()
	var p50 [2]float64
	for s, name := range names {
		p50[s] = benchPercentile(lat[s], 0.50)
		b.ReportMetric(p50[s], name+"-p50-token-to-read-ms")
		b.ReportMetric(benchPercentile(lat[s], 0.99), name+"-p99-token-to-read-ms")
		sum, err := benchkit.Summarize(cpu[s])
		require.NoError(b, err)
		b.ReportMetric(sum.Median, name+"-cpu-ms/turn")
		b.ReportMetric(float64(sides[s].obs.Dropped()), name+"-observer-dropped")
	}
	b.ReportMetric(p50[1]/p50[0], "p50-nats/memory")
	b.ReportMetric(float64(len(lat[0])), "tokens-read/side")
	b.ReportMetric(float64(benchUnavailable.Load()), "subscribe-503s")
}

// The calls of BenchmarkLiveNATSHeap: benchHeapBatch at once, each an
// agent of its own streaming benchHeapTokens tokens.
const (
	benchHeapTokens = 10
	benchHeapBatch  = 10
)

// BenchmarkLiveNATSHeap runs b.N calls on the NATS side (the worker's hub
// keeps nothing: the streams are in JetStream), one SSE client each, and
// reports the process's heap after a GC, as bytes per call over the first
// tenth of the calls (N) and over all of them (10N): flat per call if
// nothing a call leaves behind stays, neither in the worker nor in the
// web's subscriptions.
func BenchmarkLiveNATSHeap(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	f := newBenchFleet(b, ctx)
	_, _, err := f.run(ctx, f.nats, benchHeapBatch, benchHeapTokens)
	require.NoError(b, err, "warm-up")
	tenth := max(1, b.N/10)
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	base := benchHeap()
	var atTenth uint64
	for done := 0; done < b.N; {
		batch := min(benchHeapBatch, b.N-done)
		if done < tenth {
			batch = min(batch, tenth-done)
		}
		l, _, err := f.run(ctx, f.nats, batch, benchHeapTokens)
		require.NoError(b, err)
		lat = append(lat, l...)
		done += batch
		if done == tenth {
			atTenth = benchHeap()
		}
	}
	atAll := benchHeap()
	b.StopTimer()
	perCall := func(heap uint64, calls int) float64 { return (float64(heap) - float64(base)) / float64(calls) }
	b.ReportMetric(perCall(atTenth, tenth), "nats-heap-B/call@N")
	b.ReportMetric(perCall(atAll, b.N), "nats-heap-B/call@10N")
	b.ReportMetric(benchPercentile(lat, 0.50), "p50-token-to-read-ms")
	b.ReportMetric(benchPercentile(lat, 0.99), "p99-token-to-read-ms")
	b.ReportMetric(float64(f.nats.obs.Dropped()), "observer-dropped")
	b.ReportMetric(float64(benchUnavailable.Load()), "subscribe-503s")
}

// benchHeap is the live heap after a full collection.
func benchHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchPercentile is the nearest-rank p-th percentile of ds, in ms.
func benchPercentile(ds []time.Duration, p float64) float64 {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	i := int(float64(len(sorted))*p+0.999999) - 1
	return float64(sorted[max(0, min(i, len(sorted)-1))]) / float64(time.Millisecond)
}

// benchSubscribeTries is how many times a client asks for a stream that
// answers 503; benchUnavailable counts the 503s.
const benchSubscribeTries = 5

var benchUnavailable atomic.Int64

// benchClient reads the stream at url as a screen would, until [DONE]: for
// each text-delta of a token it reads, the time since the model reported
// it. It calls subscribed once it has subscribed (or failed).
func benchClient(ctx context.Context, hc *http.Client, url string, times []atomic.Int64, subscribed func()) ([]time.Duration, error) {
	once := sync.OnceFunc(subscribed)
	defer once()
	var resp *http.Response
	for try := 1; ; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		if resp, err = hc.Do(req); err != nil {
			return nil, err
		}
		// A Subscribe that NATS did not answer within natslive's Timeout
		// is a 503; a page tries again, and so does the client, counted.
		if resp.StatusCode != http.StatusServiceUnavailable || try == benchSubscribeTries {
			break
		}
		resp.Body.Close()
		benchUnavailable.Add(1)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	// The handler subscribes before it answers.
	once()
	lat := make([]time.Duration, 0, len(times))
	r := bufio.NewReader(resp.Body)
	marker := []byte(`"delta":"t`)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the stream ended before [DONE]")
			}
			return lat, err
		}
		if bytes.Equal(line, []byte("data: [DONE]\n")) {
			_, _ = io.Copy(io.Discard, r)
			return lat, nil
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
	}
}
