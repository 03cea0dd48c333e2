package testsuite_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// bookSeats books each seat with the approval-gated BookSeat, all at once,
// and reports each outcome: "booked <seat>", or "denied by <who>: <why>".
func bookSeats(ctx workflow.Context, seats []string) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	futures := make([]workflow.Future, len(seats))
	for i, s := range seats {
		futures[i] = workflow.ExecuteActivity(ctx, "BookSeat", s)
	}
	out := make([]string, len(seats))
	for i, f := range futures {
		var denied *temporaladk.ApprovalDeniedError
		switch err := f.Get(ctx, &out[i]); {
		case errors.As(err, &denied):
			out[i] = fmt.Sprintf("denied by %s: %s", denied.Approver, denied.Reason)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

func bookSeat(_ context.Context, seat string) (string, error) { return "booked " + seat, nil }

// seatEnv is a kit test environment where BookSeat needs one approval by
// approvers.
func seatEnv(t *testing.T, approvers approvals.Approvers, verifier approvals.Verifier) *testsuite.KitTestEnvironment {
	t.Helper()
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{
		Activities: map[string]temporaladk.Declaration{
			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true},
		},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": approvers}, Verifier: verifier},
	})
	require.NoError(t, err)
	env.RegisterWorkflow(bookSeats)
	env.RegisterActivityWithOptions(bookSeat, activity.RegisterOptions{Name: "BookSeat"})
	return env
}

// TestKitTestEnvironmentApproveAndDenyOpen: with open approvers, Approve
// and Deny name calls by their ID and decide them unsigned, with the
// digest the run listed.
func TestKitTestEnvironmentApproveAndDenyOpen(t *testing.T) {
	env := seatEnv(t, approvals.Approvers{Open: true, Required: 1}, nil)
	env.Approve(t, time.Minute, "approval-1", "ana")
	env.Deny(t, time.Minute, "approval-2", "ana", "one seat is enough")
	env.ExecuteWorkflow(bookSeats, []string{"12A", "12B"})
	require.NoError(t, env.GetWorkflowError())
	var out []string
	require.NoError(t, env.GetWorkflowResult(&out))
	assert.Equal(t, []string{"booked 12A", "denied by ana: one seat is enough"}, out)
	assert.Equal(t, testsuite.DefaultStartTime().Add(time.Minute), env.Now().UTC(), "decided a minute in, not at the 24-hour deadline")
}

// TestKitTestEnvironmentApproveSigned: with signed approvers, Approve signs
// with the signer of the approver, which the kit's own Verifier checks,
// on the workflow side and again on the activity side; an activity type
// names all its waiting calls.
func TestKitTestEnvironmentApproveSigned(t *testing.T) {
	team, err := testsuite.NewSigners(1, "ana", "bo")
	require.NoError(t, err)
	env := seatEnv(t, team.Approvers, team.Verifier)
	env.Signers = []*approvals.Signer{team.Of("ana")}
	env.Approve(t, time.Minute, "BookSeat", "ana")
	env.ExecuteWorkflow(bookSeats, []string{"12A", "12B"})
	require.NoError(t, env.GetWorkflowError())
	var out []string
	require.NoError(t, env.GetWorkflowResult(&out))
	assert.Equal(t, []string{"booked 12A", "booked 12B"}, out)
}

// recordingTB records what a helper reports, where a *testing.T would fail
// the test.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	fatals   []string
	errs     []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recordingTB) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func (r *recordingTB) reported() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(append(append([]string(nil), r.fatals...), r.errs...), "\n")
}

// TestKitTestEnvironmentApproveRefusesBadInput: bad arguments fail the
// test at once, naming what is wrong, and register nothing.
func TestKitTestEnvironmentApproveRefusesBadInput(t *testing.T) {
	env := seatEnv(t, approvals.Approvers{Open: true, Required: 1}, nil)
	tests := []struct {
		name string
		call func(tb testing.TB)
		want string
	}{
		{"zero after", func(tb testing.TB) { env.Approve(tb, 0, "BookSeat", "ana") }, "after is 0s: it must be positive"},
		{"negative after", func(tb testing.TB) { env.Deny(tb, -time.Second, "BookSeat", "ana", "") }, "after is -1s: it must be positive"},
		{"no which", func(tb testing.TB) { env.Approve(tb, time.Minute, " ", "ana") }, "which is empty: name an activity type, or a call (approval-N)"},
		{"no approver", func(tb testing.TB) { env.Deny(tb, time.Minute, "BookSeat", "", "no") }, "by is empty: name who decides"},
		{"nil environment", func(tb testing.TB) { (*testsuite.KitTestEnvironment)(nil).Approve(tb, time.Minute, "BookSeat", "ana") }, "the environment is nil: build it with NewKitTestEnvironment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{}
			tt.call(rec)
			assert.Contains(t, rec.reported(), tt.want)
			assert.Empty(t, rec.cleanups, "nothing registered")
		})
	}
	assert.PanicsWithValue(t, `testsuite: KitTestEnvironment.Approve(1m0s, "BookSeat", "ana"): t is nil: pass the test's *testing.T, which reports what did not happen`,
		func() { env.Approve(nil, time.Minute, "BookSeat", "ana") })
}

