package blob_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/contrib/blob"
	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

const (
	workerEnv    = "TEMPORALADK_BLOB_WORKER" // the task queue
	hostPortEnv  = "TEMPORALADK_BLOB_HOSTPORT"
	namespaceEnv = "TEMPORALADK_BLOB_NAMESPACE"
	bucketEnv    = "TEMPORALADK_BLOB_BUCKET"
	cacheEnv     = "TEMPORALADK_BLOB_CACHE"
	// activitiesEnv, if set, is a second task queue the process polls for
	// activities only.
	activitiesEnv = "TEMPORALADK_BLOB_ACTIVITIES"
)

// fleetTurns is the fleet run's length: TEMPORALADK_PAYLOADS_TURNS, or 100.
// Each worker's cache is 4 MiB for 100 turns, so that reads reach S3, and
// the default 64 MiB beyond.
func fleetTurns(t *testing.T) (turns int, cacheBytes int64) {
	s := os.Getenv("TEMPORALADK_PAYLOADS_TURNS")
	if s == "" {
		return 100, 4 << 20
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	if n <= 100 {
		return n, 4 << 20
	}
	return n, payloads.DefaultCacheBytes
}

// workerReport is what a worker process says when it stops.
type workerReport struct {
	PID        int
	ModelCalls int64
	Stats      payloads.Stats
	// SegmentsRead and SegmentsWritten count the conversation log segments
	// the process fetched from and wrote to the bucket.
	SegmentsRead, SegmentsWritten int64
}

// segmentPrefix begins the bucket key of a conversation log's segment (the
// core's internal/logref.SegmentPrefix, which a contrib module does not
// import).
const segmentPrefix = "segments/"

// countingBucket counts the segments read from and written to its bucket.
type countingBucket struct {
	payloads.Bucket
	read, written atomic.Int64
}

func (b *countingBucket) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, segmentPrefix) {
		b.read.Add(1)
	}
	return b.Bucket.Get(ctx, key)
}

func (b *countingBucket) Put(ctx context.Context, key string, data []byte) error {
	if strings.HasPrefix(key, segmentPrefix) {
		b.written.Add(1)
	}
	return b.Bucket.Put(ctx, key, data)
}

// dialStore returns a client of srv whose DataConverter and storage are a
// kit payload store on bucket, closed when the test ends.
func dialStore(t *testing.T, srv *testsuite.DevServer, bucket payloads.Bucket) client.Client {
	t.Helper()
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	require.NoError(t, err)
	opts, err := store.ClientOptions(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quietLogger()})
	require.NoError(t, err)
	c, err := client.Dial(opts)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// workerProcess runs one worker of the fleet on the bucket until its stdin
// closes, then prints its report.
func workerProcess() int {
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	opened, err := blob.Open(ctx, os.Getenv(bucketEnv))
	if err != nil {
		return fail(err)
	}
	defer opened.Close()
	b := &countingBucket{Bucket: opened}
	cacheBytes, err := strconv.ParseInt(os.Getenv(cacheEnv), 10, 64)
	if err != nil {
		return fail(err)
	}
	store, err := payloads.NewStore(payloads.Options{Bucket: b, CacheBytes: cacheBytes})
	if err != nil {
		return fail(err)
	}
	opts, err := store.ClientOptions(client.Options{HostPort: os.Getenv(hostPortEnv), Namespace: os.Getenv(namespaceEnv), Logger: quietLogger()})
	if err != nil {
		return fail(err)
	}
	c, err := client.Dial(opts)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	w := worker.New(c, os.Getenv(workerEnv), worker.Options{})
	w.RegisterWorkflow(Agent)
	w.RegisterActivity(Search)
	w.RegisterActivity(Model)
	w.RegisterWorkflow(LogAgent)
	w.RegisterActivity(LogModel)
	if err := w.Start(); err != nil {
		return fail(err)
	}
	if q := os.Getenv(activitiesEnv); q != "" {
		acts := worker.New(c, q, worker.Options{})
		acts.RegisterActivity(Search)
		acts.RegisterActivity(Model)
		acts.RegisterActivity(LogModel)
		if err := acts.Start(); err != nil {
			return fail(err)
		}
		defer acts.Stop()
	}
	fmt.Println("started")
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	if err := json.NewEncoder(os.Stdout).Encode(workerReport{PID: os.Getpid(), ModelCalls: modelCalls.Load(), Stats: store.Stats(),
		SegmentsRead: b.read.Load(), SegmentsWritten: b.written.Load()}); err != nil {
		return fail(err)
	}
	return 0
}

