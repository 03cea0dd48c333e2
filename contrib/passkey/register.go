package passkey

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// RegistrarOptions configure the registration of passkeys.
type RegistrarOptions struct {
	// RPID is the relying party ID the passkeys are scoped to: the inbox's
	// host name. Required.
	RPID string
	// RPName is the name the browser shows when it asks for a passkey. If
	// not set, RPID.
	RPName string
	// Origins are the pages decisions are made on, the inbox's: the
	// registration page must be served on one of them too. Required.
	Origins []string
	// Identity returns the principal of the person who sent r, as the
	// inbox's Identity does (the header an authenticating proxy sets): the
	// passkey registered is theirs. Required.
	Identity func(r *http.Request) (string, error)
	// UserVerification asks for an authenticator that verifies the person
	// (a PIN, a fingerprint), and marks the credential as requiring it for
	// every decision. If false, presence is enough.
	UserVerification bool
	// OnRegistered, if set, is called with each credential registered, for
	// example to log its JSON for an operator. The page shows it in any
	// case.
	OnRegistered func(Credential)
}

// Registrar is the server side of the registration ceremony: an
// http.Handler whose page (GET /) has the person's browser create a
// passkey (POST /begin, then POST /finish) and shows the public Credential
// it makes, as JSON, for an operator to add to the worker's configuration.
// It keeps each person's ceremony in progress in memory, and no key: the
// private key never leaves the authenticator.
type Registrar struct {
	opts     RegistrarOptions
	webauthn *webauthn.WebAuthn
	mux      *http.ServeMux
	mu       sync.Mutex
	sessions map[string]webauthn.SessionData
}

// NewRegistrar checks opts and returns the registrar; a bad option is an
// *OptionError naming it.
func NewRegistrar(opts RegistrarOptions) (*Registrar, error) {
	bad := func(field, problem string, err error) error {
		return &OptionError{Func: "NewRegistrar", Field: "RegistrarOptions." + field, Problem: problem, Err: err}
	}
	if err := protocol.ValidateRPID(opts.RPID); err != nil {
		return nil, bad("RPID", fmt.Sprintf("is %q: a relying party ID is a host name such as \"localhost\" or \"example.com\"", opts.RPID), err)
	}
	if len(opts.Origins) == 0 {
		return nil, bad("Origins", "are empty: name the inbox's origin, such as \"https://approvals.example.com\"", nil)
	}
	for i, o := range opts.Origins {
		if err := checkOrigin(o, opts.RPID); err != nil {
			return nil, bad(fmt.Sprintf("Origins[%d]", i), fmt.Sprintf("is %q: %v", o, err), nil)
		}
	}
	if opts.Identity == nil {
		return nil, bad("Identity", "is nil: the registrar must know whose passkey it registers", nil)
	}
	opts.Origins = slices.Clone(opts.Origins)
	if opts.RPName == "" {
		opts.RPName = opts.RPID
	}
	uv := protocol.VerificationPreferred
	if opts.UserVerification {
		uv = protocol.VerificationRequired
	}
	w, err := webauthn.New(&webauthn.Config{RPID: opts.RPID, RPDisplayName: opts.RPName, RPOrigins: opts.Origins,
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{ResidentKey: protocol.ResidentKeyRequirementPreferred,
			UserVerification: uv}})
	if err != nil {
		return nil, bad("RPID", "does not configure WebAuthn", err)
	}
	g := &Registrar{opts: opts, webauthn: w, mux: http.NewServeMux(), sessions: map[string]webauthn.SessionData{}}
	g.mux.HandleFunc("GET /{$}", g.page)
	g.mux.HandleFunc("GET /register.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte(registerScript))
	})
	g.mux.HandleFunc("POST /begin", g.begin)
	g.mux.HandleFunc("POST /finish", g.finish)
	return g, nil
}

// ServeHTTP serves the registration page and its two steps.
func (g *Registrar) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

// user is a person as the WebAuthn library sees them. The user handle is
// derived from the principal, so that registering again on the same
// authenticator replaces the person's passkey there instead of adding one.
type user string

func (u user) WebAuthnID() []byte {
	sum := sha256.Sum256([]byte("temporaladk passkey user\n" + string(u)))
	return sum[:]
}
func (u user) WebAuthnName() string                       { return string(u) }
func (u user) WebAuthnDisplayName() string                { return string(u) }
func (u user) WebAuthnCredentials() []webauthn.Credential { return nil }

// who names the person of r, writing the error itself when it returns "".
func (g *Registrar) who(w http.ResponseWriter, r *http.Request) string {
	if r.Method == http.MethodPost && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		http.Error(w, "passkey: a registration from another site is refused", http.StatusForbidden)
		return ""
	}
	principal, err := g.opts.Identity(r)
	if err != nil || strings.TrimSpace(principal) == "" {
		http.Error(w, fmt.Sprintf("passkey: who you are is not known: %v", err), http.StatusUnauthorized)
		return ""
	}
	return principal
}

//go:embed register.html
var registerHTML string

var registerPage = template.Must(template.New("register").Parse(registerHTML))

const registerScript = `"use strict";
document.getElementById("register").addEventListener("click", async () => {
  const status = document.getElementById("status");
  status.textContent = "asking your authenticator…";
  try {
    const begin = await fetch("begin", { method: "POST" });
    if (!begin.ok) throw new Error(await begin.text());
    const options = await begin.json();
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey);
    const credential = await navigator.credentials.create({ publicKey });
    const finish = await fetch("finish", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(credential.toJSON()) });
    if (!finish.ok) throw new Error(await finish.text());
    const record = await finish.json();
    document.getElementById("credential").textContent = JSON.stringify(record, null, 2);
    document.getElementById("done").hidden = false;
    status.textContent = "";
  } catch (err) {
    status.textContent = "not registered: " + err.message;
  }
});`

func (g *Registrar) page(w http.ResponseWriter, r *http.Request) {
	principal := g.who(w, r)
	if principal == "" {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'")
	if err := registerPage.Execute(w, struct{ Principal, RPName string }{principal, g.opts.RPName}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// begin answers POST /begin with the options of navigator.credentials.create.
func (g *Registrar) begin(w http.ResponseWriter, r *http.Request) {
	principal := g.who(w, r)
	if principal == "" {
		return
	}
	creation, session, err := g.webauthn.BeginRegistration(user(principal))
	if err != nil {
		http.Error(w, "passkey: "+err.Error(), http.StatusInternalServerError)
		return
	}
	g.mu.Lock()
	g.sessions[principal] = *session
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(creation)
}

// finish answers POST /finish, the browser's new credential, with the
// public Credential record, once the library has verified the ceremony.
func (g *Registrar) finish(w http.ResponseWriter, r *http.Request) {
	principal := g.who(w, r)
	if principal == "" {
		return
	}
	g.mu.Lock()
	session, ok := g.sessions[principal]
	delete(g.sessions, principal)
	g.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("passkey: no registration of %q is in progress: begin again", principal), http.StatusConflict)
		return
	}
	c, err := g.webauthn.FinishRegistration(user(principal), session, r)
	if err != nil {
		http.Error(w, "passkey: the new credential does not verify: "+err.Error(), http.StatusBadRequest)
		return
	}
	record := Credential{Principal: principal, ID: base64.RawURLEncoding.EncodeToString(c.ID), PublicKey: bytes.Clone(c.PublicKey),
		RPID: g.opts.RPID, Origins: slices.Clone(g.opts.Origins), UserVerification: g.opts.UserVerification}
	if g.opts.OnRegistered != nil {
		g.opts.OnRegistered(record)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(record)
}
