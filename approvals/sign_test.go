package approvals_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/testclock"
)

// TestUnitApproversValidate: bad approvers are errors naming the field;
// the constructors copy the principals.
func TestUnitApproversValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    approvals.Approvers
		want string
	}{
		{"zero", approvals.Approvers{}, "Approvers.Principals is empty: name who may approve, or ask for open mode"},
		{"required zero", approvals.Approvers{Principals: []string{"ana"}}, "Approvers.Required is 0: it must be between 1 and the 1 principals"},
		{"required above", approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 3}, "Approvers.Required is 3"},
		{"empty principal", approvals.Approvers{Principals: []string{"ana", " "}, Required: 1}, "Approvers.Principals[1] is empty"},
		{"spaces", approvals.Approvers{Principals: []string{"ana "}, Required: 1}, `Approvers.Principals[0] is "ana "`},
		{"twice", approvals.Approvers{Principals: []string{"ana", "ana"}, Required: 1}, `Approvers.Principals[1] is "ana", named twice`},
		{"open with principals", approvals.Approvers{Open: true, Principals: []string{"ana"}, Required: 1}, "but Open is set"},
		{"open without count", approvals.Approvers{Open: true}, "Approvers.Required is 0: at least 1"},
		{"two of three", approvals.Approvers{Principals: []string{"ana", "bo", "cy"}, Required: 2}, ""},
		{"open", approvals.Approvers{Open: true, Required: 1}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
	principals := []string{"ana", "bo"}
	a, err := approvals.NewApprovers(2, principals...)
	require.NoError(t, err)
	principals[0] = "mallory"
	require.Equal(t, []string{"ana", "bo"}, a.Principals, "NewApprovers copies")
	require.True(t, a.Allows("bo"))
	require.False(t, a.Allows("mallory"))
	open, err := approvals.OpenApprovers(1)
	require.NoError(t, err)
	require.True(t, open.Allows("anyone"))
	require.False(t, open.Allows(" "))
}

