// Package fablepool is a Go implementation of the FablePool profile
// fablepool-draft-1: canonical JSON by code point with integers only,
// Ed25519 signing, and signed operation envelopes with their fixed
// verification order and error codes.
package fablepool

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/refereehq/referee/canon"
)

// Profile names the profile this package implements.
const Profile = "fablepool-draft-1"

// The error codes, in the profile's verification order (§5).
const (
	CodeJSONInvalid          = "json_invalid"
	CodeCanonicalUnsupported = "canonical_unsupported"
	CodeShape                = "envelope_shape"
	CodeMissingField         = "envelope_missing_field"
	CodeUnknownField         = "envelope_unknown_field"
	CodeFieldType            = "envelope_field_type"
	CodeVersionUnsupported   = "version_unsupported"
	CodeIDMismatch           = "id_mismatch"
	CodeSigInvalid           = "sig_invalid"
)

// Error is a profile error with its code.
type Error struct {
	Code   string
	Detail string
	Err    error
}

func (e *Error) Error() string {
	s := "fablepool: " + e.Code
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns err's profile code, or "".
func CodeOf(err error) string {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

// Canon is the profile's canonical JSON: keys by code point, integers in
// ±(2^53−1) only, JSON.stringify's escapes, lone surrogates refused.
var Canon = &canon.CodePointInteger

// Parse reads JSON text strictly (RFC 8259, no duplicate keys): any failure
// is json_invalid.
func Parse(text []byte) (canon.Value, error) {
	v, err := canon.Parse(text, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, &Error{Code: CodeJSONInvalid, Err: err}
	}
	return v, nil
}

// Canonical returns the canonical bytes of v; a value the profile cannot
// write (a fraction, an exponent, a large integer, a lone surrogate) is
// canonical_unsupported.
func Canonical(v canon.Value) ([]byte, error) {
	b, err := Canon.Append(nil, v)
	if err != nil {
		return nil, &Error{Code: CodeCanonicalUnsupported, Err: err}
	}
	return b, nil
}

// CanonicalText parses text strictly and returns its canonical bytes.
func CanonicalText(text []byte) ([]byte, error) {
	v, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return Canonical(v)
}

// PublicKey derives the RFC 8032 public key of a 32-byte seed.
func PublicKey(seed []byte) ([]byte, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("fablepool: seed is %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return keyOf(seed).Public().(ed25519.PublicKey), nil
}

// keys holds the keys derived from the seeds last signed with: deriving
// one is a scalar multiplication, and a corpus or a fuzz run signs with a
// few seeds many times.
var keys struct {
	sync.Mutex
	m map[[ed25519.SeedSize]byte]ed25519.PrivateKey
}

// maxKeys bounds keys: when it is full, it is emptied.
const maxKeys = 1024

// keyOf is ed25519.NewKeyFromSeed(seed), seed being of SeedSize bytes,
// derived once while it is in keys.
func keyOf(seed []byte) ed25519.PrivateKey {
	s := [ed25519.SeedSize]byte(seed)
	keys.Lock()
	k, ok := keys.m[s]
	keys.Unlock()
	if ok {
		return k
	}
	k = ed25519.NewKeyFromSeed(seed)
	keys.Lock()
	if len(keys.m) >= maxKeys || keys.m == nil {
		keys.m = make(map[[ed25519.SeedSize]byte]ed25519.PrivateKey)
	}
	keys.m[s] = k
	keys.Unlock()
	return k
}

// Sign signs message with pure Ed25519 (no prehash, no context).
func Sign(seed, message []byte) ([]byte, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("fablepool: seed is %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return ed25519.Sign(keyOf(seed), message), nil
}

// Verify reports whether sig is a valid pure Ed25519 signature of message by
// pub. Lengths other than 32 and 64 bytes, S ≥ L and invalid point
// encodings are all false, never a panic.
func Verify(pub, message, sig []byte) bool {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(pub, message, sig)
}

// Tamper flips bit 0 of byte 0, or returns the single byte 0x00 for an
// empty input: the profile's tampered message and tampered signature.
func Tamper(b []byte) []byte {
	if len(b) == 0 {
		return []byte{0}
	}
	out := append([]byte(nil), b...)
	out[0] ^= 1
	return out
}

// Author is the author field for a public key: "ed25519:" and 64 lowercase hex.
func Author(pub []byte) string { return "ed25519:" + hex.EncodeToString(pub) }

// ID is "op:" and the lowercase hex SHA-256 of canonical body bytes.
func ID(bodyCanonical []byte) string {
	sum := sha256.Sum256(bodyCanonical)
	return "op:" + hex.EncodeToString(sum[:])
}
