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
	b, err := blob.Open(ctx, os.Getenv(bucketEnv))
	if err != nil {
		return fail(err)
	}
	defer b.Close()
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
	if err := w.Start(); err != nil {
		return fail(err)
	}
	fmt.Println("started")
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	if err := json.NewEncoder(os.Stdout).Encode(workerReport{PID: os.Getpid(), ModelCalls: modelCalls.Load(), Stats: store.Stats()}); err != nil {
		return fail(err)
	}
	return 0
}

type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startWorkerProcess(t *testing.T, queue, hostPort, namespace, bucketURL string, cacheBytes int64) *workerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), workerEnv+"="+queue, hostPortEnv+"="+hostPort, namespaceEnv+"="+namespace, bucketEnv+"="+bucketURL,
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
		startWorkerProcess(t, q, srv.Address(), srv.Namespace(), url, cacheBytes),
		startWorkerProcess(t, q, srv.Address(), srv.Namespace(), url, cacheBytes),
	}
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	require.NoError(t, err)
	opts, err := store.ClientOptions(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), Logger: quietLogger()})
	require.NoError(t, err)
	c, err := client.Dial(opts)
	require.NoError(t, err)
	defer c.Close()

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
