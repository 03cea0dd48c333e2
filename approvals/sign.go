package approvals

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Approvers says who may decide a call and how many must approve it: the
// declaration's, given per activity type on the worker
// (WorkerOptions.Tools), or a WithApproval call's
// (Options.Approvers). Build one with NewApprovers or OpenApprovers; the
// zero value is "not set".
type Approvers struct {
	// Principals are the principals who may decide, each a decision's
	// Decision.By. Empty in open mode.
	Principals []string `json:"principals,omitempty"`
	// Required is how many distinct principals must approve before the
	// call runs (N of len(Principals)). A deny from any one of them ends
	// the call.
	Required int `json:"required"`
	// Open accepts unsigned decisions from any non-empty Decision.By: see
	// "Open mode" in the package doc for what it does not protect against.
	Open bool `json:"open,omitempty"`
}

// NewApprovers returns the approvers of a call that needs required
// distinct approvals among principals, each proved by a signature a
// Verifier checks. Principals must be non-empty, distinct and without
// surrounding spaces; required must be in [1, len(principals)].
func NewApprovers(required int, principals ...string) (Approvers, error) {
	a := Approvers{Principals: slices.Clone(principals), Required: required}
	if err := a.Validate(); err != nil {
		return Approvers{}, err
	}
	return a, nil
}

// OpenApprovers returns open-mode approvers: required distinct names, any
// non-empty Decision.By, unsigned. Required must be at least 1.
func OpenApprovers(required int) (Approvers, error) {
	a := Approvers{Open: true, Required: required}
	if err := a.Validate(); err != nil {
		return Approvers{}, err
	}
	return a, nil
}

// IsZero reports whether a is not set.
func (a Approvers) IsZero() bool {
	return len(a.Principals) == 0 && a.Required == 0 && !a.Open
}

// Validate checks a, naming the first bad field.
func (a Approvers) Validate() error {
	if a.Open {
		if len(a.Principals) > 0 {
			return fmt.Errorf("approvals: Approvers.Principals has %d principals but Open is set: open mode accepts any name, so a list of principals would be ignored; drop one of the two", len(a.Principals))
		}
		if a.Required < 1 {
			return fmt.Errorf("approvals: Approvers.Required is %d: at least 1 approval is needed", a.Required)
		}
		return nil
	}
	if len(a.Principals) == 0 {
		return errors.New("approvals: Approvers.Principals is empty: name who may approve, or ask for open mode (OpenApprovers) in so many words")
	}
	seen := map[string]bool{}
	for i, p := range a.Principals {
		switch {
		case strings.TrimSpace(p) == "":
			return fmt.Errorf("approvals: Approvers.Principals[%d] is empty", i)
		case strings.TrimSpace(p) != p:
			return fmt.Errorf("approvals: Approvers.Principals[%d] is %q: surrounding spaces would never match a signed principal", i, p)
		case seen[p]:
			return fmt.Errorf("approvals: Approvers.Principals[%d] is %q, named twice", i, p)
		}
		seen[p] = true
	}
	if a.Required < 1 || a.Required > len(a.Principals) {
		return fmt.Errorf("approvals: Approvers.Required is %d: it must be between 1 and the %d principals", a.Required, len(a.Principals))
	}
	return nil
}

// Allows reports whether principal may decide under a.
func (a Approvers) Allows(principal string) bool {
	if a.Open {
		return strings.TrimSpace(principal) != ""
	}
	return slices.Contains(a.Principals, principal)
}

// Clone returns a copy of a that shares no slice with it.
func (a Approvers) Clone() Approvers {
	a.Principals = slices.Clone(a.Principals)
	return a
}

// Statement is what a signed decision says, and what its signature covers:
// the workflow, the run and its chain, the call, the activity ID the call
// runs under once approved, its activity type and its arguments' digest,
// the decision, the principal and an expiry. The validator rebuilds it
// from the waiting call's own fields and the request's decision, and the
// activity side from the activity it serves, so that a signature made for
// another workflow, run, chain, call, activity, arguments or decision does
// not verify.
type Statement struct {
	WorkflowID string `json:"workflow_id"`
	Chain      string `json:"chain"`
	RunID      string `json:"run_id"`
	Call       string `json:"call"`
	// ActivityID is the activity ID the approved call is scheduled with
	// (Pending.ActivityID): the one activity an approval lets run. Empty
	// for a local activity.
	ActivityID   string    `json:"activity_id"`
	ActivityType string    `json:"activity_type"`
	Digest       string    `json:"digest"`
	Approve      bool      `json:"approve"`
	By           string    `json:"by"`
	Expires      time.Time `json:"expires"`
}

