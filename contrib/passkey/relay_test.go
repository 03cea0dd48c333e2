package passkey_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/passkey"
)

// TestRelay: the challenge asks one of the person's passkeys to sign the
// decision's challenge, with user verification where their passkey
// requires it; the browser's answer becomes a decision's key and proof
// that the worker's verifier accepts; an answer that is not an assertion
// is an error.
func TestRelay(t *testing.T) {
	t.Parallel()
	ana, bo := newSoftKey("ana"), newSoftKey("bo")
	creds := []passkey.Credential{ana.credential("ana", true), bo.credential("bo", false)}
	relay, err := passkey.NewRelay(creds...)
	require.NoError(t, err)
	v, err := passkey.NewVerifier(creds...)
	require.NoError(t, err)
	require.True(t, relay.CanDecide("ana"))
	require.False(t, relay.CanDecide("mallory"))
	require.Contains(t, relay.Script(), "navigator.credentials.get")

	s := statement(t)
	raw, err := relay.Challenge("ana", s)
	require.NoError(t, err)
	var c struct {
		PublicKey struct {
			Challenge        string `json:"challenge"`
			RPID             string `json:"rpId"`
			UserVerification string `json:"userVerification"`
			Allow            []struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			} `json:"allowCredentials"`
		} `json:"publicKey"`
	}
	require.NoError(t, json.Unmarshal(raw, &c))
	want := must(passkey.Challenge(s))
	require.Equal(t, base64.RawURLEncoding.EncodeToString(want), c.PublicKey.Challenge)
	require.Equal(t, rpID, c.PublicKey.RPID)
	require.Equal(t, "required", c.PublicKey.UserVerification)
	require.Len(t, c.PublicKey.Allow, 1)
	require.Equal(t, ana.ID(), c.PublicKey.Allow[0].ID)
	_, err = relay.Challenge("mallory", s)
	require.ErrorContains(t, err, `"mallory" has no passkey`)

	key, proof, err := relay.Proof("ana", s, ana.assert(want, origin, rpID, flagUP|flagUV))
	require.NoError(t, err)
	require.Equal(t, ana.ID(), key)
	require.NoError(t, v.Verify(s, key, proof))
	require.Contains(t, string(proof), `"clientDataJSON"`, "the proof is the assertion, readable in history")

	_, _, err = relay.Proof("ana", s, []byte(`{"id":"x"}`))
	require.ErrorContains(t, err, "not a WebAuthn assertion")
}
