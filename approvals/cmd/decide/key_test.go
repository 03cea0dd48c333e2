package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenSSLKey: a key of `openssl genpkey -algorithm ed25519` is read,
// and -pubkey prints what `openssl pkey -pubout` printed for it, byte for
// byte (testdata holds both, made with OpenSSL 3.0).
func TestOpenSSLKey(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("testdata/openssl-test-key.pub.pem")
	require.NoError(t, err)
	stdout, stderr, code := decideRun(t, "", "-pubkey", "-key", "testdata/openssl-test-key.pem")
	require.Zero(t, code, stderr)
	require.Equal(t, string(want), stdout)
}

// TestGenkey: -genkey writes a new PKCS#8 key only its owner reads, prints
// its public key, and never overwrites a file.
func TestGenkey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ana.pem")
	pub, stderr, code := decideRun(t, "", "-genkey", "-key", path)
	require.Zero(t, code, stderr)
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	key, err := readKey(path)
	require.NoError(t, err)
	block, _ := pem.Decode([]byte(pub))
	require.NotNil(t, block, pub)
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	require.Equal(t, key.Public(), parsed, "the printed public key is the written key's")
	again, _, code := decideRun(t, "", "-pubkey", "-key", path)
	require.Zero(t, code)
	require.Equal(t, pub, again)

	written, err := os.ReadFile(path)
	require.NoError(t, err)
	stdout, stderr, code := decideRun(t, "", "-genkey", "-key", path)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "ana.pem exists: -genkey never overwrites a key")
	require.Empty(t, stdout)
	kept, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, written, kept)
}

// TestBadKeyFiles: a key file that is not an unencrypted PEM PKCS#8
// ed25519 key exits 1 with a message naming the file and what it holds.
func TestBadKeyFiles(t *testing.T) {
	t.Parallel()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecDER, err := x509.MarshalPKCS8PrivateKey(ec)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	edDER, err := x509.MarshalPKCS8PrivateKey(edKey)
	require.NoError(t, err)
	dir := t.TempDir()
	block := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"not PEM", []byte("ana's key"), "is not PEM: the key file is an ed25519 private key in PEM PKCS#8"},
		{"encrypted", block("ENCRYPTED PRIVATE KEY", []byte{1, 2, 3}), "is encrypted, which decide does not read"},
		{"OpenSSH", block("OPENSSH PRIVATE KEY", []byte{1, 2, 3}), "is an OpenSSH key, which decide does not read"},
		{"a public key", block("PUBLIC KEY", []byte{1, 2, 3}), `holds a PEM "PUBLIC KEY" block, not a "PRIVATE KEY"`},
		{"broken PKCS#8", block("PRIVATE KEY", edDER[:len(edDER)-3]), "its PKCS#8 key does not parse"},
		{"an ECDSA key", block("PRIVATE KEY", ecDER), "holds a *ecdsa.PrivateKey, not an ed25519 key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, tc.name+".pem")
			require.NoError(t, os.WriteFile(path, tc.content, 0o600))
			for _, args := range [][]string{
				{"-pubkey", "-key", path},
				{"-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-approve"},
			} {
				stdout, stderr, code := decideRun(t, cliAnswer(t, listed(t)), args...)
				require.Equal(t, 1, code, stderr)
				require.Contains(t, stderr, path)
				require.Contains(t, stderr, tc.want)
				require.Empty(t, stdout)
			}
		})
	}
	stdout, stderr, code := decideRun(t, "", "-pubkey", "-key", filepath.Join(dir, "missing.pem"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "missing.pem: no such file")
	require.Empty(t, stdout)
}
