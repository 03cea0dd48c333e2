package interceptors

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// TestUnitGrantBinding: the activity side refuses a grant given for
// another workflow, run, activity, activity ID or arguments, or with fewer
// distinct approvals by its approvers than they need, each naming what
// does not match; the grant of the call itself holds.
func TestUnitGrantBinding(t *testing.T) {
	t.Parallel()
	kit, err := newInterceptor(Options{
		Activities: map[string]temporaladk.Declaration{"BookSeat": {Class: temporaladk.Tool, RequiresApproval: true}},
		Approvals:  approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": {Open: true, Required: 2}}},
	}, seam.Seams{})
	require.NoError(t, err)
	info := activity.Info{ActivityID: "approval-1", ActivityType: activity.Type{Name: "BookSeat"}}
	info.WorkflowExecution.ID, info.WorkflowExecution.RunID = "trip-1", "run-1"
	approve := func(by string) approvals.Request {
		return approvals.Request{Decision: approvals.Decision{Call: "approval-1", Digest: "d1", By: by}, Approve: new(true)}
	}
	good := wire.ApprovalGrant{WorkflowID: "trip-1", RunID: "run-1", Call: "approval-1", ActivityID: "approval-1", ActivityType: "BookSeat",
		Digest: "d1", Approvals: []approvals.Request{approve("ana"), approve("bo")}}
	require.NoError(t, kit.verifyGrant(good, info, "d1"))

	cases := []struct {
		name   string
		change func(g *wire.ApprovalGrant)
		digest string
		want   string
	}{
		{"another workflow", func(g *wire.ApprovalGrant) { g.WorkflowID = "trip-2" }, "d1", "the grant is for workflow trip-2 run run-1, not this call's trip-1 run run-1"},
		{"another run", func(g *wire.ApprovalGrant) { g.RunID = "run-0" }, "d1", "the grant is for workflow trip-1 run run-0"},
		{"another activity", func(g *wire.ApprovalGrant) { g.ActivityType = "PaySeat" }, "d1", "the grant is for activity PaySeat"},
		{"another activity ID", func(g *wire.ApprovalGrant) { g.ActivityID = "approval-2" }, "d1", "the grant is for activity ID approval-2, not this call's approval-1"},
		{"other arguments", func(g *wire.ApprovalGrant) {}, "d2", "the grant is for arguments with digest d1, but this call's arguments have digest d2"},
		{"one approval of two", func(g *wire.ApprovalGrant) { g.Approvals = g.Approvals[:1] }, "d1", "holds 1 distinct approvals that hold on this worker, and 2 are needed"},
		{"the same approver twice", func(g *wire.ApprovalGrant) { g.Approvals = []approvals.Request{approve("ana"), approve("ana")} }, "d1", "holds 1 distinct approvals"},
		{"a denial is no approval", func(g *wire.ApprovalGrant) { g.Approvals[1].Approve = new(false) }, "d1", "bo: not an approval of this call"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := good
			g.Approvals = append([]approvals.Request(nil), good.Approvals...)
			tc.change(&g)
			require.ErrorContains(t, kit.verifyGrant(g, info, tc.digest), tc.want)
		})
	}
}
