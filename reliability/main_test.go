package reliability_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/testsuite"
)

// The environment of a worker process: workerEnv selects the role, the
// others say where to work.
const (
	workerEnv    = "RELIABILITY_WORKER"
	addressEnv   = "RELIABILITY_ADDRESS"
	namespaceEnv = "RELIABILITY_NAMESPACE"
	queueEnv     = "RELIABILITY_TASK_QUEUE"
	ledgerEnv    = "RELIABILITY_LEDGER"
	// roleEnv says what the worker process runs (a processRole); unset is
	// roleKit.
	roleEnv = "RELIABILITY_ROLE"
	// gateEnv names a file the first attempt of Fetch waits for.
	gateEnv = "RELIABILITY_GATE"
	// stickyOffEnv, set to 1, turns the worker process's sticky cache
	// off, so that every workflow task goes to the task queue any worker
	// polls.
	stickyOffEnv = "RELIABILITY_STICKY_OFF"
	// fleetEnv, set to 1, gives a kit worker process interceptors.Options.Fleet:
	// it reads its task queue's pollers every fleetInterval and prints each
	// Error line of the kit's fleet report as "FLEET {json string}".
	fleetEnv = "RELIABILITY_FLEET"
)

// fleetInterval is how often a worker process with fleetEnv reads its
// queue's pollers.
const fleetInterval = 500 * time.Millisecond

// processRole is what a worker process runs.
type processRole string

const (
	// roleKit is a worker with the kit, configured with kitOptions.
	roleKit processRole = "kit"
	// roleKitB is a worker with the kit, configured with kitOptionsB: the
	// options a deploy changed.
	roleKitB processRole = "kit-b"
	// roleKitDropped is a worker with the kit, configured with
	// kitOptionsDropped: kitOptionsB without Fetch's declaration.
	roleKitDropped processRole = "kit-dropped"
	// rolePlain is a worker without the kit, running workflows and
	// activities: the version before the kit, in a rolling deploy.
	rolePlain processRole = "plain"
	// rolePlainWorkflows is a worker without the kit that runs workflows
	// only: every activity runs on a kit worker.
	rolePlainWorkflows processRole = "plain-workflows"
	// roleKitWorkflows is a worker with the kit that runs workflows only.
	roleKitWorkflows processRole = "kit-workflows"
	// roleKitActivities is a worker with the kit that runs activities
	// only.
	roleKitActivities processRole = "kit-activities"
	// rolePlainActivities is a worker without the kit that runs activities
	// only.
	rolePlainActivities processRole = "plain-activities"
	// roleKitTwicePlugin registers the kit's plugin twice in
	// worker.Options.Plugins.
	roleKitTwicePlugin processRole = "kit-twice-plugin"
	// roleKitTwiceMixed registers the kit's plugin on the worker's client
	// and on the worker too.
	roleKitTwiceMixed processRole = "kit-twice-mixed"
)

// kit reports whether the role runs the kit, and with which options.
func (r processRole) kit() (interceptors.Options, bool, error) {
	switch r {
	case roleKit, roleKitWorkflows, roleKitActivities, roleKitTwicePlugin, roleKitTwiceMixed:
		return kitOptions(), true, nil
	case roleKitB:
		return kitOptionsB(), true, nil
	case roleKitDropped:
		return kitOptionsDropped(), true, nil
	case rolePlain, rolePlainWorkflows, rolePlainActivities:
		return interceptors.Options{}, false, nil
	}
	return interceptors.Options{}, false, fmt.Errorf("unknown %s %q", roleEnv, r)
}

// TestMain runs the tests, or, when the binary was re-executed with
// workerEnv set, a worker process instead.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(runWorkerProcess())
	}
	os.Exit(m.Run())
}

