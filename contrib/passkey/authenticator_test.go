package passkey_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/temporaladk/adk-go/contrib/passkey"
)

// softKey is an authenticator in software for the tests that need no
// browser: an ed25519 passkey (COSE algorithm -8), deterministic from its
// seed, whose assertions are what a browser's PublicKeyCredential.toJSON
// gives.
type softKey struct {
	id   []byte
	priv ed25519.PrivateKey
}

const (
	rpID   = "localhost"
	origin = "http://localhost:8080"
	flagUP = 0x01
	flagUV = 0x04
	flagAT = 0x40
)

func newSoftKey(name string) softKey {
	seed := sha256.Sum256([]byte("passkey test authenticator " + name))
	id := sha256.Sum256([]byte("credential " + name))
	return softKey{id: id[:16], priv: ed25519.NewKeyFromSeed(seed[:])}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// ID is the credential ID as the browser shows it.
func (k softKey) ID() string { return b64(k.id) }

// cose is the public key as an authenticator gives it at registration.
func (k softKey) cose() []byte {
	b, err := webauthncbor.Marshal(webauthncose.OKPPublicKeyData{PublicKeyData: webauthncose.PublicKeyData{KeyType: 1, Algorithm: -8},
		Curve: 6, XCoord: k.priv.Public().(ed25519.PublicKey)})
	if err != nil {
		panic(err)
	}
	return b
}

// credential is the key's public record, for principal.
func (k softKey) credential(principal string, uv bool) passkey.Credential {
	return passkey.Credential{Principal: principal, ID: k.ID(), PublicKey: k.cose(), RPID: rpID, Origins: []string{origin}, UserVerification: uv}
}

// clientData is the browser's client data of a ceremony.
func clientData(typ string, challenge []byte, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": b64(challenge), "origin": origin, "crossOrigin": false})
	return b
}

// assert signs challenge as an authenticator asked on origin for rp with
// the given flags, returning the browser's JSON of the assertion.
func (k softKey) assert(challenge []byte, origin, rp string, flags byte) []byte {
	rpHash := sha256.Sum256([]byte(rp))
	auth := append(rpHash[:], flags, 0, 0, 0, 1)
	cd := clientData("webauthn.get", challenge, origin)
	cdHash := sha256.Sum256(cd)
	sig := ed25519.Sign(k.priv, append(auth[:len(auth):len(auth)], cdHash[:]...))
	b, _ := json.Marshal(map[string]any{"id": k.ID(), "rawId": k.ID(), "type": "public-key",
		"response": map[string]string{"clientDataJSON": b64(cd), "authenticatorData": b64(auth), "signature": b64(sig)}})
	return b
}

// create answers a registration's challenge as an authenticator with no
// attestation ("none"), returning the browser's JSON of the new credential.
func (k softKey) create(challenge []byte, origin, rp string) []byte {
	rpHash := sha256.Sum256([]byte(rp))
	auth := append(rpHash[:], flagUP|flagUV|flagAT, 0, 0, 0, 0)
	auth = append(auth, make([]byte, 16)...) // AAGUID
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(k.id)))
	auth = append(append(auth, k.id...), k.cose()...)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(map[string]any{"id": k.ID(), "rawId": k.ID(), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64(clientData("webauthn.create", challenge, origin)), "attestationObject": b64(att)}})
	return b
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
