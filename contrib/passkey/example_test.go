package passkey_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/contrib/passkey"
)

// A worker's verifier holds ana's public credential only. Her
// authenticator's assertion over a decision's challenge proves that
// decision, and no other.
func ExampleVerifier() {
	ana := newSoftKey("ana") // a stand-in for her authenticator
	verifier, err := passkey.NewVerifier(ana.credential("ana", true))
	if err != nil {
		panic(err)
	}
	s := approvals.Statement{WorkflowID: "refund-1", RunID: "run-1", Chain: "run-1", Call: "approval-1",
		ActivityType: "IssueRefund", Digest: "d1", Approve: true, By: "ana", Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	challenge, _ := passkey.Challenge(s)
	assertion := ana.assert(challenge, "http://localhost:8080", "localhost", flagUP|flagUV)
	fmt.Println(verifier.Verify(s, ana.ID(), assertion))

	s.Digest = "d2" // other arguments
	var refused *passkey.AssertionError
	errors.As(verifier.Verify(s, ana.ID(), assertion), &refused)
	fmt.Println(refused.Mistake)
	// Output:
	// <nil>
	// challenge of another statement
}