type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startWorkerProcess starts a worker process of the fleet on queue, and on
// activities for activities only when it is not "".
func startWorkerProcess(t *testing.T, queue, activities, hostPort, namespace, bucketURL string, cacheBytes int64) *workerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), workerEnv+"="+queue, activitiesEnv+"="+activities, hostPortEnv+"="+hostPort, namespaceEnv+"="+namespace, bucketEnv+"="+bucketURL,
		cacheEnv+"="+strconv.FormatInt(cacheBytes, 10))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &workerProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	p.out.Buffer(make([]byte, 1<<20), 1<<20)
	require.True(t, p.out.Scan(), "worker process did not start")
	require.Equal(t, "started", p.out.Text())
	return p
}

func (p *workerProc) stop(t *testing.T) workerReport {
	t.Helper()
	require.NoError(t, p.stdin.Close())
	require.True(t, p.out.Scan(), "worker process printed no report")
	var r workerReport
	require.NoError(t, json.Unmarshal(p.out.Bytes(), &r))
	require.NoError(t, p.cmd.Wait())
	return r
}

// Two worker processes share one bucket on a real S3-compatible server
// (versitygw) and run a conversation of 100 turns (TEMPORALADK_PAYLOADS_TURNS)
// with 50 KB tool
// outputs past the inline limit, with the same per-turn properties as on a
// local directory.
func TestFleetOfTwoWorkersSharesAnS3Bucket(t *testing.T) {
	const toolBytes = 50_000
	turns, cacheBytes := fleetTurns(t)
	ctx := testsuite.Context(t)
	bucket, s3 := s3Bucket(t)
	srv := testsuite.DevServerFor(t)
	q := fmt.Sprintf("fleet-%d", time.Now().UnixNano())
	url := s3.URL("payloads")
	workers := []*workerProc{
		startWorkerProcess(t, q, "", srv.Address(), srv.Namespace(), url, cacheBytes),
		startWorkerProcess(t, q, "", srv.Address(), srv.Namespace(), url, cacheBytes),
	}
	c := dialStore(t, srv, bucket)

	started := time.Now()
	// Either process may take the run over from the other and replay it
	// whole in one workflow task, which encodes every model input again: 2
	// minutes (the server's largest timeout), not the 10 s default, which
	// the replay of 100 turns outlasts under the race detector (package
	// payloads, "A worker that takes a run over").
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: q, ID: q, WorkflowTaskTimeout: 2 * time.Minute}, Agent, AgentInput{Turns: turns, ToolBytes: toolBytes})
	require.NoError(t, err)
	var res AgentResult
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &res))
	elapsed := time.Since(started)
	require.Equal(t, turns, res.Turns)

	var read, decoded int64
	for i, w := range workers {
		r := w.stop(t)
		t.Logf("worker %d (pid %d): %d model calls; read %d bytes from S3 for %d decoded; wrote %d", i, r.PID, r.ModelCalls, r.Stats.BytesRead, r.Stats.BytesDecoded, r.Stats.BytesWritten)
		require.Positive(t, r.ModelCalls, "worker %d ran no model call", i)
		read += r.Stats.BytesRead
		decoded += r.Stats.BytesDecoded
	}
	desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	historyBytes := desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
	var stored int64
	require.NoError(t, bucket.List(ctx, "", func(o payloads.Object) error { stored += o.Size; return nil }))
	t.Logf("fleet on S3: %d turns in %v; history %d bytes (%d per turn); bucket %d bytes for a %d-byte conversation (%.3f×); read %d for %d decoded (%.3f×)",
		turns, elapsed.Round(time.Millisecond), historyBytes, historyBytes/int64(turns), stored, res.ConversationBytes, float64(stored)/float64(res.ConversationBytes), read, decoded, float64(read)/float64(decoded))
	require.LessOrEqual(t, historyBytes/int64(turns), int64(4096))
	require.LessOrEqual(t, float64(stored), 1.5*float64(res.ConversationBytes))
	require.Positive(t, read)
	require.LessOrEqual(t, float64(read), 2*float64(decoded))
}

