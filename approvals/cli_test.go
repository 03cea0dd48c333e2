package approvals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/devserver"
)

// temporalCLI runs the Temporal CLI the dev server runs on, against it,
// and returns its stdout, its stderr and its exit code.
func temporalCLI(t *testing.T, e *env, args ...string) (string, string, int) {
	t.Helper()
	path, err := devserver.Locate("", devserver.SystemEnvironment(), devserver.IsExecutable)
	require.NoError(t, err)
	args = append(args, "--address", e.srv.Address(), "--namespace", e.srv.Namespace())
	cmd := exec.Command(path, args...)
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

// TestOperatorCLI: the commands README gives the operator. The Query lists
// the pending calls with their arguments; an Update that leaves out
// "approve" is rejected, naming the field, and leaves nothing in history;
// one with "approve": true releases its call, one with "approve": false
// denies its call.
func TestOperatorCLI(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := e.start(ctx, Seats, "BookSeat", []Seat{{"TP5", "5A"}, {"TP5", "5B"}}, 0)
	pending(t, ctx, e.c, run.GetID(), 2)

	out, stderr, code := temporalCLI(t, e, "workflow", "query", "--workflow-id", run.GetID(), "--name", approvals.QueryName, "--output", "json")
	require.Zero(t, code, stderr)
	var answer struct {
		QueryResult [][]approvals.Pending `json:"queryResult"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &answer), out)
	require.Len(t, answer.QueryResult, 1, out)
	listed := answer.QueryResult[0]
	require.Len(t, listed, 2)
	require.Equal(t, []any{map[string]any{"flight": "TP5", "seat": "5A"}}, listed[0].Args)
	first, second := listed[0], listed[1]

	decide := func(input string) (string, int) {
		out, stderr, code := temporalCLI(t, e, "workflow", "update", "execute", "--workflow-id", run.GetID(), "--name", approvals.UpdateName, "--input", input)
		t.Logf("temporal workflow update execute --input '%s': exit %d\n%s%s", input, code, out, stderr)
		return out + stderr, code
	}
	msg, code := decide(fmt.Sprintf(`{"call":%q,"digest":%q,"by":"ana"}`, first.Call, first.Digest))
	require.NotZero(t, code, msg)
	require.Contains(t, msg, `the request says neither approve nor deny: add approve: true to approve or approve: false to deny (Request.Approve, JSON field approve, is missing)`)
	updates, scheduled := accepted(t, ctx, e.c, run)
	require.Zero(t, updates, "the rejected request left nothing in history")
	require.Zero(t, scheduled)

	msg, code = decide(fmt.Sprintf(`{"call":%q,"digest":%q,"by":"ana","approve":true}`, first.Call, first.Digest))
	require.Zero(t, code, msg)
	msg, code = decide(fmt.Sprintf(`{"call":%q,"digest":%q,"by":"ana","approve":false,"reason":"one seat is enough"}`, second.Call, second.Digest))
	require.Zero(t, code, msg)

	var res Outcome
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, []string{"booked TP5/5A", ""}, res.Booked)
	require.Equal(t, []string{"", "ana: one seat is enough"}, res.Denied)
	require.Equal(t, 1, e.book.runs("TP5/5A"))
	require.Zero(t, e.book.runs("TP5/5B"))
	events := history(t, ctx, e.c, run)
	require.Equal(t, 2, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
}