// TestUnitSignAndVerify: a signature verifies over its own statement only;
// keys are validated and copied.
func TestUnitSignAndVerify(t *testing.T) {
	t.Parallel()
	ana := signer("ana")
	v, err := approvals.NewEd25519Verifier(ana.PublicKey(), signer("bo").PublicKey())
	require.NoError(t, err)
	p := approvals.Pending{WorkflowID: "trip-1", RunID: "run-2", Chain: "run-1", Call: "approval-3", ActivityType: "BookSeat", Digest: "d1"}
	expires := testclock.Epoch(t).Add(time.Hour)
	r, err := ana.Approve(p, "ok", expires)
	require.NoError(t, err)
	require.True(t, r.Approves())
	require.Equal(t, "ana-test", r.Key)
	require.NoError(t, v.Verify(p.Statement(true, "ana", expires), r.Key, r.Signature))

	changed := []struct {
		name string
		s    approvals.Statement
	}{
		{"workflow", approvals.Statement{WorkflowID: "trip-2", Chain: p.Chain, RunID: p.RunID, Call: p.Call, ActivityType: p.ActivityType, Digest: p.Digest, Approve: true, By: "ana", Expires: expires}},
		{"chain", approvals.Statement{WorkflowID: p.WorkflowID, Chain: "run-0", RunID: p.RunID, Call: p.Call, ActivityType: p.ActivityType, Digest: p.Digest, Approve: true, By: "ana", Expires: expires}},
		{"activity", approvals.Statement{WorkflowID: p.WorkflowID, Chain: p.Chain, RunID: p.RunID, Call: p.Call, ActivityType: "PaySeat", Digest: p.Digest, Approve: true, By: "ana", Expires: expires}},
		{"decision", p.Statement(false, "ana", expires)},
		{"expiry in another zone is the same instant", p.Statement(true, "ana", expires.In(time.FixedZone("x", 3600)))},
	}
	for _, c := range changed {
		err := v.Verify(c.s, r.Key, r.Signature)
		if c.name == "expiry in another zone is the same instant" {
			require.NoError(t, err, c.name)
			continue
		}
		require.ErrorContains(t, err, "does not verify", c.name)
	}
	require.ErrorContains(t, v.Verify(p.Statement(true, "ana", expires), "cy-test", r.Signature), `key "cy-test" is not one of this worker's approval keys`)
	require.ErrorContains(t, v.Verify(p.Statement(true, "ana", expires), r.Key, r.Signature[:10]), "the signature is 10 bytes")

	_, err = ana.Approve(p, "", time.Time{})
	require.ErrorContains(t, err, "the expiry is zero")
	_, err = approvals.NewSigner("", "ana", testKey("ana"))
	require.ErrorContains(t, err, "the key ID is empty")
	_, err = approvals.NewSigner("k", "", testKey("ana"))
	require.ErrorContains(t, err, "the principal is empty")
	_, err = approvals.NewSigner("k", "ana", testKey("ana")[:3])
	require.ErrorContains(t, err, "the key is 3 bytes")
	_, err = approvals.NewEd25519Verifier()
	require.ErrorContains(t, err, "no keys")
	pub := ana.PublicKey()
	_, err = approvals.NewEd25519Verifier(pub, pub)
	require.ErrorContains(t, err, `keys[1].ID "ana-test" is given twice`)
	_, err = approvals.NewEd25519Verifier(approvals.PublicKey{ID: "k", Principal: "ana", Key: ed25519.PublicKey{1}})
	require.ErrorContains(t, err, "keys[0].Key is 1 bytes")

	// The verifier keeps its own copy of the key.
	k := signer("cy").PublicKey()
	kv, err := approvals.NewEd25519Verifier(k)
	require.NoError(t, err)
	cr, err := signer("cy").Deny(p, "", expires)
	require.NoError(t, err)
	k.Key[0] ^= 0xff
	require.NoError(t, kv.Verify(p.Statement(false, "cy", expires), cr.Key, cr.Signature))
}

// TestUnitVerifierApprovers: a verifier's Approvers are every principal it
// holds a key of, each once in the order of its first key, so that a
// principal is named once, in its key; a count outside them, a principal
// NewApprovers refuses and a nil verifier are errors naming them.
func TestUnitVerifierApprovers(t *testing.T) {
	t.Parallel()
	rotated, err := approvals.NewSigner("ana-2027", "ana", testKey("ana-2027"))
	require.NoError(t, err)
	v, err := approvals.NewEd25519Verifier(signer("bo").PublicKey(), signer("ana").PublicKey(), rotated.PublicKey(), signer("cy").PublicKey())
	require.NoError(t, err)
	a, err := v.Approvers(2)
	require.NoError(t, err)
	require.Equal(t, approvals.Approvers{Principals: []string{"bo", "ana", "cy"}, Required: 2}, a)
	a.Principals[0] = "mallory"
	again, err := v.Approvers(3)
	require.NoError(t, err)
	require.Equal(t, []string{"bo", "ana", "cy"}, again.Principals, "each call returns its own copy")

	_, err = v.Approvers(0)
	require.EqualError(t, err, "approvals: Ed25519Verifier.Approvers: Approvers.Required is 0: it must be between 1 and the 3 principals")
	_, err = v.Approvers(4)
	require.EqualError(t, err, "approvals: Ed25519Verifier.Approvers: Approvers.Required is 4: it must be between 1 and the 3 principals")
	spaced, err := approvals.NewEd25519Verifier(approvals.PublicKey{ID: "k", Principal: "ana ", Key: signer("ana").PublicKey().Key})
	require.NoError(t, err)
	_, err = spaced.Approvers(1)
	require.ErrorContains(t, err, `Approvers.Principals[0] is "ana ": surrounding spaces`)
	var none *approvals.Ed25519Verifier
	_, err = none.Approvers(1)
	require.ErrorContains(t, err, "the verifier is nil")
}
