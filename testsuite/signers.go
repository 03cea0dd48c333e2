package testsuite

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/temporaladk/adk-go/approvals"
)

// Signers are a test's approvers who sign their decisions: a signer for
// each principal, the verifier that knows every one's key, and the
// approvers that need Required of them, made in one call instead of three
// and with each principal named once.
//
//	team, err := testsuite.NewSigners(2, "ana", "bo", "cy")
//	opts.Approvals = approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"Refund": team.Approvers}, Verifier: team.Verifier}
//	env.Signers = team.Signers
//
// Each key is derived from the principal's name, so a test signs the same
// bytes in every run: it is a test key, public to anyone who reads this
// package, and never one to trust outside a test.
type Signers struct {
	// Signers are the principals' signers, in the order given; key IDs are
	// "<principal>-test".
	Signers []*approvals.Signer
	// Verifier verifies the decisions of every one of them.
	Verifier *approvals.Ed25519Verifier
	// Approvers needs Required of the principals' signed decisions.
	Approvers approvals.Approvers
}

// NewSigners returns the signers of principals, required of whom approve a
// call. A principal that is empty or given twice, and a required outside 1
// to len(principals), are errors naming them.
func NewSigners(required int, principals ...string) (Signers, error) {
	approvers, err := approvals.NewApprovers(required, principals...)
	if err != nil {
		return Signers{}, fmt.Errorf("testsuite: NewSigners: %w", err)
	}
	out := Signers{Approvers: approvers}
	keys := make([]approvals.PublicKey, 0, len(principals))
	for _, p := range principals {
		seed := sha256.Sum256([]byte("temporaladk testsuite signer " + p))
		s, err := approvals.NewSigner(p+"-test", p, ed25519.NewKeyFromSeed(seed[:]))
		if err != nil {
			return Signers{}, fmt.Errorf("testsuite: NewSigners: %w", err)
		}
		out.Signers = append(out.Signers, s)
		keys = append(keys, s.PublicKey())
	}
	if out.Verifier, err = approvals.NewEd25519Verifier(keys...); err != nil {
		return Signers{}, fmt.Errorf("testsuite: NewSigners: %w", err)
	}
	return out, nil
}

// Of returns principal's signer, or nil for a principal not among them.
func (s Signers) Of(principal string) *approvals.Signer {
	for _, signer := range s.Signers {
		if signer.Principal() == principal {
			return signer
		}
	}
	return nil
}
