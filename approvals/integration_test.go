package approvals_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The environment of a worker process: workerEnv selects the role, the
// others say where to work and where its activities record their runs.
const (
	workerEnv    = "APPROVALS_WORKER"
	addressEnv   = "APPROVALS_ADDRESS"
	namespaceEnv = "APPROVALS_NAMESPACE"
	queueEnv     = "APPROVALS_TASK_QUEUE"
	ledgerEnv    = "APPROVALS_LEDGER"
)

// TestMain shares one dev server among the tests, or, when the binary was
// re-executed with workerEnv set, runs a worker process instead.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(runWorkerProcess())
	}
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// Seat is the argument of the tool BookSeat.
type Seat struct {
	Flight string `json:"flight"`
	Seat   string `json:"seat"`
}

// Outcome is what a test workflow reports of each of its calls.
type Outcome struct {
	Booked []string `json:"booked"`
	// Denied holds, per call, the denial's approver and reason, "" for a
	// call that ran.
	Denied []string `json:"denied"`
	// NeverRetryable holds, per denied call, whether the kit treats its
	// error as never retryable.
	NeverRetryable []bool `json:"never_retryable"`
	// Spent is what the calls spent of the run budget, when there was one.
	Spent int `json:"spent"`
}

// kitOptions declare BookSeat an effectful tool that needs one approval by
// any named approver (open mode), QuickSeat the same with a two-second
// wait, PaySeat one that needs one signed approval by ana or bo, and
// PairSeat one that needs two of ana, bo and cy, signed.
func kitOptions() interceptors.Options {
	open := approvals.Approvers{Open: true, Required: 1}
	tool := temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true}
	quick := tool
	quick.ApprovalTimeout = 2 * time.Second
	return interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"BookSeat": tool, "QuickSeat": quick, "PaySeat": tool, "PairSeat": tool},
		Approvals: approvals.WorkerOptions{
			Tools: map[string]approvals.Approvers{
				"BookSeat": open, "QuickSeat": open,
				"PaySeat":  {Principals: []string{"ana", "bo"}, Required: 1},
				"PairSeat": {Principals: []string{"ana", "bo", "cy"}, Required: 2},
			},
			Verifier: testVerifier(),
		},
	}
}

// Seats books each seat with activity, all at once, under a run budget of
// budget attempts when budget is above zero, and reports each call.
func Seats(ctx workflow.Context, activity string, seats []Seat, budget int) (Outcome, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	if budget > 0 {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "seats", Attempts: budget}); err != nil {
			return Outcome{}, err
		}
	}
	futures := make([]workflow.Future, len(seats))
	for i, s := range seats {
		futures[i] = workflow.ExecuteActivity(ctx, activity, s)
	}
	var out Outcome
	for _, f := range futures {
		var booked string
		err := f.Get(ctx, &booked)
		var denied *temporaladk.ApprovalDeniedError
		switch {
		case err == nil:
			out.Booked = append(out.Booked, booked)
			out.Denied = append(out.Denied, "")
		case errors.As(err, &denied):
			out.Booked = append(out.Booked, "")
			out.Denied = append(out.Denied, denied.Approver+": "+denied.Reason)
			out.NeverRetryable = append(out.NeverRetryable, vocab.IsNeverRetryable(err))
		default:
			return out, err
		}
	}
	if budget > 0 {
		out.Spent = int(temporaladk.BudgetsOf(ctx)[0].Spent)
	}
	return out, nil
}

