package interceptors_test

import (
	"cmp"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// ApprovalUnitWorkflow refunds with the undeclared activity Refund on a
// context that asks for an approval, and books with the declared Reserve,
// both at once; it waits for both and returns what ran, or the first error.
func ApprovalUnitWorkflow(ctx workflow.Context) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	asked, err := approvals.WithApproval(ctx, approvals.Options{Summary: "refund the card ending 42", Approvers: approvals.Approvers{Open: true, Required: 1}})
	if err != nil {
		return nil, err
	}
	refund := workflow.ExecuteActivity(asked, "Refund", "order-7")
	reserve := workflow.ExecuteActivity(ctx, "Reserve", "seat-1A")
	var out []string
	var first error
	for _, f := range []workflow.Future{refund, reserve} {
		var s string
		if err := f.Get(ctx, &s); err != nil {
			first = cmp.Or(first, err)
			continue
		}
		out = append(out, s)
	}
	return out, first
}

func approvalEnv(t *testing.T, m *capture) *kittest.KitTestEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	if m != nil {
		s.SetMetricsHandler(m)
	}
	env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Reserve": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true},
	}, Approvals: openReserve()})
	require.NoError(t, err)
	env.RegisterWorkflow(ApprovalUnitWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "refunded " + s, nil }, activity.RegisterOptions{Name: "Refund"})
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "reserved " + s, nil }, activity.RegisterOptions{Name: "Reserve"})
	return env
}

// openReserve lets any named approver approve Reserve alone.
func openReserve() approvals.WorkerOptions {
	return approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"Reserve": {Open: true, Required: 1}}}
}

func update(env *kittest.KitTestEnvironment, id string, req approvals.Request) (accepted *bool, rejection *error) {
	accepted, rejection = new(bool), new(error)
	env.UpdateWorkflow(approvals.UpdateName, id, &testsuite.TestUpdateCallback{
		OnAccept:   func() { *accepted = true },
		OnReject:   func(err error) { *rejection = err },
		OnComplete: func(any, error) {},
	}, req)
	return accepted, rejection
}

// TestUnitApprovalListDetailsAndMetrics: the Query lists both waiting calls
// with the workflow's summary or the kit's, the 24-hour default deadline
// and the digest; the current details show them; the metrics count the
// requests, the decisions and the waits.
func TestUnitApprovalListDetailsAndMetrics(t *testing.T) {
	m := newCapture()
	env := approvalEnv(t, m)
	start := kittest.DefaultStartTime()
	var listed []approvals.Pending
	var details string
	type decision struct {
		accepted  *bool
		rejection *error
	}
	var decisions []decision
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(approvals.QueryName)
		require.NoError(t, err)
		require.NoError(t, v.Get(&listed))
		v, err = env.QueryWorkflow("__temporal_workflow_metadata")
		require.NoError(t, err)
		var meta sdkpb.WorkflowMetadata
		require.NoError(t, v.Get(&meta))
		details = meta.GetCurrentDetails()
		for _, p := range listed {
			accepted, rejection := update(env, "u-"+p.Call, approvals.Request{Decision: approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}, Approve: new(true)})
			decisions = append(decisions, decision{accepted, rejection})
		}
	}, time.Hour)
	env.ExecuteWorkflow(ApprovalUnitWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var out []string
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, []string{"refunded order-7", "reserved seat-1A"}, out)
	require.Len(t, decisions, 2)
	for _, d := range decisions {
		assert.True(t, *d.accepted)
		assert.NoError(t, *d.rejection)
	}

	refundDigest, err := approvals.Digest("order-7")
	require.NoError(t, err)
	reserveDigest, err := approvals.Digest("seat-1A")
	require.NoError(t, err)
	require.Equal(t, []approvals.Pending{
		{Call: "approval-1", ActivityID: "approval-1", ActivityType: "Refund", Digest: refundDigest, Summary: "refund the card ending 42", Since: start, Deadline: start.Add(approvals.DefaultTimeout),
			Args: []any{"order-7"}, Approvers: approvals.Approvers{Open: true, Required: 1}},
		{Call: "approval-2", ActivityID: "approval-2", ActivityType: "Reserve", Class: temporaladk.Tool, Digest: reserveDigest, Summary: "tool Reserve", Since: start, Deadline: start.Add(24 * time.Hour),
			Args: []any{"seat-1A"}, Approvers: approvals.Approvers{Open: true, Required: 1}},
	}, normalize(listed))
	require.Contains(t, details, "approval-1: refund the card ending 42 (digest "+refundDigest+")")
	require.Contains(t, details, "approval-2: tool Reserve (digest "+reserveDigest+"), until 2026-01-02T00:00:00Z")
	assert.EqualValues(t, 2, m.sum(observe.MetricApprovalsRequested))
	assert.EqualValues(t, 1, m.sum(observe.MetricApprovalDecisions, "decision=approved", "activity_type=Reserve", "class=tool"))
	assert.EqualValues(t, 2, m.sum(observe.MetricApprovalDecisions, "decision=approved"))
	assert.EqualValues(t, 2, m.sum(observe.MetricApprovalWait))
	assert.Zero(t, m.sum(observe.MetricApprovalDecisions, "decision=denied")+m.sum(observe.MetricApprovalDecisions, "decision=timed_out"))
}