// runWorkerProcess is a worker in the role roleEnv names (the kit with
// kitOptions unless told otherwise) on the server and task queue the
// environment names. Its identity is "<role>-<pid>". Its activities' events
// go to stdout as "EVENT {json}" lines; "READY" says the worker polls. On
// "memory" from stdin it prints "MEMORY {json}", on "metrics" the counters
// its client's metrics handler counted as "METRICS {json}", on "sync" the
// line "SYNCED" (after every event it printed before); it exits when stdin
// closes (the test ended, or died).
func runWorkerProcess() int {
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	peak := startMemorySampler()
	role := processRole(os.Getenv(roleEnv))
	if role == "" {
		role = roleKit
	}
	opts, withKit, err := role.kit()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	emit := func(ev Event) {
		b, _ := json.Marshal(ev)
		say("EVENT %s", b)
	}
	// The kit's observer reports every attempt the kit served, also one
	// it ended before the activity's code ran, so that a test can tell an
	// attempt the server started from one whose code ran.
	opts.Observer = attemptReporter{emit: emit}
	counts := newCountingMetrics()
	c, err := client.Dial(client.Options{HostPort: os.Getenv(addressEnv), Namespace: os.Getenv(namespaceEnv), Logger: quietLogger(), MetricsHandler: counts})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process: dial:", err)
		return 2
	}
	defer c.Close()
	wopts := worker.Options{
		Identity: fmt.Sprintf("%s-%d", role, os.Getpid()),
		// A dead worker's sticky queue is given up after a second, not five.
		StickyScheduleToStartTimeout: time.Second,
		// Scheduling a 1,000-call fan-out is one workflow task, which under
		// -race on a loaded 2-core machine ran past the SDK's 1s deadlock
		// detector once; the load test gives that task a minute, and so
		// does the detector.
		DeadlockDetectionTimeout: time.Minute,
	}
	if withKit {
		if os.Getenv(fleetEnv) == "1" {
			opts.Fleet = interceptors.FleetOptions{Client: c, Logger: fleetLogger{say: say}, MetricsHandler: counts, Interval: fleetInterval}
		}
		kit, err := interceptors.NewPlugin(opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, "worker process:", err)
			return 2
		}
		switch role {
		case roleKitTwicePlugin:
			wopts.Plugins = append(wopts.Plugins, kit, kit)
		case roleKitTwiceMixed:
			if c, err = client.NewClientFromExisting(c, client.Options{Plugins: []client.Plugin{kit}}); err != nil {
				fmt.Fprintln(os.Stderr, "worker process:", err)
				return 2
			}
			wopts.Plugins = append(wopts.Plugins, kit)
		default:
			wopts.Plugins = append(wopts.Plugins, kit)
		}
	}
	if os.Getenv(stickyOffEnv) == "1" {
		worker.SetStickyWorkflowCacheSize(0)
	}
	// A worker that runs workflows only must not poll for activity tasks:
	// it would fail each one it got as not registered.
	workflowsOnly := role == rolePlainWorkflows || role == roleKitWorkflows
	activitiesOnly := role == rolePlainActivities || role == roleKitActivities
	wopts.LocalActivityWorkerOnly = workflowsOnly
	wopts.DisableWorkflowWorker = activitiesOnly
	w := worker.New(c, os.Getenv(queueEnv), wopts)
	if !activitiesOnly {
		registerWorkflows(w)
	}
	if !workflowsOnly {
		w.RegisterActivity(&Agent{
			ledger: os.Getenv(ledgerEnv),
			gate:   os.Getenv(gateEnv),
			emit:   emit,
		})
	}
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "worker process: start:", err)
		return 2
	}
	defer w.Stop()
	say("READY")
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		switch scanner.Text() {
		case "memory":
			b, _ := json.Marshal(peak())
			say("MEMORY %s", b)
		case "metrics":
			b, _ := json.Marshal(counts.snapshot())
			say("METRICS %s", b)
		case "sync":
			say("SYNCED")
		}
	}
	return 0
}

// fleetLogger is a worker process's FleetOptions.Logger: each Error line
// goes to stdout as "FLEET {json string}"; the rest is dropped.
type fleetLogger struct {
	say func(format string, args ...any)
}

func (fleetLogger) Debug(string, ...any) {}
func (fleetLogger) Info(string, ...any)  {}
func (fleetLogger) Warn(string, ...any)  {}
func (l fleetLogger) Error(msg string, _ ...any) {
	b, _ := json.Marshal(msg)
	l.say("FLEET %s", b)
}

// attemptReporter is a worker process's kit observer: an "ended" event for
// each attempt the kit served, written before the attempt's outcome goes
// to the server.
type attemptReporter struct {
	observe.Base
	emit func(Event)
}

func (r attemptReporter) AttemptEnded(_ context.Context, a observe.Attempt, out observe.Outcome) {
	r.emit(Event{Kind: "ended", Activity: a.ActivityType, Workflow: a.WorkflowID, ActivityID: a.ActivityID,
		Attempt: a.Number, BudgetCall: a.BudgetCall, ErrorType: out.ErrorType, PID: os.Getpid(), Time: time.Now()})
}