// Chat books one seat in the background and continues as new through the
// conversation package at once; the next run ends.
func Chat(ctx workflow.Context, run int) (string, error) {
	if run > 1 {
		return fmt.Sprintf("run %d", run), nil
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	workflow.ExecuteActivity(ctx, "BookSeat", Seat{Flight: "CAN", Seat: "1A"})
	return "", conversation.ContinueAsNew(ctx, Chat, run+1)
}

// Bookings is the tool: it records each execution in the ledger file, one
// line a seat, and checks that its seat was approved before it ran.
type Bookings struct {
	mu       sync.Mutex
	ledger   string
	ran      map[string]int
	approved map[string]bool
	// strict makes a run of a seat not yet approved a finding, in early.
	strict bool
	early  []string
}

func newBookings(ledger string) *Bookings {
	return &Bookings{ledger: ledger, ran: map[string]int{}, approved: map[string]bool{}}
}

func (b *Bookings) run(s Seat) (string, error) {
	key := s.Flight + "/" + s.Seat
	b.mu.Lock()
	b.ran[key]++
	if b.strict && !b.approved[key] {
		b.early = append(b.early, key)
	}
	b.mu.Unlock()
	if b.ledger != "" {
		f, err := os.OpenFile(b.ledger, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintln(f, key); err != nil {
			return "", err
		}
	}
	return "booked " + key, nil
}

// BookSeat books a seat.
func (b *Bookings) BookSeat(ctx context.Context, s Seat) (string, error) { return b.run(s) }

// QuickSeat books a seat; its approval waits two seconds.
func (b *Bookings) QuickSeat(ctx context.Context, s Seat) (string, error) { return b.run(s) }

// PaySeat books a seat; one signed approval by ana or bo releases it.
func (b *Bookings) PaySeat(ctx context.Context, s Seat) (string, error) { return b.run(s) }

// PairSeat books a seat; two signed approvals of ana, bo and cy release it.
func (b *Bookings) PairSeat(ctx context.Context, s Seat) (string, error) { return b.run(s) }

func (b *Bookings) approve(key string) {
	b.mu.Lock()
	b.approved[key] = true
	b.mu.Unlock()
}

func (b *Bookings) runs(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ran[key]
}

func register(w worker.Registry, b *Bookings) {
	registerWorkflows(w)
	w.RegisterActivity(b)
}

func registerWorkflows(w worker.WorkflowRegistry) {
	w.RegisterWorkflow(Seats)
	w.RegisterWorkflow(Chat)
	w.RegisterWorkflow(Relay)
	w.RegisterWorkflow(PerCall)
	w.RegisterWorkflow(Refund)
}

type env struct {
	t         *testing.T
	c         client.Client
	srv       *testsuite.DevServer
	taskQueue string
	book      *Bookings
}

// startWorker starts an in-process kit worker on a task queue of the test.
func startWorker(t *testing.T) *env {
	t.Helper()
	srv := testsuite.DevServerFor(t)
	e := &env{t: t, c: srv.Client(), srv: srv, taskQueue: "tq-" + strings.ReplaceAll(t.Name(), "/", "-"), book: newBookings("")}
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	w := worker.New(e.c, e.taskQueue, worker.Options{Plugins: []worker.Plugin{kit}})
	register(w, e.book)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return e
}

func (e *env) start(ctx context.Context, wf any, args ...any) client.WorkflowRun {
	e.t.Helper()
	id := fmt.Sprintf("%s-%d", e.taskQueue, time.Now().UnixNano())
	run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.taskQueue}, wf, args...)
	require.NoError(e.t, err)
	return run
}

// pending waits until the run lists n pending approvals (approvals.WaitPending)
// and returns them; more than n is a failure, and so is any for n 0.
func pending(t *testing.T, ctx context.Context, c client.Client, workflowID string, n int) []approvals.Pending {
	t.Helper()
	if n == 0 {
		got, err := approvals.List(ctx, c, workflowID)
		require.NoError(t, err)
		require.Empty(t, got, "a decided call is no longer pending")
		return got
	}
	got, err := approvals.WaitPending(ctx, c, workflowID, n)
	require.NoError(t, err)
	require.Len(t, got, n, "the run listed more pending approvals than expected")
	return got
}

// TestWaitPending: WaitPending returns once the run has the approvals
// asked for, refuses bad input naming it, and ends with an error, not a
// wait, once the run has closed.
func TestWaitPending(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name string
		c    client.Client
		id   string
		n    int
		want string
	}{
		{"nil client", nil, "trip", 1, "approvals: WaitPending: the client is nil"},
		{"no workflow ID", e.c, " ", 1, "approvals: WaitPending: the workflow ID is empty"},
		{"n of 0", e.c, "trip", 0, "approvals: WaitPending: n is 0: it must be at least 1"},
	} {
		_, err := approvals.WaitPending(ctx, tc.c, tc.id, tc.n)
		require.ErrorContains(t, err, tc.want, tc.name)
	}

	run := e.start(ctx, Seats, "BookSeat", []Seat{{"LH9", "9A"}}, 0)
	p := pending(t, ctx, e.c, run.GetID(), 1)[0]
	require.NoError(t, approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}))
	require.NoError(t, run.Get(ctx, nil))
	_, err := approvals.WaitPending(ctx, e.c, run.GetID(), 1)
	require.ErrorContains(t, err, "the run closed (Completed) with 0 of 1 approvals pending")
}

