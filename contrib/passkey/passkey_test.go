package passkey_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/contrib/passkey"
	"github.com/temporaladk/adk-go/testsuite"
)

// statement is a decision of ana's on a waiting call, expiring an hour
// after the tests' epoch (the verifier reads no clock: any instant does).
func statement(t *testing.T) approvals.Statement {
	t.Helper()
	return approvals.Statement{WorkflowID: "refund-1", Chain: "run-1", RunID: "run-1", Call: "approval-1",
		ActivityType: "IssueRefund", Digest: "d1", Approve: true, By: "ana", Expires: testsuite.Epoch(t).Add(time.Hour)}
}

// TestVerifier: an assertion over the decision's challenge by ana's passkey
// verifies; each thing that makes it prove something else is refused with
// the mistake it names.
func TestVerifier(t *testing.T) {
	t.Parallel()
	ana, bo, stranger := newSoftKey("ana"), newSoftKey("bo"), newSoftKey("stranger")
	v, err := passkey.NewVerifier(ana.credential("ana", true), bo.credential("bo", false))
	require.NoError(t, err)
	s := statement(t)
	challenge := must(passkey.Challenge(s))
	good := ana.assert(challenge, origin, rpID, flagUP|flagUV)
	require.NoError(t, v.Verify(s, ana.ID(), good))

	boS := s
	boS.By = "bo"
	require.NoError(t, v.Verify(boS, bo.ID(), bo.assert(must(passkey.Challenge(boS)), origin, rpID, flagUP)), "bo's passkey does not require user verification")

	other := s
	other.Digest = "d2"
	denied := s
	denied.Approve = false
	later := s
	later.Expires = later.Expires.Add(time.Hour)
	// ana's assertion carrying the stranger's signature over the same data.
	var forged map[string]any
	require.NoError(t, json.Unmarshal(good, &forged))
	var theirs map[string]any
	require.NoError(t, json.Unmarshal(stranger.assert(challenge, origin, rpID, flagUP|flagUV), &theirs))
	forged["response"].(map[string]any)["signature"] = theirs["response"].(map[string]any)["signature"]
	tampered, err := json.Marshal(forged)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		s     approvals.Statement
		key   string
		proof []byte
		want  passkey.Mistake
	}{
		{"unknown credential", s, stranger.ID(), stranger.assert(challenge, origin, rpID, flagUP|flagUV), passkey.UnknownCredential},
		{"another principal's passkey", s, bo.ID(), bo.assert(challenge, origin, rpID, flagUP|flagUV), passkey.OtherPrincipal},
		{"not an assertion", s, ana.ID(), []byte(`{"signature":"x"}`), passkey.Malformed},
		{"assertion by another credential", s, ana.ID(), stranger.assert(challenge, origin, rpID, flagUP|flagUV), passkey.OtherCredential},
		{"other arguments", other, ana.ID(), good, passkey.OtherChallenge},
		{"a deny for an approve", denied, ana.ID(), good, passkey.OtherChallenge},
		{"a later expiry", later, ana.ID(), good, passkey.OtherChallenge},
		{"another origin", s, ana.ID(), ana.assert(challenge, "http://localhost:9999", rpID, flagUP|flagUV), passkey.OtherOrigin},
		{"another relying party", s, ana.ID(), ana.assert(challenge, origin, "example.com", flagUP|flagUV), passkey.OtherRelyingParty},
		{"no user presence", s, ana.ID(), ana.assert(challenge, origin, rpID, flagUV), passkey.UserNotPresent},
		{"no user verification where required", s, ana.ID(), ana.assert(challenge, origin, rpID, flagUP), passkey.UserNotVerified},
		{"a signature of other bytes", s, ana.ID(), tampered, passkey.BadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Verify(tc.s, tc.key, tc.proof)
			var ae *passkey.AssertionError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, tc.want, ae.Mistake, "%v", err)
			require.Equal(t, tc.key, ae.Credential)
			require.Contains(t, err.Error(), string(tc.want))
		})
	}
}