// Memory is a worker process's peak memory.
type Memory struct {
	// PeakHeapInuse is the largest runtime.MemStats.HeapInuse sampled every
	// 20ms, in bytes.
	PeakHeapInuse uint64
	// PeakSys is the largest runtime.MemStats.Sys sampled, in bytes.
	PeakSys uint64
	// VmHWMKiB is the process's peak resident set size from
	// /proc/self/status, or 0 where there is no /proc.
	VmHWMKiB uint64
}

// startMemorySampler samples the runtime's memory every 20ms and returns a
// function that reports the peaks.
func startMemorySampler() func() Memory {
	var mu sync.Mutex
	var m Memory
	sample := func() {
		var s runtime.MemStats
		runtime.ReadMemStats(&s)
		mu.Lock()
		m.PeakHeapInuse = max(m.PeakHeapInuse, s.HeapInuse)
		m.PeakSys = max(m.PeakSys, s.Sys)
		mu.Unlock()
	}
	go func() {
		for range time.Tick(20 * time.Millisecond) {
			sample()
		}
	}()
	return func() Memory {
		sample()
		mu.Lock()
		defer mu.Unlock()
		out := m
		out.VmHWMKiB = vmHWM()
		return out
	}
}

// vmHWM reads the peak resident set size in KiB from /proc/self/status.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// workerProcess is a worker running in a child process.
type workerProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  interface{ Write([]byte) (int, error) }
	events chan Event
	memory chan Memory
	counts chan []countedMetric
	synced chan struct{}
	// reports are the kit's fleet report lines (fleetEnv).
	reports chan string
	// identity is the worker's identity, as the server records it.
	identity string
	ready    chan struct{}
	done     chan struct{} // closed when the process has exited
	stderr   *syncBuffer
}

// startWorkerProcess re-executes the test binary as a worker on srv and
// taskQueue, and waits until it polls. ledger is the effect ledger file, if
// any. The process is killed at the end of the test if it still runs.
func startWorkerProcess(t *testing.T, srv *testsuite.DevServer, taskQueue, ledger string) *workerProcess {
	t.Helper()
	return startRoleProcess(t, srv, taskQueue, roleKit, ledgerEnv+"="+ledger)
}

// startRoleProcess is startWorkerProcess for a worker in role, with env
// ("NAME=value") added to its environment.
func startRoleProcess(t *testing.T, srv *testsuite.DevServer, taskQueue string, role processRole, env ...string) *workerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		workerEnv+"=1", addressEnv+"="+srv.Address(), namespaceEnv+"="+srv.Namespace(),
		queueEnv+"="+taskQueue, roleEnv+"="+string(role))
	cmd.Env = append(cmd.Env, env...)
	p := &workerProcess{
		t: t, cmd: cmd, events: make(chan Event, 16384), memory: make(chan Memory, 1), counts: make(chan []countedMetric, 1), synced: make(chan struct{}, 1),
		reports: make(chan string, 1024),
		ready:   make(chan struct{}), done: make(chan struct{}), stderr: &syncBuffer{},
	}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	p.stdin = stdin
	require.NoError(t, cmd.Start())
	p.identity = fmt.Sprintf("%s-%d", role, cmd.Process.Pid)
	if _, withKit, _ := role.kit(); withKit {
		// The kit's plugin marks the identity of every worker it configures.
		p.identity += interceptors.IdentityMark
	}
	go func() {
		defer close(p.done)
		scanner := bufio.NewScanner(stdout)
		scanner.Buffer(make([]byte, 64*1024), 1024*1024)
		for scanner.Scan() {
			line := scanner.Text()
			switch {
			case line == "READY":
				close(p.ready)
			case line == "SYNCED":
				p.synced <- struct{}{}
			case strings.HasPrefix(line, "EVENT "):
				var ev Event
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "EVENT ")), &ev) == nil {
					p.events <- ev
				}
			case strings.HasPrefix(line, "FLEET "):
				var msg string
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "FLEET ")), &msg) == nil {
					select {
					case p.reports <- msg:
					default: // a full buffer drops the report; tests wait for the first ones
					}
				}
			case strings.HasPrefix(line, "MEMORY "):
				var m Memory
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "MEMORY ")), &m) == nil {
					p.memory <- m
				}
			case strings.HasPrefix(line, "METRICS "):
				var m []countedMetric
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "METRICS ")), &m) == nil {
					p.counts <- m
				}
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case <-p.ready:
	case <-p.done:
		t.Fatalf("the worker process exited before it polled:\n%s", p.stderr.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the worker process did not poll within a minute:\n%s", p.stderr.String())
	}
	return p
}