// history is the run's history as it stands, closed or not.
func history(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun) []*historypb.HistoryEvent {
	t.Helper()
	var events []*historypb.HistoryEvent
	it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		events = append(events, e)
	}
	return events
}

func countEvents(events []*historypb.HistoryEvent, typ enumspb.EventType) int {
	n := 0
	for _, e := range events {
		if e.GetEventType() == typ {
			n++
		}
	}
	return n
}

// replay replays the history with the kit's plugin, as a new worker would.
func replay(t *testing.T, c client.Client, run client.WorkflowRun) {
	t.Helper()
	h, err := testsuite.WorkflowHistory(context.Background(), c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	plugin, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}})
	require.NoError(t, err)
	registerWorkflows(replayer)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h))
}

func rejectedType(t *testing.T, err error) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, temporaladk.TypeApprovalRejected, app.Type())
}

// TestApproveDenyTimeout: an approved call runs once, a denied one and one
// that timed out run never and end with a never-retryable
// ApprovalDeniedError; the decisions are in the history and replay.
func TestApproveDenyTimeout(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cases := []struct {
		name, activity, decide string
		seat                   Seat
		runs                   int
		denied                 string
		accepted               int
	}{
		{name: "approve", activity: "BookSeat", decide: "approve", seat: Seat{"LH1", "1A"}, runs: 1, accepted: 1},
		{name: "deny", activity: "BookSeat", decide: "deny", seat: Seat{"LH1", "2B"}, runs: 0, denied: "ana: over budget", accepted: 1},
		{name: "timeout", activity: "QuickSeat", seat: Seat{"LH1", "3C"}, runs: 0, denied: ": timed out: no decision within 2s", accepted: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := e.start(ctx, Seats, tc.activity, []Seat{tc.seat}, 0)
			p := pending(t, ctx, e.c, run.GetID(), 1)[0]
			want, err := approvals.Digest(tc.seat)
			require.NoError(t, err)
			require.Equal(t, want, p.Digest)
			require.Equal(t, "approval-1", p.Call)
			require.Equal(t, tc.activity, p.ActivityType)
			require.Equal(t, temporaladk.Tool, p.Class)
			require.NotContains(t, p.Summary, tc.seat.Flight, "the kit's summary holds no argument value")
			d := approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana", Reason: "over budget"}
			switch tc.decide {
			case "approve":
				require.NoError(t, approvals.Approve(ctx, e.c, run.GetID(), d))
			case "deny":
				require.NoError(t, approvals.Deny(ctx, e.c, run.GetID(), d))
			}
			var out Outcome
			require.NoError(t, run.Get(ctx, &out))
			require.Equal(t, tc.runs, e.book.runs(tc.seat.Flight+"/"+tc.seat.Seat))
			require.Equal(t, []string{tc.denied}, out.Denied)
			if tc.denied != "" {
				require.Equal(t, []bool{true}, out.NeverRetryable)
			}
			events := history(t, ctx, e.c, run)
			require.Equal(t, tc.accepted, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
			require.Equal(t, tc.runs, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
			replay(t, e.c, run)
			left, err := approvals.List(ctx, e.c, run.GetID())
			require.NoError(t, err)
			require.Empty(t, left)
		})
	}
}

// TestRejectedDecisions: a decision for other arguments, for a call that
// does not exist, or without an approver is rejected, leaves the call
// pending and writes nothing to history.
func TestRejectedDecisions(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seat := Seat{"AF9", "9F"}
	run := e.start(ctx, Seats, "BookSeat", []Seat{seat, {"AF9", "9G"}}, 0)
	both := pending(t, ctx, e.c, run.GetID(), 2)
	p, second := both[0], both[1]
	other, err := approvals.Digest(Seat{"AF9", "9E"})
	require.NoError(t, err)

	err = approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: other, By: "ana"})
	rejectedType(t, err)
	require.ErrorContains(t, err, "is not the digest of the arguments")
	err = approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: "approval-7", Digest: p.Digest, By: "ana"})
	rejectedType(t, err)
	require.ErrorContains(t, err, `no call "approval-7"`)
	err = approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest})
	require.ErrorContains(t, err, "names no approver")

	still := pending(t, ctx, e.c, run.GetID(), 2)
	require.Equal(t, both, still)
	events := history(t, ctx, e.c, run)
	require.Zero(t, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Zero(t, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	require.Zero(t, e.book.runs("AF9/9F"))

	require.NoError(t, approvals.Deny(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}))
	err = approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: "bo"})
	rejectedType(t, err)
	require.ErrorContains(t, err, "no longer waiting")
	require.NoError(t, approvals.Deny(ctx, e.c, run.GetID(), approvals.Decision{Call: second.Call, Digest: second.Digest, By: "bo", Reason: "no"}))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"ana: ", "bo: no"}, out.Denied)
	require.Zero(t, e.book.runs("AF9/9F")+e.book.runs("AF9/9G"))
	require.Equal(t, 2, countEvents(history(t, ctx, e.c, run), enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
}

// TestTwentyConcurrentApprovals: twenty calls of one run, approved in a
// random order by twenty clients at once: each runs exactly once, and none
// before its own approval.
func TestTwentyConcurrentApprovals(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 20
	seats := make([]Seat, n)
	for i := range seats {
		seats[i] = Seat{"UA20", fmt.Sprintf("%dA", i+1)}
	}
	run := e.start(ctx, Seats, "BookSeat", seats, 0)
	list := pending(t, ctx, e.c, run.GetID(), n)
	bySeat := map[string]approvals.Pending{}
	for _, s := range seats {
		d, err := approvals.Digest(s)
		require.NoError(t, err)
		for _, p := range list {
			if p.Digest == d {
				bySeat[s.Flight+"/"+s.Seat] = p
			}
		}
	}
	require.Len(t, bySeat, n, "every call is listed under its own digest")

	// Twenty clients, one per call, in a random order: after each
	// approval its call runs, and no call not yet approved has run.
	e.book.strict = true
	order := rand.New(rand.NewPCG(21, 20)).Perm(n)
	for k, i := range order {
		key := seats[i].Flight + "/" + seats[i].Seat
		c, err := client.Dial(client.Options{HostPort: e.srv.Address(), Namespace: e.srv.Namespace()})
		require.NoError(t, err)
		e.book.approve(key)
		p := bySeat[key]
		require.NoError(t, approvals.Approve(ctx, c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: fmt.Sprintf("client-%d", k)}))
		c.Close()
		require.Eventually(t, func() bool { return e.book.runs(key) == 1 }, time.Minute, 10*time.Millisecond, key)
		require.Len(t, pending(t, ctx, e.c, run.GetID(), n-k-1), n-k-1)
	}
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	for _, s := range seats {
		require.Equal(t, 1, e.book.runs(s.Flight+"/"+s.Seat), s)
	}
	require.Empty(t, e.book.early, "no call ran before its approval")
	events := history(t, ctx, e.c, run)
	require.Equal(t, n, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Equal(t, n, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	replay(t, e.c, run)
}

// TestDeniedCallSpendsNothing: under a run budget of one attempt, a denied
// call spends nothing, so the approved call after it still runs.
func TestDeniedCallSpendsNothing(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := e.start(ctx, Seats, "BookSeat", []Seat{{"BA1", "1A"}, {"BA1", "1B"}}, 1)
	list := pending(t, ctx, e.c, run.GetID(), 2)
	require.NoError(t, approvals.Deny(ctx, e.c, run.GetID(), approvals.Decision{Call: list[0].Call, Digest: list[0].Digest, By: "ana", Reason: "no"}))
	require.NoError(t, approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: list[1].Call, Digest: list[1].Digest, By: "ana"}))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"", "booked BA1/1B"}, out.Booked)
	require.Equal(t, 1, out.Spent, "only the approved call is charged")
	require.Zero(t, e.book.runs("BA1/1A"))
	require.Equal(t, 1, e.book.runs("BA1/1B"))
}