// TestKitTestEnvironmentApproveReportsWhatDidNotHappen: a decision on no
// waiting call, one that needs a signer the environment lacks, and one
// the workflow ended before are test errors that say so.
func TestKitTestEnvironmentApproveReportsWhatDidNotHappen(t *testing.T) {
	t.Run("no such call", func(t *testing.T) {
		env := seatEnv(t, approvals.Approvers{Open: true, Required: 1}, nil)
		rec := &recordingTB{}
		env.Approve(rec, time.Minute, "Refund", "ana")
		env.Approve(t, 2*time.Minute, "BookSeat", "ana")
		env.ExecuteWorkflow(bookSeats, []string{"12A"})
		require.NoError(t, env.GetWorkflowError())
		rec.cleanup()
		assert.Equal(t, `testsuite: KitTestEnvironment.Approve(1m0s, "Refund", "ana"): no call waiting for approval is "Refund" or a call of it; waiting: approval-1 (BookSeat)`, rec.reported())
	})
	t.Run("no signer", func(t *testing.T) {
		ana, err := testsuite.NewSigners(1, "ana")
		require.NoError(t, err)
		env := seatEnv(t, ana.Approvers, ana.Verifier)
		rec := &recordingTB{}
		env.Approve(rec, time.Minute, "BookSeat", "ana")
		env.ExecuteWorkflow(bookSeats, []string{"12A"})
		rec.cleanup()
		assert.Contains(t, rec.reported(), `call approval-1 (BookSeat) needs a decision signed by one of ["ana"], and KitTestEnvironment.Signers has no signer for "ana"`)
		var out []string
		require.NoError(t, env.GetWorkflowResult(&out))
		assert.Equal(t, []string{"denied by : timed out: no decision within 24h0m0s"}, out, "without a decision the call times out")
	})
	t.Run("signed by a key the verifier does not hold", func(t *testing.T) {
		ana, err := testsuite.NewSigners(1, "ana")
		require.NoError(t, err)
		env := seatEnv(t, ana.Approvers, ana.Verifier)
		seed := sha256.Sum256([]byte("another key of ana's"))
		other, err := approvals.NewSigner("ana-other", "ana", ed25519.NewKeyFromSeed(seed[:]))
		require.NoError(t, err)
		env.Signers = []*approvals.Signer{other}
		rec := &recordingTB{}
		env.Approve(rec, time.Minute, "BookSeat", "ana")
		env.ExecuteWorkflow(bookSeats, []string{"12A"})
		rec.cleanup()
		assert.Contains(t, rec.reported(), "the run rejected the decision on approval-1 (BookSeat)")
		assert.Contains(t, rec.reported(), `key "ana-other" is not one of this worker's approval keys`)
	})
	t.Run("never ran", func(t *testing.T) {
		env := seatEnv(t, approvals.Approvers{Open: true, Required: 1}, nil)
		rec := &recordingTB{}
		env.Approve(rec, 48*time.Hour, "BookSeat", "ana")
		env.ExecuteWorkflow(bookSeats, []string{"12A"})
		rec.cleanup()
		assert.Equal(t, `testsuite: KitTestEnvironment.Approve(48h0m0s, "BookSeat", "ana") never ran: the workflow ended, or was not started, before 48h0m0s of its time had passed`, rec.reported())
	})
}

// TestNewSigners: one call makes the signers, the verifier that knows each
// one's key and the approvers; each key is the same in every run; bad input
// is an error naming it.
func TestNewSigners(t *testing.T) {
	team, err := testsuite.NewSigners(2, "ana", "bo", "cy")
	require.NoError(t, err)
	require.Len(t, team.Signers, 3)
	assert.Equal(t, approvals.Approvers{Required: 2, Principals: []string{"ana", "bo", "cy"}}, team.Approvers)
	p := approvals.Pending{Call: "approval-1", ActivityType: "Refund", Digest: "d", WorkflowID: "w", RunID: "r"}
	for _, s := range team.Signers {
		expires := testsuite.DefaultStartTime().Add(time.Hour)
		req, err := s.Approve(p, "", expires)
		require.NoError(t, err)
		assert.NoError(t, team.Verifier.Verify(p.Statement(true, s.Principal(), expires), req.Key, req.Signature), "the verifier knows %s's key", s.Principal())
	}
	assert.Nil(t, team.Of("dan"), "no signer for a principal not among them")
	again, err := testsuite.NewSigners(1, "ana")
	require.NoError(t, err)
	assert.Equal(t, team.Of("ana").PublicKey(), again.Of("ana").PublicKey(), "a principal's test key is the same every time")

	for _, tc := range []struct {
		required   int
		principals []string
		want       string
	}{
		{0, []string{"ana"}, "Approvers.Required is 0"},
		{2, []string{"ana"}, "Approvers.Required is 2"},
		{1, []string{"ana", "ana"}, `Approvers.Principals[1] is "ana", named twice`},
		{1, []string{""}, "Approvers.Principals[0] is empty"},
		{1, nil, "Approvers.Principals is empty"},
	} {
		_, err := testsuite.NewSigners(tc.required, tc.principals...)
		assert.ErrorContains(t, err, "testsuite: NewSigners: approvals: "+tc.want)
	}
}
