package passkey_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/passkey"
)

// TestRegistrar: ana begins a registration, her authenticator answers its
// challenge, and the registrar returns her public credential, which a
// verifier built from it alone accepts; finishing twice, or without
// beginning, is refused.
func TestRegistrar(t *testing.T) {
	t.Parallel()
	var registered []passkey.Credential
	g, err := passkey.NewRegistrar(passkey.RegistrarOptions{RPID: rpID, Origins: []string{origin}, UserVerification: true,
		Identity:     func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil },
		OnRegistered: func(c passkey.Credential) { registered = append(registered, c) }})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	defer srv.Close()
	post := func(path string, body []byte) (int, []byte) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-User", "ana")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}

	code, body := post("/begin", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var begin struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			RP        struct {
				ID string `json:"id"`
			} `json:"rp"`
			Selection struct {
				UserVerification string `json:"userVerification"`
			} `json:"authenticatorSelection"`
		} `json:"publicKey"`
	}
	require.NoError(t, json.Unmarshal(body, &begin))
	require.Equal(t, rpID, begin.PublicKey.RP.ID)
	require.Equal(t, "required", begin.PublicKey.Selection.UserVerification)
	challenge, err := base64.RawURLEncoding.DecodeString(begin.PublicKey.Challenge)
	require.NoError(t, err)

	ana := newSoftKey("ana")
	code, body = post("/finish", ana.create(challenge, origin, rpID))
	require.Equal(t, http.StatusOK, code, string(body))
	var c passkey.Credential
	require.NoError(t, json.Unmarshal(body, &c))
	require.Equal(t, ana.credential("ana", true), c)
	require.Equal(t, []passkey.Credential{c}, registered)

	v, err := passkey.NewVerifier(c)
	require.NoError(t, err)
	s := statement(t)
	require.NoError(t, v.Verify(s, c.ID, ana.assert(must(passkey.Challenge(s)), origin, rpID, flagUP|flagUV)))

	code, body = post("/finish", ana.create(challenge, origin, rpID))
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, string(body), `no registration of "ana" is in progress`)

	code, _ = post("/begin", nil)
	require.Equal(t, http.StatusOK, code)
	code, body = post("/finish", ana.create(challenge, origin, rpID))
	require.Equal(t, http.StatusBadRequest, code, "an answer to an earlier challenge")
	require.Contains(t, string(body), "does not verify")
}

// TestRegistrarOptions: each bad option is an *OptionError naming it.
func TestRegistrarOptions(t *testing.T) {
	t.Parallel()
	id := func(*http.Request) (string, error) { return "ana", nil }
	for _, tc := range []struct {
		opts  passkey.RegistrarOptions
		field string
	}{
		{passkey.RegistrarOptions{Origins: []string{origin}, Identity: id}, "RegistrarOptions.RPID"},
		{passkey.RegistrarOptions{RPID: "https://localhost", Origins: []string{origin}, Identity: id}, "RegistrarOptions.RPID"},
		{passkey.RegistrarOptions{RPID: rpID, Identity: id}, "RegistrarOptions.Origins"},
		{passkey.RegistrarOptions{RPID: rpID, Origins: []string{"https://example.com"}, Identity: id}, "RegistrarOptions.Origins[0]"},
		{passkey.RegistrarOptions{RPID: rpID, Origins: []string{origin}}, "RegistrarOptions.Identity"},
	} {
		_, err := passkey.NewRegistrar(tc.opts)
		var oe *passkey.OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, "NewRegistrar", oe.Func)
		require.Equal(t, tc.field, oe.Field, "%v", err)
	}
}
