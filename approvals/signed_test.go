package approvals_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestRecordedHistoriesReplay: histories recorded before decisions were
// explicit, signed and granted (open approvals of BookSeat, approved and
// denied, and one that continued as new) replay on today's kit.
func TestRecordedHistoriesReplay(t *testing.T) {
	plugin, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	require.NoError(t, testsuite.ReplayDir("testdata/histories", testsuite.ReplayOptions{
		Plugins:   []worker.Plugin{plugin},
		Workflows: []testsuite.ReplayWorkflow{{Func: Seats}, {Func: Chat}},
	}))
}

// validFor is how long a test's signed decisions are valid, from the
// workflow time at which the call began to wait.
const validFor = time.Hour

// sign signs a decision by principal on p, valid for validFor from the
// time p began to wait.
func sign(t *testing.T, principal string, p approvals.Pending, approve bool, reason string) approvals.Request {
	t.Helper()
	s := signer(principal)
	var (
		r   approvals.Request
		err error
	)
	if approve {
		r, err = s.Approve(p, reason, p.Since.Add(validFor))
	} else {
		r, err = s.Deny(p, reason, p.Since.Add(validFor))
	}
	require.NoError(t, err)
	return r
}

// accepted counts the run's accepted Updates and scheduled activities.
func accepted(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun) (updates, scheduled int) {
	t.Helper()
	events := history(t, ctx, c, run)
	return countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
}

// TestSignedDecisionsRejected: each decision below is rejected by the
// validator with a message that names the mistake, and leaves nothing in
// history; then a valid one is accepted and the call runs once.
func TestSignedDecisionsRejected(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seat := Seat{"SK1", "1A"}
	// Two calls with the same arguments: the same digest, other calls.
	run := e.start(ctx, Seats, "PaySeat", []Seat{seat, seat}, 0)
	twin := e.start(ctx, Seats, "PaySeat", []Seat{seat}, 0)
	both := pending(t, ctx, e.c, run.GetID(), 2)
	p, second := both[0], both[1]
	require.Equal(t, p.Digest, second.Digest)
	other := pending(t, ctx, e.c, twin.GetID(), 1)[0]
	require.Equal(t, p.Call, other.Call, "the twin's call has the same ID and digest: only the workflow tells them apart")
	require.Equal(t, []any{map[string]any{"flight": "SK1", "seat": "1A"}}, p.Args, "the person sees the arguments, as the client decodes them")
	require.Equal(t, approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 1}, p.Approvers)

	otherDigest, err := approvals.Digest(Seat{"SK1", "1B"})
	require.NoError(t, err)
	tampered := func(f func(*approvals.Pending)) approvals.Pending {
		q := p
		f(&q)
		return q
	}
	cases := []struct {
		name   string
		target string
		req    func() approvals.Request
		want   string
	}{
		{"key not allowed for the tool", run.GetID(), func() approvals.Request { return sign(t, "eve", p, true, "") },
			`"eve" may not decide call approval-1: its approvers are 1 of ["ana" "bo"]`},
		{"another principal's key", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", p, true, "")
			r.By = "bo"
			return r
		}, `key "ana-test" belongs to "ana", not to "bo"`},
		{"unsigned", run.GetID(), func() approvals.Request {
			return approvals.Request{Decision: approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}, Approve: new(true)}
		}, "call approval-1 needs a signed decision"},
		{"tampered digest in the request", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", p, true, "")
			r.Digest = otherDigest
			return r
		}, "is not the digest of the arguments of call approval-1"},
		{"signed over another digest", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", tampered(func(q *approvals.Pending) { q.Digest = otherDigest }), true, "")
			r.Digest = p.Digest
			return r
		}, "does not verify"},
		{"signed for another workflow ID", run.GetID(), func() approvals.Request {
			return sign(t, "ana", tampered(func(q *approvals.Pending) { q.WorkflowID = twin.GetID() }), true, "")
		}, "does not verify"},
		{"signed for another run", run.GetID(), func() approvals.Request {
			return sign(t, "ana", tampered(func(q *approvals.Pending) { q.RunID = twin.GetRunID() }), true, "")
		}, "does not verify"},
		{"tampered decision", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", p, false, "")
			r.Approve = new(true)
			return r
		}, "does not verify"},
		{"tampered expiry", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", p, true, "")
			r.Expires = r.Expires.Add(time.Hour)
			return r
		}, "does not verify"},
		{"replayed on another call", run.GetID(), func() approvals.Request {
			r := sign(t, "ana", p, true, "")
			r.Call = second.Call
			return r
		}, "does not verify"},
		{"replayed on another workflow", twin.GetID(), func() approvals.Request { return sign(t, "ana", p, true, "") },
			"does not verify"},
		{"expired", run.GetID(), func() approvals.Request {
			r, err := signer("ana").Approve(p, "", p.Since.Add(-time.Second))
			require.NoError(t, err)
			return r
		}, "the decision expired at " + p.Since.Add(-time.Second).UTC().Format(time.RFC3339Nano) + "; the workflow's time is "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := approvals.Decide(ctx, e.c, tc.target, tc.req())
			rejectedType(t, err)
			require.ErrorContains(t, err, tc.want)
			for _, r := range []client.WorkflowRun{run, twin} {
				updates, scheduled := accepted(t, ctx, e.c, r)
				require.Zero(t, updates, "a rejected decision leaves nothing in history")
				require.Zero(t, scheduled)
			}
		})
	}
	require.Equal(t, both, pending(t, ctx, e.c, run.GetID(), 2), "both calls still wait")

	// The valid decisions: each releases or ends its own call only.
	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "bo", p, true, "")))
	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "ana", second, false, "one is enough")))
	require.NoError(t, approvals.Decide(ctx, e.c, twin.GetID(), sign(t, "ana", other, false, "")))
	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"booked SK1/1A", ""}, out.Booked)
	require.Equal(t, []string{"", "ana: one is enough"}, out.Denied)
	require.Equal(t, 1, e.book.runs("SK1/1A"), "the tool ran once")
	updates, scheduled := accepted(t, ctx, e.c, run)
	require.Equal(t, 2, updates)
	require.Equal(t, 1, scheduled)
	replay(t, e.c, run)
}