// statementDomain begins every signed message, so that a signature over a
// statement is never one over anything else the key signs. Its version
// changes with the statement's fields: v2 added the activity ID.
const statementDomain = "temporaladk approval decision v2\n"

// statementDomainV1 began the messages of an earlier build, whose
// statements named no activity ID. No signature over one is accepted; the
// verifier recognises one only to say so.
const statementDomainV1 = "temporaladk approval decision v1\n"

// Bytes is the message a signature covers: statementDomain followed by the
// statement's JSON, fields in their declared order, Expires in UTC.
func (s Statement) Bytes() []byte {
	s.Expires = s.Expires.UTC()
	b, err := json.Marshal(s)
	if err != nil {
		// A struct of strings, a bool and a UTC time always encodes, but
		// for a year outside [0, 9999]: such an expiry signs nothing.
		return nil
	}
	return append([]byte(statementDomain), b...)
}

// bytesV1 is the message an earlier build signed for s: the statement
// without its activity ID, under statementDomainV1.
func (s Statement) bytesV1() []byte {
	b, err := json.Marshal(struct {
		WorkflowID   string    `json:"workflow_id"`
		Chain        string    `json:"chain"`
		RunID        string    `json:"run_id"`
		Call         string    `json:"call"`
		ActivityType string    `json:"activity_type"`
		Digest       string    `json:"digest"`
		Approve      bool      `json:"approve"`
		By           string    `json:"by"`
		Expires      time.Time `json:"expires"`
	}{s.WorkflowID, s.Chain, s.RunID, s.Call, s.ActivityType, s.Digest, s.Approve, s.By, s.Expires.UTC()})
	if err != nil {
		return nil
	}
	return append([]byte(statementDomainV1), b...)
}

// Statement returns the statement of a decision by principal by on the
// call p lists, approving or denying it, valid until expires: what the
// decision's signature must cover.
func (p Pending) Statement(approve bool, by string, expires time.Time) Statement {
	return Statement{WorkflowID: p.WorkflowID, Chain: p.Chain, RunID: p.RunID, Call: p.Call, ActivityID: p.ActivityID,
		ActivityType: p.ActivityType, Digest: p.Digest, Approve: approve, By: by, Expires: expires}
}

// Verifier checks that a decision's proof was made by its principal over
// exactly its statement. It must be pure (no clock, no network, no
// randomness): it runs in the workflow's Update validator. The built-in one
// is NewEd25519Verifier's; a JWT verifier, for example, would parse proof
// as a token, check it against keys configured on the worker, and compare
// its claims with s, the activity ID among them.
type Verifier interface {
	// Verify returns nil when proof, made with the key named key, proves
	// that s.By made s; else an error that says why.
	Verify(s Statement, key string, proof []byte) error
}

// PublicKey is a key a principal signs decisions with, as a verifier knows
// it.
type PublicKey struct {
	// ID names the key in a decision (Request.Key) and in the audit.
	ID string
	// Principal is who signs with it: a decision it verifies must say
	// Decision.By == Principal.
	Principal string
	// Key is the ed25519 public key.
	Key ed25519.PublicKey
}

// Ed25519Verifier verifies ed25519 signatures with the keys it was built
// with.
type Ed25519Verifier struct {
	keys map[string]PublicKey
	// principals are the keys' principals, each once, in the order of the
	// first key of each.
	principals []string
}

// NewEd25519Verifier returns a verifier of the given keys, copied. Each key
// needs an ID (unique), a principal and an ed25519 public key of
// ed25519.PublicKeySize bytes.
func NewEd25519Verifier(keys ...PublicKey) (*Ed25519Verifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("approvals: NewEd25519Verifier: no keys: a verifier without keys would refuse every decision")
	}
	v := &Ed25519Verifier{keys: make(map[string]PublicKey, len(keys))}
	for i, k := range keys {
		switch {
		case strings.TrimSpace(k.ID) == "":
			return nil, fmt.Errorf("approvals: NewEd25519Verifier: keys[%d].ID is empty", i)
		case strings.TrimSpace(k.Principal) == "":
			return nil, fmt.Errorf("approvals: NewEd25519Verifier: keys[%d].Principal is empty (key %q)", i, k.ID)
		case len(k.Key) != ed25519.PublicKeySize:
			return nil, fmt.Errorf("approvals: NewEd25519Verifier: keys[%d].Key is %d bytes (key %q): an ed25519 public key is %d", i, len(k.Key), k.ID, ed25519.PublicKeySize)
		}
		if _, dup := v.keys[k.ID]; dup {
			return nil, fmt.Errorf("approvals: NewEd25519Verifier: keys[%d].ID %q is given twice", i, k.ID)
		}
		k.Key = slices.Clone(k.Key)
		v.keys[k.ID] = k
		if !slices.Contains(v.principals, k.Principal) {
			v.principals = append(v.principals, k.Principal)
		}
	}
	return v, nil
}

