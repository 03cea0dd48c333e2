package passkey

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/temporaladk/adk-go/approvals"
)

// Credential is a person's passkey as the worker knows it: public only. The
// registration (Registrar) prints it as JSON; an operator adds it to the
// worker's configuration, as an ed25519 approvals.PublicKey is added.
type Credential struct {
	// Principal is who the passkey belongs to: a decision it proves must
	// say Decision.By == Principal.
	Principal string `json:"principal"`
	// ID is the credential ID, base64url without padding, as the browser's
	// PublicKeyCredential.id has it. A decision names it as its
	// Request.Key, and Audit shows it.
	ID string `json:"id"`
	// PublicKey is the credential's public key, a COSE_Key, as the
	// authenticator gave it at registration.
	PublicKey []byte `json:"public_key"`
	// RPID is the relying party ID the passkey is scoped to: the inbox's
	// host name ("localhost", "approvals.example.com") or a domain it is
	// under.
	RPID string `json:"rp_id"`
	// Origins are the pages a decision may be made on, such as
	// "https://approvals.example.com": the assertion's origin must be one
	// of them, and each must be on RPID.
	Origins []string `json:"origins"`
	// UserVerification requires the authenticator to have verified the
	// person (a PIN, a fingerprint), not only seen one present. If false,
	// presence is enough.
	UserVerification bool `json:"user_verification"`
}

// OptionError is a bad argument of a constructor: the function, the field
// and what is wrong with it.
type OptionError struct {
	// Func is the constructor, such as "NewVerifier".
	Func string
	// Field names the bad option, such as "credentials[1].Origins[0]".
	Field string
	// Problem says what is wrong with it.
	Problem string
	// Err is the cause, if any.
	Err error
}

