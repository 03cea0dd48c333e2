package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/devserver"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// Book pays for a seat with the tool PaySeat, which waits for a signed
// approval, and reports what became of it.
func Book(ctx workflow.Context, seat string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var booked string
	err := workflow.ExecuteActivity(ctx, "PaySeat", seat).Get(ctx, &booked)
	var denied *temporaladk.ApprovalDeniedError
	if errors.As(err, &denied) {
		return "denied by " + denied.Approver + ": " + denied.Reason, nil
	}
	return booked, err
}

// seats is the tool: it counts its runs per seat.
type seats struct {
	mu   sync.Mutex
	runs map[string]int
}

// PaySeat pays for a seat.
func (s *seats) PaySeat(ctx context.Context, seat string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[seat]++
	return "booked " + seat, nil
}

func (s *seats) ran(seat string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[seat]
}

// shell runs line with sh, the Temporal CLI as `temporal` on its PATH and
// the dev server as the CLI's environment (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE), as an operator's terminal would; it returns stdout,
// stderr and the exit status.
func shell(t *testing.T, srv *testsuite.DevServer, line string) (string, string, int) {
	t.Helper()
	cli, err := devserver.Locate("", devserver.SystemEnvironment(), devserver.IsExecutable)
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(cli, filepath.Join(bin, "temporal")))
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TEMPORAL_ADDRESS="+srv.Address(), "TEMPORAL_NAMESPACE="+srv.Namespace())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return stdout.String(), stderr.String(), code
}

// TestOperatorDecidesWithTheTemporalCLI: an operator's key made with
// -genkey, its public key given to the worker's verifier; the Query's
// answer from the real CLI piped into the command; the command line it
// prints run by the real CLI. Approved, the tool runs once; denied, the
// call ends with the reason; signed with a key the worker does not know, the
// Update is rejected, nothing enters history and the call still waits.
func TestOperatorDecidesWithTheTemporalCLI(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	keys := t.TempDir()
	genkey := func(name string) (string, ed25519.PublicKey) {
		path := filepath.Join(keys, name+".pem")
		stdout, stderr, code := decideRun(t, "", "-genkey", "-key", path)
		require.Zero(t, code, stderr)
		block, _ := pem.Decode([]byte(stdout))
		require.NotNil(t, block, stdout)
		pub, err := x509.ParsePKIXPublicKey(block.Bytes)
		require.NoError(t, err)
		return path, pub.(ed25519.PublicKey)
	}
	anaKey, anaPub := genkey("ana")
	strangerKey, _ := genkey("stranger")

	approvers, err := approvals.NewApprovers(1, "ana")
	require.NoError(t, err)
	verifier, err := approvals.NewEd25519Verifier(approvals.PublicKey{ID: "ana-key", Principal: "ana", Key: anaPub})
	require.NoError(t, err)
	kit, err := interceptors.NewPlugin(interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"PaySeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true}},
		Approvals:  approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"PaySeat": approvers}, Verifier: verifier},
	})
	require.NoError(t, err)
	queue := fmt.Sprintf("decide-%d", time.Now().UnixNano())
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	tool := &seats{runs: map[string]int{}}
	w.RegisterWorkflow(Book)
	w.RegisterActivity(tool)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	for _, tc := range []struct {
		name, seat, key, keyID string
		decision               []string
		want                   string // the run's result; "" for a rejected decision
		rejected               string // what the CLI says of a rejected decision
	}{
		{name: "approve", seat: "1A", key: anaKey, keyID: "ana-key", decision: []string{"-approve"}, want: "booked 1A"},
		{name: "deny", seat: "1B", key: anaKey, keyID: "ana-key", decision: []string{"-deny", "-reason", "don't: the fare doubled"},
			want: "denied by ana: don't: the fare doubled"},
		{name: "a key the worker does not know, under ana's key ID", seat: "1C", key: strangerKey, keyID: "ana-key", decision: []string{"-approve"},
			rejected: `the decision on call approval-1 does not verify: the signature by key "ana-key" does not verify`},
		{name: "a key ID the worker does not know", seat: "1D", key: strangerKey, keyID: "ana-laptop", decision: []string{"-approve"},
			rejected: `key "ana-laptop" is not one of this worker's approval keys`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			id := queue + "-" + tc.seat
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, Book, tc.seat)
			require.NoError(t, err)
			_, err = approvals.WaitPending(ctx, c, id, 1)
			require.NoError(t, err)
			before := eventTypes(t, ctx, c, run)

			// The operator's terminal: the Query, the command, the Update.
			answer, stderr, code := shell(t, srv, "temporal workflow query --workflow-id "+id+" --name "+approvals.QueryName+" --output json")
			require.Zero(t, code, stderr)
			args := append([]string{"-key", tc.key, "-key-id", tc.keyID, "-by", "ana", "-call", "approval-1"}, tc.decision...)
			line, stderr, code := decideAt(t, time.Now(), answer, args...)
			require.Zero(t, code, stderr)
			require.Contains(t, stderr, `arguments: ["`+tc.seat+`"]`, "what the person signs")
			stdout, stderr, code := shell(t, srv, line)
			t.Logf("%s\nexit %d\n%s%s", line, code, stdout, stderr)

			if tc.rejected != "" {
				require.NotZero(t, code)
				require.Contains(t, strings.ReplaceAll(stderr, `\"`, `"`), tc.rejected, "the CLI's log quotes the message")
				require.Contains(t, stderr, temporaladk.TypeApprovalRejected)
				require.Equal(t, before, eventTypes(t, ctx, c, run), "a rejected decision leaves nothing in history")
				still, err := approvals.List(ctx, c, id)
				require.NoError(t, err)
				require.Len(t, still, 1, "the call still waits")
				require.Empty(t, still[0].Approvals)
				require.Zero(t, tool.ran(tc.seat))
				require.NoError(t, c.TerminateWorkflow(ctx, id, "", "the test is done"))
				return
			}
			require.Zero(t, code, stderr)
			var got string
			require.NoError(t, run.Get(ctx, &got))
			require.Equal(t, tc.want, got)
			after := eventTypes(t, ctx, c, run)
			require.Equal(t, 1, count(after, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
			if tc.want == "booked "+tc.seat {
				require.Equal(t, 1, tool.ran(tc.seat), "the tool ran once")
				require.Equal(t, 1, count(after, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
			} else {
				require.Zero(t, tool.ran(tc.seat), "a denied call never runs")
				require.Zero(t, count(after, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
			}
			audit, err := approvals.Audit(ctx, c, id, approvals.AuditOptions{})
			require.NoError(t, err)
			require.Len(t, audit, 1)
			require.Equal(t, "ana-key", audit[0].Request.Key, "the history records the key that signed")
		})
	}
}

// eventTypes are the types of the run's events so far, in order.
func eventTypes(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun) []enumspb.EventType {
	t.Helper()
	var types []enumspb.EventType
	it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		types = append(types, e.GetEventType())
	}
	return types
}

func count(types []enumspb.EventType, typ enumspb.EventType) int {
	n := 0
	for _, e := range types {
		if e == typ {
			n++
		}
	}
	return n
}