// next returns the process's next event of kind, failing the test after
// timeout.
func (p *workerProcess) next(kind string, timeout time.Duration) Event {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-p.events:
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			p.t.Fatalf("no %q event from the worker process within %v:\n%s", kind, timeout, p.stderr.String())
		}
	}
}

// nextReport returns the process's next fleet report that contains every
// one of want, failing the test after timeout.
func (p *workerProcess) nextReport(timeout time.Duration, want ...string) string {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case msg := <-p.reports:
			if containsAll(msg, want) {
				return msg
			}
		case <-deadline:
			p.t.Fatalf("no fleet report containing %q from the worker process within %v:\n%s", want, timeout, p.stderr.String())
		}
	}
}

// reportsSoFar returns the fleet reports received so far.
func (p *workerProcess) reportsSoFar() []string {
	var out []string
	for {
		select {
		case msg := <-p.reports:
			out = append(out, msg)
		default:
			return out
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// kill sends SIGKILL (os.Process.Kill) and waits until the process is gone.
func (p *workerProcess) kill() {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Kill())
	<-p.done
}

// peakMemory asks the process for its peak memory.
func (p *workerProcess) peakMemory() Memory {
	p.t.Helper()
	_, err := p.stdin.Write([]byte("memory\n"))
	require.NoError(p.t, err)
	select {
	case m := <-p.memory:
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("the worker process did not report its memory:\n%s", p.stderr.String())
	}
	return Memory{}
}

// metrics asks the process for the counters its metrics handler counted,
// with their tags.
func (p *workerProcess) metrics() []countedMetric {
	p.t.Helper()
	_, err := p.stdin.Write([]byte("metrics\n"))
	require.NoError(p.t, err)
	select {
	case m := <-p.counts:
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("the worker process did not report its metrics:\n%s", p.stderr.String())
	}
	return nil
}

// sync waits until every event the process printed before now is in
// p.events: stdout is one ordered stream, read by one goroutine, so the
// SYNCED line it asks for arrives after them.
func (p *workerProcess) sync() {
	p.t.Helper()
	_, err := p.stdin.Write([]byte("sync\n"))
	require.NoError(p.t, err)
	select {
	case <-p.synced:
	case <-p.done:
		p.t.Fatalf("the worker process exited before it synced:\n%s", p.stderr.String())
	}
}

// drain returns the events received so far.
func (p *workerProcess) drain() []Event {
	var out []Event
	for {
		select {
		case ev := <-p.events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// startServer starts a dev server for one test, on loopback, stopped in
// t.Cleanup. dbFile, if not empty, keeps its state across Restart.
func startServer(t *testing.T, dbFile string) *testsuite.DevServer {
	t.Helper()
	return testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: dbFile, ClientOptions: client.Options{Logger: quietLogger()}})
}

// startInProcessWorker runs a worker with the kit in the test process; the
// activities' events go to log.
func startInProcessWorker(t *testing.T, c client.Client, taskQueue string, agent *Agent) {
	t.Helper()
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	w := worker.New(c, taskQueue, worker.Options{Plugins: []worker.Plugin{kit}})
	registerWorkflows(w)
	w.RegisterActivity(agent)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

// taskQueue names a task queue after the test.
func taskQueue(t *testing.T) string {
	return "reliability-" + strings.ReplaceAll(t.Name(), "/", "-")
}

// history reads a run's whole history.
func history(t *testing.T, c client.Client, run client.WorkflowRun) []*historypb.HistoryEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	return h.GetEvents()
}

// assertReplays records the run's history to a file and replays it with the
// kit's plugin, as a replay test after a code change would: the faults must
// not have left a history the code cannot reproduce.
func assertReplays(t *testing.T, c client.Client, run client.WorkflowRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "history.json")
	require.NoError(t, testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), path))
	plugin, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayFile(path, testsuite.ReplayOptions{Workflows: replayWorkflows(), Plugins: []worker.Plugin{plugin}}),
		"the history replays with the kit")
}

// figure logs a measured figure in one greppable line, for RELIABILITY.md.
func figure(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("FIGURE %s: "+format, append([]any{t.Name()}, args...)...)
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// quietLogger is the SDK's logger with every line dropped: a restart, a
// kill or a failing attempt makes the SDK log each failed poll and each
// activity error, which is the fault working as injected, not news. The
// tests assert on what happened instead.
func quietLogger() log.Logger {
	if os.Getenv("TEMPORALADK_TEST_LOG") != "" {
		// For a look at what the workers did: warnings and errors to stderr.
		return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	return log.NewStructuredLogger(slog.New(slog.DiscardHandler))
}
