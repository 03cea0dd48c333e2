package passkey

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/approvals/inbox"
)

// DefaultTimeout is how long, in milliseconds, the browser waits for the
// person's authenticator before it gives up on a decision.
const DefaultTimeout = 120_000

// Relay is the inbox's passkey mode (inbox.Options.Relay): a person's
// approve or deny asks their authenticator, through the browser's
// navigator.credentials.get, to sign the challenge of the decision
// (Challenge), and the inbox relays the assertion. It holds public
// credentials only, to tell the browser which passkeys may answer.
type Relay struct {
	creds map[string]credential
	rpID  string
}

var _ inbox.Relay = (*Relay)(nil)

// NewRelay returns the relay of the given passkeys, the worker's own
// (NewVerifier's), copied and checked as NewVerifier checks them. They must
// share one relying party ID: the inbox's. A bad one is an *OptionError.
func NewRelay(creds ...Credential) (*Relay, error) {
	m, err := validate("NewRelay", creds)
	if err != nil {
		return nil, err
	}
	for i, c := range creds {
		if c.RPID != creds[0].RPID {
			return nil, &OptionError{Func: "NewRelay", Field: fmt.Sprintf("credentials[%d].RPID", i),
				Problem: fmt.Sprintf("is %q, credentials[0]'s %q: a relay serves one inbox, one relying party", c.RPID, creds[0].RPID)}
		}
	}
	return &Relay{creds: m, rpID: creds[0].RPID}, nil
}

// CanDecide reports whether principal has a passkey.
func (r *Relay) CanDecide(principal string) bool {
	for _, c := range r.creds {
		if c.Principal == principal {
			return true
		}
	}
	return false
}

// Challenge returns the options of navigator.credentials.get, in the JSON
// form PublicKeyCredential.parseRequestOptionsFromJSON reads, asking one of
// principal's passkeys to sign Challenge(s).
func (r *Relay) Challenge(principal string, s approvals.Statement) (json.RawMessage, error) {
	challenge, err := Challenge(s)
	if err != nil {
		return nil, err
	}
	opts := protocol.PublicKeyCredentialRequestOptions{Challenge: challenge, Timeout: DefaultTimeout, RelyingPartyID: r.rpID,
		UserVerification: protocol.VerificationPreferred}
	for _, c := range r.sorted() {
		if c.Principal != principal {
			continue
		}
		opts.AllowedCredentials = append(opts.AllowedCredentials, protocol.CredentialDescriptor{Type: protocol.PublicKeyCredentialType, CredentialID: c.rawID})
		if c.UserVerification {
			opts.UserVerification = protocol.VerificationRequired
		}
	}
	if len(opts.AllowedCredentials) == 0 {
		return nil, fmt.Errorf("passkey: %q has no passkey", principal)
	}
	b, err := json.Marshal(struct {
		PublicKey protocol.PublicKeyCredentialRequestOptions `json:"publicKey"`
	}{opts})
	return b, err
}

// Proof returns the decision's key, the assertion's credential ID, and its
// proof: the assertion, what the browser's PublicKeyCredential.toJSON
// gives, reduced to the fields a verifier reads. It checks only that answer
// is an assertion; the workflow's validator verifies it.
func (r *Relay) Proof(principal string, s approvals.Statement, answer []byte) (string, []byte, error) {
	a, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return "", nil, fmt.Errorf("passkey: the browser's answer is not a WebAuthn assertion: %w", err)
	}
	raw := a.Raw.AssertionResponse
	proof, err := json.Marshal(assertion{ID: a.ID, RawID: b64(a.RawID), Type: a.Type, Response: assertionResponse{
		ClientDataJSON: b64(raw.ClientDataJSON), AuthenticatorData: b64(raw.AuthenticatorData),
		Signature: b64(raw.Signature), UserHandle: b64(raw.UserHandle)}})
	return a.ID, proof, err
}

// Script defines temporaladkSign for the inbox's page: the browser parses
// the challenge, asks the authenticator and returns the assertion as JSON.
func (r *Relay) Script() string { return relayScript }

const relayScript = `"use strict";
window.temporaladkSign = async (challenge) => {
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(challenge.publicKey);
  const credential = await navigator.credentials.get({ publicKey });
  return JSON.stringify(credential.toJSON());
};`

// assertion is a proof: the JSON form of a PublicKeyCredential from
// navigator.credentials.get, without its client extension results.
type assertion struct {
	ID       string            `json:"id"`
	RawID    string            `json:"rawId"`
	Type     string            `json:"type"`
	Response assertionResponse `json:"response"`
}

type assertionResponse struct {
	ClientDataJSON    string `json:"clientDataJSON"`
	AuthenticatorData string `json:"authenticatorData"`
	Signature         string `json:"signature"`
	UserHandle        string `json:"userHandle,omitempty"`
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// sorted lists the credentials by ID, so that the challenge's allowed
// credentials come in one order.
func (r *Relay) sorted() []credential {
	out := make([]credential, 0, len(r.creds))
	for _, c := range r.creds {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b credential) int { return strings.Compare(a.ID, b.ID) })
	return out
}