// TestTwoOfThree: PairSeat needs two of ana, bo and cy. One approval
// schedules nothing; the same principal again is rejected with nothing in
// history; the second distinct approval runs the tool once, with a grant
// of both in its header. On the other call a deny by cy after ana's
// approval ends the call with an ApprovalDeniedError naming cy.
func TestTwoOfThree(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := e.start(ctx, Seats, "PairSeat", []Seat{{"OS2", "2A"}, {"OS2", "2B"}}, 0)
	list := pending(t, ctx, e.c, run.GetID(), 2)
	first, second := list[0], list[1]
	need := first.Approvers.Required
	require.Equal(t, 2, need)

	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "ana", first, true, "")))
	updates, scheduled := accepted(t, ctx, e.c, run)
	require.Equal(t, 1, updates)
	require.Zero(t, scheduled, "one approval of %d schedules nothing", need)
	now := pending(t, ctx, e.c, run.GetID(), 2)
	require.Equal(t, []string{"ana"}, now[0].Approvals)

	err := approvals.Decide(ctx, e.c, run.GetID(), sign(t, "ana", first, true, "again"))
	rejectedType(t, err)
	require.ErrorContains(t, err, fmt.Sprintf(`"ana" approved call approval-1 already: %d distinct approvals are needed, 1 so far`, need))
	updates, scheduled = accepted(t, ctx, e.c, run)
	require.Equal(t, 1, updates, "the second approval by ana left nothing in history")
	require.Zero(t, scheduled)

	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "ana", second, true, "")))
	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "cy", second, false, "not this one")))
	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "bo", first, true, "")))

	var out Outcome
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"booked OS2/2A", ""}, out.Booked)
	require.Equal(t, []string{"", "cy: not this one"}, out.Denied)
	require.Equal(t, []bool{true}, out.NeverRetryable)
	require.Equal(t, 1, e.book.runs("OS2/2A"))
	require.Zero(t, e.book.runs("OS2/2B"))

	events := history(t, ctx, e.c, run)
	require.Equal(t, 4, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	var sched []*historypb.ActivityTaskScheduledEventAttributes
	for _, ev := range events {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			sched = append(sched, a)
		}
	}
	require.Len(t, sched, 1)
	require.Equal(t, first.Call, sched[0].GetActivityId(), "the approved call is scheduled under its approval's ID")
	var g wire.ApprovalGrant
	require.NoError(t, testConverter.FromPayload(sched[0].GetHeader().GetFields()[wire.ApprovalHeaderKey], &g))
	var by []string
	for _, a := range g.Approvals {
		by = append(by, a.By)
	}
	require.Equal(t, []string{"ana", "bo"}, by)
	require.Equal(t, first.Digest, g.Digest)
	replay(t, e.c, run)
}

