package approvals_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestServerRestartedWhilePending stops and starts the server on its
// database while a call waits for its approval: the approval is still
// pending after the restart, the decision then arrives through the same
// Update, and the tool runs once; the history replays.
func TestServerRestartedWhilePending(t *testing.T) {
	srv := testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: filepath.Join(t.TempDir(), "temporal.db")})
	e := &env{t: t, c: srv.Client(), srv: srv, taskQueue: "tq-" + t.Name(), book: newBookings("")}
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	w := worker.New(e.c, e.taskQueue, worker.Options{Plugins: []worker.Plugin{kit}})
	register(w, e.book)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	seat := Seat{"LH9", "9A"}
	run := e.start(ctx, Seats, "BookSeat", []Seat{seat}, 0)
	before := pending(t, ctx, e.c, run.GetID(), 1)[0]

	require.NoError(t, srv.Restart(ctx))

	after := pending(t, ctx, e.c, run.GetID(), 1)[0]
	require.Equal(t, before, after, "the same approval waits after the restart")
	require.Zero(t, e.book.runs(seat.Flight+"/"+seat.Seat), "nothing ran before the approval")
	require.NoError(t, approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: after.Call, Digest: after.Digest, By: "ana"}))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, 1, e.book.runs(seat.Flight+"/"+seat.Seat), "the tool ran once, after its approval")
	events := history(t, ctx, e.c, run)
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	replay(t, e.c, run)
}