// TestContinueAsNewCarriesThePendingCall: conversation.ContinueAsNew no
// longer waits while a call of the run waits for its approval: the run
// continues as new at once, handing the call to the next run in its start
// header, and that run, which does not make it again, ends without it
// (the call never runs). The earlier behaviour, waiting, is what
// testdata/histories/open-continue-as-new.json recorded, and it replays
// (TestRecordedHistoriesReplay).
func TestContinueAsNewCarriesThePendingCall(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := e.start(ctx, Chat, 1)
	var got string
	require.NoError(t, e.c.GetWorkflow(ctx, run.GetID(), "").Get(ctx, &got))
	require.Equal(t, "run 2", got)
	first := history(t, ctx, e.c, run)
	require.Equal(t, 0, countEvents(first, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	require.Equal(t, 1, countEvents(first, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW))
	desc, err := e.c.DescribeWorkflowExecution(ctx, run.GetID(), "")
	require.NoError(t, err)
	second := runHistory(t, ctx, e.c, run.GetID(), desc.GetWorkflowExecutionInfo().GetExecution().GetRunId())
	carried, ok := carriedInto(t, second)
	require.True(t, ok)
	require.Len(t, carried.Calls, 1)
	require.Equal(t, "approval-1", carried.Calls[0].Call)
	require.Equal(t, 0, countEvents(second, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	require.Equal(t, 0, e.book.runs("CAN/1A"))
	replay(t, e.c, run)
}

// TestWorkerKilledWhilePending: the only worker is SIGKILLed while a call
// waits for its approval; a new worker process takes over, serves the
// approval, and the tool runs once.
func TestWorkerKilledWhilePending(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	queue := "tq-" + t.Name()
	ledger := filepath.Join(t.TempDir(), "ledger")
	first := startProcess(t, srv, queue, ledger)
	seat := Seat{"KL7", "7K"}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue}, Seats, "BookSeat", []Seat{seat}, 0)
	require.NoError(t, err)
	p := pending(t, ctx, c, run.GetID(), 1)[0]
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()

	startProcess(t, srv, queue, ledger)
	require.NoError(t, approvals.Approve(ctx, c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"booked KL7/7K"}, out.Booked)
	data, err := os.ReadFile(ledger)
	require.NoError(t, err)
	require.Equal(t, "KL7/7K\n", string(data), "the tool ran once")
	events := history(t, ctx, c, run)
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	replay(t, c, run)
}

// startProcess re-executes the test binary as a kit worker on queue and
// waits until it polls.
func startProcess(t *testing.T, srv *testsuite.DevServer, queue, ledger string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1", addressEnv+"="+srv.Address(), namespaceEnv+"="+srv.Namespace(), queueEnv+"="+queue, ledgerEnv+"="+ledger)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	ready := false
	for !ready && lines.Scan() {
		ready = lines.Text() == "READY"
	}
	require.True(t, ready, "the worker process ended before it polled")
	go func() {
		for lines.Scan() {
		}
	}()
	return cmd
}

// runWorkerProcess is a kit worker on the server and task queue the
// environment names; it exits when stdin closes.
func runWorkerProcess() int {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(addressEnv), Namespace: os.Getenv(namespaceEnv),
		Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process: dial:", err)
		return 2
	}
	defer c.Close()
	kit, err := interceptors.NewPlugin(kitOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	// A dead worker's sticky queue is given up after a second, not five.
	w := worker.New(c, os.Getenv(queueEnv), worker.Options{StickyScheduleToStartTimeout: time.Second, Plugins: []worker.Plugin{kit}})
	register(w, newBookings(os.Getenv(ledgerEnv)))
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "worker process: start:", err)
		return 2
	}
	defer w.Stop()
	fmt.Println("READY")
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	return 0
}

// TestDeclaredLaterReplaysAsRecorded: a history recorded while BookSeat
// needed no approval replays on a kit that now declares it needs one (a
// deploy added RequiresApproval): the gate is versioned, and the recorded
// run had none.
func TestDeclaredLaterReplaysAsRecorded(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	queue := "tq-" + t.Name()
	before := kitOptions()
	delete(before.Activities, "BookSeat")
	delete(before.Approvals.Tools, "BookSeat")
	kit, err := interceptors.NewPlugin(before)
	require.NoError(t, err)
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	book := newBookings("")
	register(w, book)
	require.NoError(t, w.Start())
	defer w.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue}, Seats, "BookSeat", []Seat{{"IB3", "3D"}}, 0)
	require.NoError(t, err)
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, 1, book.runs("IB3/3D"), "without the declaration the call runs at once")
	replay(t, c, run)
}