// TestWorkerWithoutKitIsRefused: a workflow worker without the kit
// schedules the declared tool PaySeat at once; the kit's activity worker
// refuses it, non-retryable, naming the missing plugin, and the tool never
// runs. A kit workflow worker that does not declare the tool gates nothing
// either, and is refused the same way, naming that.
func TestWorkerWithoutKitIsRefused(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cases := []struct {
		name     string
		workflow func() (worker.Options, error)
		want     string
	}{
		{"no kit", func() (worker.Options, error) { return worker.Options{}, nil },
			// The queue named is the workflow's, read from the server: the
			// activity's task does not carry it.
			`it was scheduled by a workflow worker without the kit's plugin; register interceptors.NewPlugin on every workflow worker of task queue "QUEUE" (the workflow's)`},
		{"kit without the declaration", func() (worker.Options, error) {
			kit, err := interceptors.NewPlugin(interceptors.Options{})
			if err != nil {
				return worker.Options{}, err
			}
			// It polls no activity task: the kit's plugin registers
			// activities of its own.
			return worker.Options{LocalActivityWorkerOnly: true, Plugins: []worker.Plugin{kit}}, nil
		}, "its workflow worker did not gate it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			queue := "tq-" + strings.ReplaceAll(t.Name(), "/", "-")
			opts, err := tc.workflow()
			require.NoError(t, err)
			wf := worker.New(c, queue, opts)
			registerWorkflows(wf)
			require.NoError(t, wf.Start())
			defer wf.Stop()
			kit, err := interceptors.NewPlugin(kitOptions())
			require.NoError(t, err)
			act := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
			book := newBookings("")
			act.RegisterActivity(book)
			require.NoError(t, act.Start())
			defer act.Stop()

			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue},
				Seats, "PaySeat", []Seat{{"AY4", "4D"}}, 0)
			require.NoError(t, err)
			err = run.Get(ctx, nil)
			var app *temporal.ApplicationError
			require.True(t, errors.As(err, &app), "%v", err)
			require.Equal(t, temporaladk.TypeApprovalNotGranted, app.Type())
			require.True(t, app.NonRetryable())
			require.ErrorContains(t, err, strings.ReplaceAll(tc.want, "QUEUE", queue))
			require.Zero(t, book.runs("AY4/4D"), "the tool never ran")
			events := history(t, ctx, c, run)
			require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED), "one attempt, not retried")
		})
	}
}

// TestDeclarationWithoutApproversIsAnError: a tool declared
// RequiresApproval with no approvers, or with signed approvers and no
// verifier, does not make a kit.
func TestDeclarationWithoutApproversIsAnError(t *testing.T) {
	tool := temporaladk.Declaration{Class: temporaladk.Tool, RequiresApproval: true}
	_, err := interceptors.NewPlugin(interceptors.Options{Activities: map[string]temporaladk.Declaration{"BookSeat": tool}})
	require.ErrorContains(t, err, `Options.Activities["BookSeat"] RequiresApproval, but Options.Approvals.Tools has no approvers for it`)
	_, err = interceptors.NewPlugin(interceptors.Options{Activities: map[string]temporaladk.Declaration{"BookSeat": tool},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": {Principals: []string{"ana"}, Required: 1}}}})
	require.ErrorContains(t, err, `Options.Approvals.Tools["BookSeat"] needs signed decisions, but Options.Approvals.Verifier is nil`)
	_, err = interceptors.NewPlugin(interceptors.Options{Activities: map[string]temporaladk.Declaration{"BookSeat": tool},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": {Principals: []string{"ana"}, Required: 2}}, Verifier: testVerifier()}})
	require.ErrorContains(t, err, `Approvers.Required is 2: it must be between 1 and the 1 principals`)
}

// TestActivityWorkerChecksSignatures: the activity side verifies the
// grant's signatures with its own worker's keys. A decision the workflow
// worker's validator accepted, signed by a key the activity worker does
// not hold, is refused there, non-retryable, and the tool never runs.
func TestActivityWorkerChecksSignatures(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	queue := "tq-" + t.Name()
	kit, err := interceptors.NewPlugin(kitOptions())
	require.NoError(t, err)
	// The workflow worker polls no activity task: the kit's plugin
	// registers activities of its own.
	wf := worker.New(c, queue, worker.Options{LocalActivityWorkerOnly: true, Plugins: []worker.Plugin{kit}})
	registerWorkflows(wf)
	require.NoError(t, wf.Start())
	defer wf.Stop()

	other := kitOptions()
	v, err := approvals.NewEd25519Verifier(signer("cy").PublicKey(), signer("eve").PublicKey())
	require.NoError(t, err)
	other.Approvals.Verifier = v
	actKit, err := interceptors.NewPlugin(other)
	require.NoError(t, err)
	act := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{actKit}})
	book := newBookings("")
	act.RegisterActivity(book)
	require.NoError(t, act.Start())
	defer act.Stop()

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue},
		Seats, "PaySeat", []Seat{{"BT3", "3B"}}, 0)
	require.NoError(t, err)
	p := pending(t, ctx, c, run.GetID(), 1)[0]
	require.NoError(t, approvals.Decide(ctx, c, run.GetID(), sign(t, "ana", p, true, "")), "the workflow worker's validator holds ana's key")
	err = run.Get(ctx, nil)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	require.Equal(t, temporaladk.TypeApprovalNotGranted, app.Type())
	require.ErrorContains(t, err, `holds 0 distinct approvals that hold on this worker, and 1 are needed (1 of ["ana" "bo"]); refused: [ana: key "ana-test" is not one of this worker's approval keys]`)
	require.Zero(t, book.runs("BT3/3B"))
	require.Equal(t, 1, countEvents(history(t, ctx, c, run), enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED))
}

