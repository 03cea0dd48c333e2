package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
)

// keyFormat says, in errors, what a key file must be and how to make one.
const keyFormat = "an ed25519 private key in PEM PKCS#8 (decide -genkey -key FILE, or openssl genpkey -algorithm ed25519 -out FILE)"

// readKey reads the ed25519 private key of the PEM PKCS#8 file at path.
// Its errors name the file and what is wrong with it, never its content.
func readKey(path string) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	switch {
	case block == nil:
		return nil, fmt.Errorf("%s is not PEM: the key file is %s", path, keyFormat)
	case block.Type == "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%s is encrypted, which decide does not read: keep an unencrypted key in a file only you can read (mode 0600)", path)
	case block.Type == "OPENSSH PRIVATE KEY":
		return nil, fmt.Errorf("%s is an OpenSSH key, which decide does not read: the key file is %s", path, keyFormat)
	case block.Type != "PRIVATE KEY":
		return nil, fmt.Errorf("%s holds a PEM %q block, not a \"PRIVATE KEY\": the key file is %s", path, block.Type, keyFormat)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: its PKCS#8 key does not parse: %w", path, err)
	}
	ed, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s holds a %T, not an ed25519 key: the key file is %s", path, key, keyFormat)
	}
	return ed, nil
}

// writeNewKey writes a new ed25519 private key, drawn from random, to path
// in PEM PKCS#8 with mode 0600, and returns its public key. An existing file
// is an error: a key is never overwritten.
func writeNewKey(path string, random io.Reader) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(random)
	if err != nil {
		return nil, fmt.Errorf("generating a key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("encoding the key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s exists: -genkey never overwrites a key; name a new file", path)
		}
		return nil, err
	}
	err = pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return pub, nil
}

// publicPEM is pub in PEM PKIX ("PUBLIC KEY"), as `openssl pkey -pubout`
// prints an ed25519 key.
func publicPEM(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encoding the public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}