// Approvers returns the approvers of a call that needs required distinct
// signed approvals among every principal v holds a key of: each principal
// is named once, in its public key, where NewApprovers beside
// NewEd25519Verifier names it again. The principals are in the order of
// their first key, each once however many keys it has. Required must be
// in [1, the number of principals]; a principal's name must be one
// NewApprovers accepts (no surrounding spaces). For approvers that are
// some of v's principals, or a Verifier other than this one, use
// NewApprovers.
func (v *Ed25519Verifier) Approvers(required int) (Approvers, error) {
	if v == nil {
		return Approvers{}, errors.New("approvals: Ed25519Verifier.Approvers: the verifier is nil: build it with NewEd25519Verifier")
	}
	a, err := NewApprovers(required, v.principals...)
	if err != nil {
		return Approvers{}, fmt.Errorf("approvals: Ed25519Verifier.Approvers: %s", strings.TrimPrefix(err.Error(), "approvals: "))
	}
	return a, nil
}

// Verify checks that the key named key belongs to s.By and signed s.
func (v *Ed25519Verifier) Verify(s Statement, key string, proof []byte) error {
	k, ok := v.keys[key]
	switch {
	case !ok:
		return fmt.Errorf("key %q is not one of this worker's approval keys", key)
	case k.Principal != s.By:
		return fmt.Errorf("key %q belongs to %q, not to %q", key, k.Principal, s.By)
	case len(proof) != ed25519.SignatureSize:
		return fmt.Errorf("the signature is %d bytes; an ed25519 signature is %d", len(proof), ed25519.SignatureSize)
	}
	msg := s.Bytes()
	if msg == nil || !ed25519.Verify(k.Key, msg, proof) {
		if old := s.bytesV1(); old != nil && ed25519.Verify(k.Key, old, proof) {
			return fmt.Errorf("the signature by key %q was made over an earlier build's statement (%q), which names no activity ID, so it could let more than one activity run: sign the decision again with this build (Signer, over Pending.Statement)", key, strings.TrimSpace(statementDomainV1))
		}
		return fmt.Errorf("the signature by key %q does not verify: the decision was made for another workflow, run, call, activity ID, digest, decision or expiry, or altered", key)
	}
	return nil
}

// Signer signs a principal's decisions with an ed25519 key.
type Signer struct {
	id        string
	principal string
	key       ed25519.PrivateKey
}

// NewSigner returns a signer for principal with the ed25519 private key
// named id, copied. Every argument is required.
func NewSigner(id, principal string, key ed25519.PrivateKey) (*Signer, error) {
	switch {
	case strings.TrimSpace(id) == "":
		return nil, errors.New("approvals: NewSigner: the key ID is empty")
	case strings.TrimSpace(principal) == "":
		return nil, errors.New("approvals: NewSigner: the principal is empty")
	case len(key) != ed25519.PrivateKeySize:
		return nil, fmt.Errorf("approvals: NewSigner: the key is %d bytes: an ed25519 private key is %d", len(key), ed25519.PrivateKeySize)
	}
	return &Signer{id: id, principal: principal, key: slices.Clone(key)}, nil
}

// Principal is who the signer signs as.
func (s *Signer) Principal() string { return s.principal }

// PublicKey is the signer's key as a verifier knows it.
func (s *Signer) PublicKey() PublicKey {
	return PublicKey{ID: s.id, Principal: s.principal, Key: slices.Clone(s.key.Public().(ed25519.PublicKey))}
}

// Approve returns the signed request that approves the call p lists,
// valid until expires (compared with the workflow's time when the run
// validates it).
func (s *Signer) Approve(p Pending, reason string, expires time.Time) (Request, error) {
	return s.sign(p, true, reason, expires)
}

// Deny returns the signed request that denies the call p lists.
func (s *Signer) Deny(p Pending, reason string, expires time.Time) (Request, error) {
	return s.sign(p, false, reason, expires)
}

func (s *Signer) sign(p Pending, approve bool, reason string, expires time.Time) (Request, error) {
	if expires.IsZero() {
		return Request{}, errors.New("approvals: Signer: the expiry is zero: a signed decision must expire")
	}
	st := p.Statement(approve, s.principal, expires)
	msg := st.Bytes()
	if msg == nil {
		return Request{}, fmt.Errorf("approvals: Signer: the expiry %v does not encode", expires)
	}
	return Request{
		Decision:  Decision{Call: p.Call, Digest: p.Digest, By: s.principal, Reason: reason},
		Approve:   &approve,
		Expires:   st.Expires.UTC(),
		Key:       s.id,
		Signature: ed25519.Sign(s.key, msg),
	}, nil
}