// TestCredentialOptions: each bad credential given to NewVerifier and
// NewRelay is an *OptionError naming its field.
func TestCredentialOptions(t *testing.T) {
	t.Parallel()
	ana := newSoftKey("ana")
	good := ana.credential("ana", true)
	with := func(f func(*passkey.Credential)) passkey.Credential { c := good; f(&c); return c }
	for _, tc := range []struct {
		name  string
		creds []passkey.Credential
		field string
	}{
		{"none", nil, "credentials"},
		{"no principal", []passkey.Credential{with(func(c *passkey.Credential) { c.Principal = "" })}, "credentials[0].Principal"},
		{"spaces", []passkey.Credential{with(func(c *passkey.Credential) { c.Principal = " ana" })}, "credentials[0].Principal"},
		{"no ID", []passkey.Credential{with(func(c *passkey.Credential) { c.ID = "" })}, "credentials[0].ID"},
		{"ID not base64url", []passkey.Credential{with(func(c *passkey.Credential) { c.ID = "a+b/c=" })}, "credentials[0].ID"},
		{"ID twice", []passkey.Credential{good, with(func(c *passkey.Credential) { c.Principal = "bo" })}, "credentials[1].ID"},
		{"no public key", []passkey.Credential{with(func(c *passkey.Credential) { c.PublicKey = nil })}, "credentials[0].PublicKey"},
		{"not COSE", []passkey.Credential{with(func(c *passkey.Credential) { c.PublicKey = []byte("ssh-ed25519 AAAA") })}, "credentials[0].PublicKey"},
		{"no RPID", []passkey.Credential{with(func(c *passkey.Credential) { c.RPID = "" })}, "credentials[0].RPID"},
		{"RPID an address", []passkey.Credential{with(func(c *passkey.Credential) { c.RPID = "127.0.0.1" })}, "credentials[0].RPID"},
		{"no origins", []passkey.Credential{with(func(c *passkey.Credential) { c.Origins = nil })}, "credentials[0].Origins"},
		{"origin with a path", []passkey.Credential{with(func(c *passkey.Credential) { c.Origins = []string{origin + "/inbox"} })}, "credentials[0].Origins[0]"},
		{"origin off the RPID", []passkey.Credential{with(func(c *passkey.Credential) { c.Origins = []string{"https://example.com"} })}, "credentials[0].Origins[0]"},
		{"http off localhost", []passkey.Credential{with(func(c *passkey.Credential) {
			c.RPID, c.Origins = "example.com", []string{"http://example.com"}
		})}, "credentials[0].Origins[0]"},
		{"not an origin", []passkey.Credential{with(func(c *passkey.Credential) { c.Origins = []string{"localhost:8080"} })}, "credentials[0].Origins[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for fn, build := range map[string]func(...passkey.Credential) error{
				"NewVerifier": func(c ...passkey.Credential) error { _, err := passkey.NewVerifier(c...); return err },
				"NewRelay":    func(c ...passkey.Credential) error { _, err := passkey.NewRelay(c...); return err },
			} {
				var oe *passkey.OptionError
				require.ErrorAs(t, build(tc.creds...), &oe, fn)
				require.Equal(t, fn, oe.Func)
				require.Equal(t, tc.field, oe.Field, "%v", oe)
			}
		})
	}
	bo := newSoftKey("bo").credential("bo", false)
	bo.RPID, bo.Origins = "example.com", []string{"https://approvals.example.com"}
	_, err := passkey.NewVerifier(good, bo)
	require.NoError(t, err, "a worker may know passkeys of several relying parties")
	_, err = passkey.NewRelay(good, bo)
	var oe *passkey.OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "credentials[1].RPID", oe.Field, "a relay serves one relying party")
}

// TestVerifierCopies: changing the credentials given changes no verifier.
func TestVerifierCopies(t *testing.T) {
	t.Parallel()
	ana := newSoftKey("ana")
	c := ana.credential("ana", false)
	v, err := passkey.NewVerifier(c)
	require.NoError(t, err)
	c.Origins[0] = "http://localhost:1"
	c.PublicKey[len(c.PublicKey)-1] ^= 1
	s := statement(t)
	require.NoError(t, v.Verify(s, ana.ID(), ana.assert(must(passkey.Challenge(s)), origin, rpID, flagUP)))
}

// TestVerifierApprovers: a verifier's Approvers are every principal it
// holds a passkey of, each once in the order of its first credential; a
// count outside them and a nil verifier are errors naming them.
func TestVerifierApprovers(t *testing.T) {
	t.Parallel()
	v, err := passkey.NewVerifier(newSoftKey("bo").credential("bo", false), newSoftKey("ana").credential("ana", true),
		newSoftKey("ana-laptop").credential("ana", true), newSoftKey("cy").credential("cy", false))
	require.NoError(t, err)
	a, err := v.Approvers(2)
	require.NoError(t, err)
	require.Equal(t, approvals.Approvers{Principals: []string{"bo", "ana", "cy"}, Required: 2}, a)
	_, err = v.Approvers(4)
	require.EqualError(t, err, "passkey: Verifier.Approvers: Approvers.Required is 4: it must be between 1 and the 3 principals")
	var none *passkey.Verifier
	_, err = none.Approvers(1)
	require.ErrorContains(t, err, "the verifier is nil")
}

// TestChallenge: the challenge is the SHA-256 of the statement's bytes, and
// an expiry that does not encode is an error.
func TestChallenge(t *testing.T) {
	t.Parallel()
	s := statement(t)
	c, err := passkey.Challenge(s)
	require.NoError(t, err)
	require.Len(t, c, 32)
	// A year of five digits, which the statement's RFC 3339 encoding cannot
	// hold.
	s.Expires = s.Expires.AddDate(10000-s.Expires.Year(), 0, 0)
	_, err = passkey.Challenge(s)
	require.Error(t, err)
}