func (e *OptionError) Error() string {
	msg := fmt.Sprintf("passkey: %s: %s %s", e.Func, e.Field, e.Problem)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// Mistake names why an assertion does not prove its decision.
type Mistake string

// The mistakes an AssertionError names.
const (
	// UnknownCredential: the decision's key is none of the worker's passkeys.
	UnknownCredential Mistake = "unknown credential"
	// OtherPrincipal: the passkey belongs to someone else than Decision.By.
	OtherPrincipal Mistake = "another principal's credential"
	// Malformed: the proof is not a WebAuthn assertion.
	Malformed Mistake = "malformed assertion"
	// OtherCredential: the assertion was made with another credential than
	// the one the decision names.
	OtherCredential Mistake = "assertion by another credential"
	// OtherChallenge: the authenticator signed another statement: another
	// workflow, run, call, activity, argument digest, decision, principal
	// or expiry.
	OtherChallenge Mistake = "challenge of another statement"
	// OtherOrigin: the assertion was made on a page the passkey does not
	// allow, or in a frame of another site.
	OtherOrigin Mistake = "origin not allowed"
	// OtherRelyingParty: the assertion is scoped to another relying party.
	OtherRelyingParty Mistake = "another relying party"
	// UserNotPresent: the authenticator saw no person.
	UserNotPresent Mistake = "user not present"
	// UserNotVerified: the passkey requires user verification and the
	// authenticator did not verify the person.
	UserNotVerified Mistake = "user not verified"
	// BadSignature: the signature does not verify with the passkey's key.
	BadSignature Mistake = "signature does not verify"
)

// AssertionError is a decision's assertion the Verifier refuses, and why.
type AssertionError struct {
	// Mistake is why.
	Mistake Mistake
	// Credential is the key the decision named (Request.Key), Principal its
	// Decision.By.
	Credential string
	Principal  string
	// Detail says more, in words.
	Detail string
	// Err is the WebAuthn library's error, if any.
	Err error
}

func (e *AssertionError) Error() string {
	msg := fmt.Sprintf("passkey: %s: the assertion of credential %q for %q: %s", e.Mistake, e.Credential, e.Principal, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the WebAuthn library's error.
func (e *AssertionError) Unwrap() error { return e.Err }

// Challenge is the WebAuthn challenge of the decision s: the SHA-256 of the
// bytes an ed25519 decision signs (approvals.Statement.Bytes), so that an
// assertion over it proves exactly that decision. An expiry that does not
// encode is an error.
func Challenge(s approvals.Statement) ([]byte, error) {
	msg := s.Bytes()
	if msg == nil {
		return nil, fmt.Errorf("passkey: the statement's expiry %v does not encode", s.Expires)
	}
	sum := sha256.Sum256(msg)
	return sum[:], nil
}

// credential is a validated Credential with its key parsed.
type credential struct {
	Credential
	rawID []byte
	key   any
}

// validate checks the credentials given to fn and indexes them by ID.
func validate(fn string, creds []Credential) (map[string]credential, error) {
	if len(creds) == 0 {
		return nil, &OptionError{Func: fn, Field: "credentials", Problem: "are empty: a verifier without passkeys would refuse every decision"}
	}
	out := make(map[string]credential, len(creds))
	for i, c := range creds {
		field := func(name string) string { return fmt.Sprintf("credentials[%d].%s", i, name) }
		bad := func(name, problem string, err error) error {
			return &OptionError{Func: fn, Field: field(name), Problem: problem, Err: err}
		}
		if strings.TrimSpace(c.Principal) == "" || strings.TrimSpace(c.Principal) != c.Principal {
			return nil, bad("Principal", fmt.Sprintf("is %q: it must be a principal's name, without surrounding spaces", c.Principal), nil)
		}
		rawID, err := base64.RawURLEncoding.DecodeString(c.ID)
		if err != nil || len(rawID) == 0 {
			return nil, bad("ID", fmt.Sprintf("is %q: a credential ID is non-empty base64url without padding, as the browser's PublicKeyCredential.id", c.ID), err)
		}
		if _, dup := out[c.ID]; dup {
			return nil, bad("ID", fmt.Sprintf("%q is given twice", c.ID), nil)
		}
		key, err := webauthncose.ParsePublicKey(c.PublicKey)
		if err != nil {
			return nil, bad("PublicKey", fmt.Sprintf("(%d bytes) is not a COSE public key", len(c.PublicKey)), err)
		}
		if err := protocol.ValidateRPID(c.RPID); err != nil {
			return nil, bad("RPID", fmt.Sprintf("is %q: a relying party ID is a host name such as \"localhost\" or \"example.com\"", c.RPID), err)
		}
		if len(c.Origins) == 0 {
			return nil, bad("Origins", "are empty: no page could make a decision with the passkey", nil)
		}
		for j, o := range c.Origins {
			if err := checkOrigin(o, c.RPID); err != nil {
				return nil, bad(fmt.Sprintf("Origins[%d]", j), fmt.Sprintf("is %q: %v", o, err), nil)
			}
		}
		c.PublicKey = bytes.Clone(c.PublicKey)
		c.Origins = slices.Clone(c.Origins)
		out[c.ID] = credential{Credential: c, rawID: rawID, key: key}
	}
	return out, nil
}

// checkOrigin reports why origin cannot be a page of relying party rpID.
func checkOrigin(origin, rpID string) error {
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return err
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("an origin is https://host[:port] (http only for localhost)")
	case u.Scheme == "http" && u.Hostname() != "localhost":
		return errors.New("a browser asks a passkey over http only on localhost")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("an origin has no path, query, fragment or user")
	case u.Hostname() != rpID && !strings.HasSuffix(u.Hostname(), "."+rpID):
		return fmt.Errorf("its host is not %q nor under it", rpID)
	}
	return nil
}

// Verifier verifies decisions proved by passkeys: an approvals.Verifier
// built from public credentials only. Give it as
// approvals.WorkerOptions.Verifier; it is pure, so the workflow's Update
// validator and the activity worker run it alike.
type Verifier struct {
	creds map[string]credential
	// principals are the credentials' principals, each once, in the order
	// of the first credential of each.
	principals []string
}

var _ approvals.Verifier = (*Verifier)(nil)

// NewVerifier returns a verifier of the given passkeys, copied. Each needs
// a principal, a unique base64url ID, a COSE public key, a relying party ID
// and at least one origin on it; a bad one is an *OptionError naming it.
func NewVerifier(creds ...Credential) (*Verifier, error) {
	m, err := validate("NewVerifier", creds)
	if err != nil {
		return nil, err
	}
	v := &Verifier{creds: m}
	for _, c := range creds {
		if !slices.Contains(v.principals, c.Principal) {
			v.principals = append(v.principals, c.Principal)
		}
	}
	return v, nil
}

// Approvers returns the approvers of a call that needs required distinct
// approvals among every principal v holds a passkey of: each principal is
// named once, in its credential, where approvals.NewApprovers beside
// NewVerifier names it again. The principals are in the order of their
// first credential, each once however many passkeys it has. Required must
// be in [1, the number of principals]. For approvers that are some of v's
// principals, use approvals.NewApprovers.
func (v *Verifier) Approvers(required int) (approvals.Approvers, error) {
	if v == nil {
		return approvals.Approvers{}, errors.New("passkey: Verifier.Approvers: the verifier is nil: build it with NewVerifier")
	}
	a, err := approvals.NewApprovers(required, v.principals...)
	if err != nil {
		return approvals.Approvers{}, fmt.Errorf("passkey: Verifier.Approvers: %s", strings.TrimPrefix(err.Error(), "approvals: "))
	}
	return a, nil
}

// Verify checks that proof, a WebAuthn assertion as Relay.Proof encodes it,
// was made by the passkey key of s.By over Challenge(s), on one of the
// passkey's origins, for its relying party, with the person present and,
// where the passkey requires it, verified. It reads no clock: the expiry in
// s is checked against the workflow's time by the kit. A refusal is an
// *AssertionError.
func (v *Verifier) Verify(s approvals.Statement, key string, proof []byte) error {
	refuse := func(m Mistake, detail string, err error) error {
		return &AssertionError{Mistake: m, Credential: key, Principal: s.By, Detail: detail, Err: err}
	}
	c, ok := v.creds[key]
	switch {
	case !ok:
		return refuse(UnknownCredential, "the credential is not one of this worker's passkeys", nil)
	case c.Principal != s.By:
		return refuse(OtherPrincipal, fmt.Sprintf("the passkey belongs to %q", c.Principal), nil)
	}
	a, err := protocol.ParseCredentialRequestResponseBytes(proof)
	if err != nil {
		return refuse(Malformed, "the proof is not a WebAuthn assertion", err)
	}
	challenge, err := Challenge(s)
	if err != nil {
		return refuse(OtherChallenge, "the statement does not encode", err)
	}
	want := base64.RawURLEncoding.EncodeToString(challenge)
	client, auth := a.Response.CollectedClientData, a.Response.AuthenticatorData
	rpIDHash := sha256.Sum256([]byte(c.RPID))
	switch {
	case !bytes.Equal(a.RawID, c.rawID):
		return refuse(OtherCredential, fmt.Sprintf("the assertion was made with credential %q", a.ID), nil)
	case client.Type != protocol.AssertCeremony:
		return refuse(Malformed, fmt.Sprintf("the client data's type is %q, not %q", client.Type, protocol.AssertCeremony), nil)
	case client.Challenge != want:
		return refuse(OtherChallenge, "the authenticator signed a challenge for another workflow, run, call, activity, argument digest, decision or expiry", nil)
	case !protocol.IsOriginInHaystack(client.Origin, c.Origins):
		return refuse(OtherOrigin, fmt.Sprintf("the assertion was made on %q, not on %v", client.Origin, c.Origins), nil)
	case client.CrossOrigin || client.TopOrigin != "":
		return refuse(OtherOrigin, fmt.Sprintf("the assertion was made in a frame under %q", client.TopOrigin), nil)
	case !bytes.Equal(auth.RPIDHash, rpIDHash[:]):
		return refuse(OtherRelyingParty, fmt.Sprintf("the assertion is not scoped to relying party %q", c.RPID), nil)
	case !auth.Flags.UserPresent():
		return refuse(UserNotPresent, "the authenticator's user-present flag is not set", nil)
	case c.UserVerification && !auth.Flags.UserVerified():
		return refuse(UserNotVerified, "the passkey requires user verification and the authenticator's user-verified flag is not set", nil)
	}
	// The library verifies all of the above again, and the signature.
	if err := a.Verify(want, c.RPID, "", c.Origins, nil, nil, protocol.TopOriginExplicitVerificationMode, false,
		c.UserVerification, true, c.PublicKey, protocol.SignaturePolicy{}); err != nil {
		return refuse(BadSignature, "the assertion does not verify with the passkey's public key", err)
	}
	return nil
}
