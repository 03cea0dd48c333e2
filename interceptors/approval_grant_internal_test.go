package interceptors

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/testclock"
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
		{"no activity ID", func(g *wire.ApprovalGrant) { g.ActivityID = "" }, "d1", "the grant of approval-1 names no activity ID, so it is bound to no one activity"},
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

// TestUnitSignedGrantNamesItsActivity: a grant whose approvals were signed
// for activity approval-1 runs that activity; copied, grant and all, onto
// another activity ID it does not verify there, since the activity side
// rebuilds the statement from the activity it serves; and an approval
// signed by an earlier build, over a statement without the activity ID,
// is refused, saying so.
func TestUnitSignedGrantNamesItsActivity(t *testing.T) {
	t.Parallel()
	signers := map[string]*approvals.Signer{}
	var keys []approvals.PublicKey
	for _, p := range []string{"ana", "bo", "cy"} {
		seed := sha256.Sum256([]byte("grant test " + p))
		s, err := approvals.NewSigner(p+"-key", p, ed25519.NewKeyFromSeed(seed[:]))
		require.NoError(t, err)
		signers[p] = s
		keys = append(keys, s.PublicKey())
	}
	verifier, err := approvals.NewEd25519Verifier(keys...)
	require.NoError(t, err)
	pairs, err := verifier.Approvers(2)
	require.NoError(t, err)
	kit, err := newInterceptor(Options{
		Activities: map[string]temporaladk.Declaration{"PairSeat": {Class: temporaladk.Tool, RequiresApproval: true}},
		Approvals:  approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"PairSeat": pairs}, Verifier: verifier},
	}, seam.Seams{})
	require.NoError(t, err)
	p := approvals.Pending{WorkflowID: "trip-1", RunID: "run-1", Chain: "run-1", Call: "approval-1", ActivityID: "approval-1", ActivityType: "PairSeat", Digest: "d1"}
	expires := testclock.Epoch(t).Add(time.Hour).UTC()
	expiresJSON, err := json.Marshal(expires)
	require.NoError(t, err)
	var reqs []approvals.Request
	for _, by := range []string{"ana", "bo"} {
		r, err := signers[by].Approve(p, "", expires)
		require.NoError(t, err)
		reqs = append(reqs, r)
	}
	g := wire.ApprovalGrant{WorkflowID: "trip-1", RunID: "run-1", Chain: "run-1", Call: "approval-1", ActivityID: "approval-1", ActivityType: "PairSeat", Digest: "d1", Approvals: reqs}
	info := func(id string) activity.Info {
		i := activity.Info{ActivityID: id, ActivityType: activity.Type{Name: "PairSeat"}}
		i.WorkflowExecution.ID, i.WorkflowExecution.RunID = "trip-1", "run-1"
		return i
	}
	require.NoError(t, kit.verifyGrant(g, info("approval-1"), "d1"))

	copied := g
	copied.ActivityID = "approval-2"
	require.ErrorContains(t, kit.verifyGrant(copied, info("approval-2"), "d1"),
		`holds 0 distinct approvals that hold on this worker, and 2 are needed (2 of ["ana" "bo" "cy"]); refused: [ana: the signature by key "ana-key" does not verify: the decision was made for another workflow, run, call, activity ID, digest, decision or expiry, or altered`)

	// An earlier build's signature: the same statement without the
	// activity ID, under the v1 domain.
	old := g
	old.Approvals = nil
	for _, by := range []string{"ana", "bo"} {
		msg := []byte(`temporaladk approval decision v1` + "\n" + `{"workflow_id":"trip-1","chain":"run-1","run_id":"run-1","call":"approval-1","activity_type":"PairSeat","digest":"d1","approve":true,"by":"` + by + `","expires":` + string(expiresJSON) + `}`)
		seed := sha256.Sum256([]byte("grant test " + by))
		r := reqs[0]
		r.By, r.Key, r.Signature = by, by+"-key", ed25519.Sign(ed25519.NewKeyFromSeed(seed[:]), msg)
		old.Approvals = append(old.Approvals, r)
	}
	require.ErrorContains(t, kit.verifyGrant(old, info("approval-1"), "d1"),
		`ana: the signature by key "ana-key" was made over an earlier build's statement ("temporaladk approval decision v1"), which names no activity ID, so it could let more than one activity run: sign the decision again with this build (Signer, over Pending.Statement)`)
}

// TestUnitNarrows: a call's own approvers and timeout may ask more of an
// approval than its activity's declaration, never less; each widening is
// named.
func TestUnitNarrows(t *testing.T) {
	t.Parallel()
	named := approvals.Approvers{Principals: []string{"ana", "bo", "cy"}, Required: 2}
	open := approvals.Approvers{Open: true, Required: 2}
	for _, tc := range []struct {
		name     string
		declared approvals.Approvers
		own      approvals.Approvers
		timeout  time.Duration
		want     string // "" narrows
	}{
		{"nothing of its own", named, approvals.Approvers{}, 0, ""},
		{"the same", named, named, 0, ""},
		{"more approvals", named, approvals.Approvers{Principals: []string{"ana", "bo", "cy"}, Required: 3}, 0, ""},
		{"a subset of the principals", named, approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 2}, 0, ""},
		{"a shorter timeout", named, approvals.Approvers{}, time.Hour, ""},
		{"the declared timeout", named, approvals.Approvers{}, 4 * time.Hour, ""},
		{"named where the declaration is open", open, approvals.Approvers{Principals: []string{"eve", "dan"}, Required: 2}, 0, ""},
		{"open with more approvals", open, approvals.Approvers{Open: true, Required: 3}, 0, ""},
		{"open where the declaration names", named, approvals.Approvers{Open: true, Required: 2}, 0,
			`approvals.Options.Approvers are open (any name), 2 needed: open approvers would accept an unsigned decision by any name where the declaration names who signs`},
		{"a principal outside", named, approvals.Approvers{Principals: []string{"ana", "eve"}, Required: 2}, 0,
			`approvals.Options.Approvers are 2 of ["ana" "eve"]: "eve" is not among the declared principals`},
		{"fewer approvals", named, approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 1}, 0,
			`approvals.Options.Approvers are 1 of ["ana" "bo"]: fewer approvals than the declared 2`},
		{"fewer open approvals", open, approvals.Approvers{Open: true, Required: 1}, 0,
			`approvals.Options.Approvers are open (any name), 1 needed: fewer approvals than the declared 2`},
		{"a longer timeout", named, approvals.Approvers{}, 5 * time.Hour,
			`approvals.Options.Timeout 5h0m0s is longer than the declared 4h0m0s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, narrows(tc.declared, 4*time.Hour, tc.own, tc.timeout))
		})
	}
}
