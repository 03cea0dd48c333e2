package approvals_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/approvals"
)

// A person signs a decision on a pending call; the worker's verifier holds
// their public key and checks the signature over the call's statement. A
// decision altered after signing does not verify.
func ExampleSigner() {
	seed := sha256.Sum256([]byte("ana's seed, kept in a secret store"))
	ana, _ := approvals.NewSigner("ana-2026", "ana", ed25519.NewKeyFromSeed(seed[:]))
	verifier, _ := approvals.NewEd25519Verifier(ana.PublicKey())

	p := approvals.Pending{WorkflowID: "trip-1", RunID: "run-1", Chain: "run-1", Call: "approval-1", ActivityType: "BookSeat", Digest: "7f03e1"}
	expires := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	req, _ := ana.Approve(p, "checked the fare", expires)
	fmt.Println(req.By, req.Key, *req.Approve)
	fmt.Println(verifier.Verify(p.Statement(true, "ana", expires), req.Key, req.Signature))
	fmt.Println(verifier.Verify(p.Statement(false, "ana", expires), req.Key, req.Signature) != nil)
	// Output:
	// ana ana-2026 true
	// <nil>
	// true
}

// hmacVerifier is a Verifier of the user's own: a MAC with a secret per
// principal, as a JWT verifier would check a token against keys
// configured on the worker.
type hmacVerifier map[string][]byte

func (v hmacVerifier) Verify(s approvals.Statement, key string, proof []byte) error {
	secret, ok := v[key]
	if !ok || key != s.By {
		return fmt.Errorf("no secret for %q", key)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(s.Bytes())
	if !hmac.Equal(mac.Sum(nil), proof) {
		return errors.New("the MAC does not match")
	}
	return nil
}

// The Verifier seam: any check of a proof over Statement.Bytes plugs in as
// WorkerOptions.Verifier.
func ExampleVerifier() {
	var v approvals.Verifier = hmacVerifier{"bo": []byte("bo's secret")}
	s := approvals.Statement{WorkflowID: "trip-1", Chain: "run-1", RunID: "run-1", Call: "approval-1",
		ActivityType: "BookSeat", Digest: "7f03e1", Approve: true, By: "bo", Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	mac := hmac.New(sha256.New, []byte("bo's secret"))
	mac.Write(s.Bytes())
	fmt.Println(v.Verify(s, "bo", mac.Sum(nil)))
	s.Digest = "another call's"
	fmt.Println(v.Verify(s, "bo", mac.Sum(nil)))
	// Output:
	// <nil>
	// the MAC does not match
}
