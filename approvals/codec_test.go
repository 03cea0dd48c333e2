package approvals_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestArgumentsThroughACodec: with a payload codec on the worker and the
// client (zlib, always on), a person's List shows the call's arguments
// decoded, checked against the digest; a client without the codec cannot
// read them; Audit reads the decisions with the converter it is given.
func TestArgumentsThroughACodec(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), converter.NewZlibCodec(converter.ZlibCodecOptions{AlwaysEncode: true}))
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), DataConverter: dc,
		Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))})
	require.NoError(t, err)
	defer c.Close()
	queue := "tq-" + t.Name()
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	book := newBookings("")
	register(w, book)
	require.NoError(t, w.Start())
	defer w.Stop()

	seat := Seat{"ZL9", "9Z"}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue}, Seats, "PaySeat", []Seat{seat}, 0)
	require.NoError(t, err)
	p := pending(t, ctx, c, run.GetID(), 1)[0]
	require.Equal(t, []any{map[string]any{"flight": "ZL9", "seat": "9Z"}}, p.Args)
	want, err := approvals.Digest(seat)
	require.NoError(t, err)
	require.Equal(t, want, p.Digest)

	_, err = approvals.List(ctx, srv.Client(), run.GetID())
	require.Error(t, err, "a client without the codec cannot read the answer")

	require.NoError(t, approvals.Decide(ctx, c, run.GetID(), sign(t, "bo", p, true, "")))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"booked ZL9/9Z"}, out.Booked)

	audit, err := approvals.Audit(ctx, c, run.GetID(), approvals.AuditOptions{DataConverter: dc})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, "bo", audit[0].Request.By)
	_, err = approvals.Audit(ctx, c, run.GetID(), approvals.AuditOptions{})
	require.ErrorContains(t, err, "does not decode")
}