// Two worker processes share one bucket on a real S3-compatible server
// (versitygw) and run the agent with its conversation in a
// conversation.Log: two runs of half of 60 turns (TEMPORALADK_PAYLOADS_TURNS)
// each, with 50 KB tool outputs, at once. Each
// run's workflow is on one process and its activities on the other, so each
// process writes the segments of one run and reads those of the other, and
// only those (its cache holds what it wrote); every model call's input is
// the Log's head, and the bucket holds each segment once.
func TestFleetOfTwoWorkersSharesALogOnS3(t *testing.T) {
	const toolBytes = 50_000
	turns, _ := fleetTurns(t)
	if os.Getenv("TEMPORALADK_PAYLOADS_TURNS") == "" {
		turns = 60 // about 10 s under the race detector, for CI
	}
	turns /= 2
	ctx := testsuite.Context(t)
	bucket, s3 := s3Bucket(t)
	srv := testsuite.DevServerFor(t)
	q := fmt.Sprintf("fleet-log-%d", time.Now().UnixNano())
	url := s3.URL("payloads")
	queues := []string{q + "-0", q + "-1"}
	// Process i runs run i's workflow and run 1-i's activities. Caches that
	// hold the whole run, so that a process reads from S3 only what the
	// other wrote.
	workers := []*workerProc{
		startWorkerProcess(t, queues[0], queues[1]+"-activities", srv.Address(), srv.Namespace(), url, payloads.DefaultCacheBytes),
		startWorkerProcess(t, queues[1], queues[0]+"-activities", srv.Address(), srv.Namespace(), url, payloads.DefaultCacheBytes),
	}
	c := dialStore(t, srv, bucket)

	started := time.Now()
	runs := make([]client.WorkflowRun, len(queues))
	for i, wq := range queues {
		var err error
		runs[i], err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: wq, ID: wq, WorkflowTaskTimeout: 2 * time.Minute}, LogAgent,
			AgentInput{Turns: turns, ToolBytes: toolBytes, Name: wq, ActivityQueue: wq + "-activities"})
		require.NoError(t, err)
	}
	var conversationBytes int
	for _, run := range runs {
		var res AgentResult
		require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &res))
		require.Equal(t, turns, res.Turns)
		conversationBytes += res.ConversationBytes
	}
	elapsed := time.Since(started)

	reports := make([]workerReport, len(workers))
	var written int64
	for i, w := range workers {
		reports[i] = w.stop(t)
		r := reports[i]
		t.Logf("worker %d (pid %d): %d model calls; read %d segments and %d bytes from S3; wrote %d segments and %d bytes", i, r.PID, r.ModelCalls, r.SegmentsRead, r.Stats.BytesRead, r.SegmentsWritten, r.Stats.BytesWritten)
		require.Equal(t, int64(turns), r.ModelCalls, "worker %d ran the other run's model calls", i)
		written += r.SegmentsWritten
	}
	// A segment per Append handed over: all but the last answer, which no
	// call sends.
	perRun := int64(2 * turns)
	for i, r := range reports {
		require.Equal(t, perRun, r.SegmentsWritten, "worker %d wrote its run's segments, once", i)
		require.Positive(t, r.SegmentsRead, "worker %d read none of the segments the other wrote", i)
		require.LessOrEqual(t, r.SegmentsRead, reports[1-i].SegmentsWritten, "worker %d read a segment twice", i)
	}
	var segments, stored int64
	require.NoError(t, bucket.List(ctx, segmentPrefix, func(o payloads.Object) error { segments++; return nil }))
	require.NoError(t, bucket.List(ctx, "", func(o payloads.Object) error { stored += o.Size; return nil }))
	require.Equal(t, 2*perRun, segments)

	var largest int
	var historyBytes int64
	for _, run := range runs {
		h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
		require.NoError(t, err)
		for _, call := range testsuite.ScheduledActivities(h.GetEvents(), "LogModel") {
			for _, p := range call.GetInput().GetPayloads() {
				largest = max(largest, len(p.GetData()))
			}
		}
		desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
		require.NoError(t, err)
		historyBytes += desc.GetWorkflowExecutionInfo().GetHistorySizeBytes()
	}
	t.Logf("fleet on S3 with a Log: 2 runs of %d turns at once in %v; history %d bytes per turn; largest model input %d bytes; bucket %d bytes for %d bytes of conversations (%.3f×)",
		turns, elapsed.Round(time.Millisecond), historyBytes/int64(2*turns), largest, stored, conversationBytes, float64(stored)/float64(conversationBytes))
	require.Less(t, largest, 400, "every model input is the Log's head")
	require.LessOrEqual(t, historyBytes/int64(2*turns), int64(4096))
	require.LessOrEqual(t, float64(stored), 2.5*float64(conversationBytes))
}
