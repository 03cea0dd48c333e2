package approvals_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	stdbase64 "encoding/base64"

	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/testsuite"
)

// team are the tests' signing principals, ana, bo, cy and eve, and the
// verifier that knows each one's key (named "<principal>-test"); eve
// approves nothing the tests declare. Each key is derived from its
// principal's name, so that a worker process and the test build the same.
var team = func() testsuite.Signers {
	s, err := testsuite.NewSigners(1, "ana", "bo", "cy", "eve")
	if err != nil {
		panic(err)
	}
	return s
}()

// signer signs as principal, one of team.
func signer(principal string) *approvals.Signer { return team.Of(principal) }

// testVerifier knows the keys of every principal of team.
func testVerifier() approvals.Verifier { return team.Verifier }

// testKey is an ed25519 key of name's own, for the tests that build a
// signer or a key themselves.
func testKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("temporaladk approvals test key " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// testConverter decodes the kit's headers, which the SDK's default
// converter encodes.
var testConverter = converter.GetDefaultDataConverter()

// base64 is b as encoding/json writes a []byte.
func base64(b []byte) string { return stdbase64.StdEncoding.EncodeToString(b) }
