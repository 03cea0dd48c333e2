package approvals_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	stdbase64 "encoding/base64"

	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/approvals"
)

// testKey is the ed25519 key of principal in the tests: derived from its
// name, so that a worker process and the test build the same keys.
func testKey(principal string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("temporaladk approvals test key " + principal))
	return ed25519.NewKeyFromSeed(seed[:])
}

// signer signs as principal with its test key, named "<principal>-key".
func signer(principal string) *approvals.Signer {
	s, err := approvals.NewSigner(principal+"-key", principal, testKey(principal))
	if err != nil {
		panic(err)
	}
	return s
}

// testVerifier knows the keys of ana, bo, cy and eve; eve approves nothing
// the tests declare.
func testVerifier() approvals.Verifier {
	var keys []approvals.PublicKey
	for _, p := range []string{"ana", "bo", "cy", "eve"} {
		keys = append(keys, signer(p).PublicKey())
	}
	v, err := approvals.NewEd25519Verifier(keys...)
	if err != nil {
		panic(err)
	}
	return v
}

// testConverter decodes the kit's headers, which the SDK's default
// converter encodes.
var testConverter = converter.GetDefaultDataConverter()

// base64 is b as encoding/json writes a []byte.
func base64(b []byte) string { return stdbase64.StdEncoding.EncodeToString(b) }