// normalize drops what the test environment makes up (the run's IDs) and
// puts times in UTC.
func normalize(ps []approvals.Pending) []approvals.Pending {
	for i := range ps {
		ps[i].Since, ps[i].Deadline = ps[i].Since.UTC(), ps[i].Deadline.UTC()
		ps[i].WorkflowID, ps[i].RunID, ps[i].Chain = "", "", ""
	}
	return ps
}

// TestUnitApprovalTimesOutAfterTheDefault: with no decision, a call ends at
// the 24-hour default with a never-retryable ApprovalDeniedError saying it
// timed out, counted as timed_out.
func TestUnitApprovalTimesOutAfterTheDefault(t *testing.T) {
	m := newCapture()
	env := approvalEnv(t, m)
	env.ExecuteWorkflow(ApprovalUnitWorkflow)
	err := env.GetWorkflowError()
	kitErr, ok := temporaladk.AsError(err)
	require.True(t, ok, "%v", err)
	denied, ok := kitErr.(*temporaladk.ApprovalDeniedError)
	require.True(t, ok, "%v", err)
	require.Equal(t, "Refund approval-1", denied.Action)
	require.Equal(t, "timed out: no decision within 24h0m0s", denied.Reason)
	require.Empty(t, denied.Approver)
	require.False(t, denied.Retryable())
	require.Equal(t, 24*time.Hour, env.Now().Sub(kittest.DefaultStartTime()))
	assert.EqualValues(t, 2, m.sum(observe.MetricApprovalDecisions, "decision=timed_out"))
}

// TestUnitApprovalRejections: the validator rejects a request without an
// approver, for an unknown call, for other arguments, and for a call
// decided already; a denial ends the call with the approver and reason.
func TestUnitApprovalRejections(t *testing.T) {
	env := approvalEnv(t, nil)
	refundDigest, err := approvals.Digest("order-7")
	require.NoError(t, err)
	other, err := approvals.Digest("order-8")
	require.NoError(t, err)
	type attempt struct {
		req     approvals.Request
		wantErr string
	}
	deny := new(false)
	attempts := []attempt{
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: refundDigest, By: "ana"}}, `says neither approve nor deny: add approve: true to approve or approve: false to deny (Request.Approve, JSON field approve, is missing)`},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: refundDigest}, Approve: deny}, "names no approver"},
		{approvals.Request{Decision: approvals.Decision{Call: "", Digest: refundDigest, By: "ana"}, Approve: deny}, "names no call"},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", By: "ana"}, Approve: deny}, "names no argument digest"},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-3", Digest: refundDigest, By: "ana"}, Approve: deny}, `no call "approval-3"`},
		{approvals.Request{Decision: approvals.Decision{Call: "refund", Digest: refundDigest, By: "ana"}, Approve: deny}, `no call "refund"`},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: other, By: "ana"}, Approve: deny}, "is not the digest of the arguments of call approval-1"},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: refundDigest, By: "ana", Reason: "fraud"}, Approve: deny}, ""},
		{approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: refundDigest, By: "bo"}, Approve: new(true)}, "decided"},
	}
	results := make([]*error, len(attempts))
	accepted := make([]*bool, len(attempts))
	env.RegisterDelayedCallback(func() {
		for i, a := range attempts {
			accepted[i], results[i] = update(env, "u"+string(rune('a'+i)), a.req)
		}
	}, time.Minute)
	env.ExecuteWorkflow(ApprovalUnitWorkflow)
	for i, a := range attempts {
		if a.wantErr == "" {
			assert.True(t, *accepted[i], "attempt %d", i)
			assert.NoError(t, *results[i], "attempt %d", i)
			continue
		}
		assert.False(t, *accepted[i], "attempt %d", i)
		assert.ErrorContains(t, *results[i], a.wantErr, "attempt %d", i)
	}
	kitErr, ok := temporaladk.AsError(env.GetWorkflowError())
	require.True(t, ok)
	denied, ok := kitErr.(*temporaladk.ApprovalDeniedError)
	require.True(t, ok)
	require.Equal(t, "ana", denied.Approver)
	require.Equal(t, "fraud", denied.Reason)
}