// PerCall calls activity with seat once per entry of asked, one after the
// other, each on a context from approvals.WithApproval with that entry's
// options, and reports each call's result or error.
func PerCall(ctx workflow.Context, activity string, seat Seat, asked []approvals.Options) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var out []string
	for _, opts := range asked {
		actx, err := approvals.WithApproval(ctx, opts)
		if err != nil {
			return out, err
		}
		var booked string
		if err := workflow.ExecuteActivity(actx, activity, seat).Get(ctx, &booked); err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, booked)
	}
	return out, nil
}

// TestPerCallOptionsNarrowOnly: workflow code that gives PaySeat (declared:
// one of ana and bo, signed) open approvers through WithApproval, or a
// principal outside the declaration, or a longer wait than the declared
// 24 hours, has the call refused at once, naming the declaration and the
// option: nothing waits, so no unsigned approval by any name can be
// recorded. A call that narrows the declaration (ana alone, one hour)
// waits for ana: mallory's unsigned approval and bo's signed one are
// rejected with nothing in history, ana's runs the tool once.
func TestPerCallOptionsNarrowOnly(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	asked := []approvals.Options{
		{Approvers: approvals.Approvers{Open: true, Required: 1}},
		{Approvers: approvals.Approvers{Principals: []string{"ana", "eve"}, Required: 1}},
		{Timeout: 48 * time.Hour},
		{Approvers: approvals.Approvers{Principals: []string{"ana"}, Required: 1}, Timeout: time.Hour},
	}
	run := e.start(ctx, PerCall, "PaySeat", Seat{"NA1", "1N"}, asked)
	p := pending(t, ctx, e.c, run.GetID(), 1)[0]
	require.Equal(t, "approval-1", p.Call, "the refused calls never waited")
	require.Equal(t, approvals.Approvers{Principals: []string{"ana"}, Required: 1}, p.Approvers)
	require.Equal(t, time.Hour, p.Deadline.Sub(p.Since))

	err := approvals.Approve(ctx, e.c, run.GetID(), approvals.Decision{Call: p.Call, Digest: p.Digest, By: "mallory"})
	rejectedType(t, err)
	require.ErrorContains(t, err, `"mallory" may not decide call approval-1: its approvers are 1 of ["ana"]`)
	err = approvals.Decide(ctx, e.c, run.GetID(), sign(t, "bo", p, true, ""))
	rejectedType(t, err)
	require.ErrorContains(t, err, `"bo" may not decide call approval-1: its approvers are 1 of ["ana"]`)
	updates, scheduled := accepted(t, ctx, e.c, run)
	require.Zero(t, updates, "the rejected decisions left nothing in history")
	require.Zero(t, scheduled)

	require.NoError(t, approvals.Decide(ctx, e.c, run.GetID(), sign(t, "ana", p, true, "")))
	var out []string
	require.NoError(t, run.Get(ctx, &out))
	const widens = `temporaladk: activity PaySeat: its approvals.WithApproval options widen its declaration (Options.Approvals.Tools["PaySeat"]: 1 of ["ana" "bo"], Options.Activities["PaySeat"].ApprovalTimeout: 24h0m0s): `
	const never = `; a per-call option may narrow a declaration, never widen it (type: TemporaladkApprovalRejected, retryable: false)`
	require.Equal(t, []string{
		widens + `approvals.Options.Approvers are open (any name), 1 needed: open approvers would accept an unsigned decision by any name where the declaration names who signs` + never,
		widens + `approvals.Options.Approvers are 1 of ["ana" "eve"]: "eve" is not among the declared principals` + never,
		widens + `approvals.Options.Timeout 48h0m0s is longer than the declared 24h0m0s` + never,
		"booked NA1/1N",
	}, out)
	require.Equal(t, 1, e.book.runs("NA1/1N"))
	events := history(t, ctx, e.c, run)
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), "ana's approval only")
	require.Equal(t, 1, countEvents(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED))
	replay(t, e.c, run)
}