// TestUnitApprovalBadInput: a negative per-call timeout is an error; so are
// arguments without a canonical form.
func TestUnitApprovalBadInput(t *testing.T) {
	env := approvalEnv(t, nil)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		_, err := approvals.WithApproval(ctx, approvals.Options{Timeout: -time.Second})
		return err
	}, workflow.RegisterOptions{Name: "Negative"})
	env.ExecuteWorkflow("Negative")
	require.ErrorContains(t, env.GetWorkflowError(), "Timeout is -1s")
	_, err := approvals.Digest(make(chan int))
	require.ErrorContains(t, err, "no canonical form")
}

// TestUnitWithApprovalApprovers: bad approvers on a WithApproval context
// are an error naming the field; a call of an undeclared activity on a
// context without approvers fails at once, naming the field to set, and is
// never scheduled.
func TestUnitWithApprovalApprovers(t *testing.T) {
	env := approvalEnv(t, nil)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		_, err := approvals.WithApproval(ctx, approvals.Options{Approvers: approvals.Approvers{Principals: []string{"ana"}, Required: 2}})
		return err
	}, workflow.RegisterOptions{Name: "BadApprovers"})
	env.ExecuteWorkflow("BadApprovers")
	require.ErrorContains(t, env.GetWorkflowError(), "approvals: WithApproval: Options.Approvers.Required is 2: it must be between 1 and the 1 principals")

	env = approvalEnv(t, nil)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		asked, err := approvals.WithApproval(ctx, approvals.Options{Summary: "refund"})
		if err != nil {
			return err
		}
		return workflow.ExecuteActivity(asked, "Refund", "order-9").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "NoApprovers"})
	env.ExecuteWorkflow("NoApprovers")
	require.ErrorContains(t, env.GetWorkflowError(), `activity Refund needs an approval but has no approvers: approvals.Options.Approvers is not set and Options.Approvals.Tools has no entry for "Refund"`)
	require.Empty(t, env.Recorder.CallsOf("Refund"))
}

// TestUnitDigestIsTheCanonicalForm: equal arguments however spelled share a
// digest; other arguments do not.
func TestUnitDigestIsTheCanonicalForm(t *testing.T) {
	type seat struct {
		Flight string `json:"flight"`
		Row    int    `json:"row"`
	}
	a, err := approvals.Digest(seat{"LH1", 3})
	require.NoError(t, err)
	b, err := approvals.Digest(map[string]any{"row": 3.0, "flight": "LH1"})
	require.NoError(t, err)
	c, err := approvals.Digest(seat{"LH1", 4})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
	require.Len(t, a, 64)
}

// TestUnitApprovalClassIsThePlans: a waiting call's class is the one its
// plan gives it: an undeclared, untagged call under the kit's DefaultClass
// is listed with that class, as it is then scheduled.
func TestUnitApprovalClassIsThePlans(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{DefaultClass: temporaladk.Memory, Activities: map[string]temporaladk.Declaration{
		"Reserve": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true},
	}, Approvals: openReserve()})
	require.NoError(t, err)
	env.RegisterWorkflow(ApprovalUnitWorkflow)
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "refunded " + s, nil }, activity.RegisterOptions{Name: "Refund"})
	env.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) { return "reserved " + s, nil }, activity.RegisterOptions{Name: "Reserve"})
	var listed []approvals.Pending
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(approvals.QueryName)
		require.NoError(t, err)
		require.NoError(t, v.Get(&listed))
		for _, p := range listed {
			update(env, "u-"+p.Call, approvals.Request{Decision: approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"}, Approve: new(true)})
		}
	}, time.Hour)
	env.ExecuteWorkflow(ApprovalUnitWorkflow)
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, listed, 2)
	assert.Equal(t, temporaladk.Memory, listed[0].Class, "Refund: neither tagged nor declared, so DefaultClass")
	assert.Equal(t, "refund the card ending 42", listed[0].Summary)
	assert.Equal(t, temporaladk.Tool, listed[1].Class, "Reserve: its declaration")
	calls := env.Recorder.CallsOf("Refund")
	require.Len(t, calls, 1, "Refund was scheduled once, after its approval")
	assert.Equal(t, "memory: Refund", calls[0].Options.Summary, "and planned with the class it was listed with")
}
