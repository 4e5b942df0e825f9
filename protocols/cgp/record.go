package cgp

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/refereehq/referee/canon"
)

// RecordHashMember is the lifecycle record's own hash member, left out of its preimage.
const RecordHashMember = "record_hash"

// RecordPreimage returns the RFC 8785 text of a lifecycle record without its
// top-level record_hash member (removed, not blanked; nested ones stay).
func RecordPreimage(record canon.Value) ([]byte, error) {
	if record.Kind != canon.Object {
		return nil, fmt.Errorf("a lifecycle record is an object, not %s", record.Kind)
	}
	rest := canon.Value{Kind: canon.Object}
	for _, m := range record.Members {
		if m.Key != RecordHashMember {
			rest.Members = append(rest.Members, m)
		}
	}
	return Canonical(rest)
}

// RecordHash returns a lifecycle record's record_hash: "sha256:" and the hex
// SHA-256 of its RecordPreimage.
func RecordHash(record canon.Value) (string, error) {
	b, err := RecordPreimage(record)
	if err != nil {
		return "", err
	}
	return DigestOf(b), nil
}

// RecordAttestationDomain prefixes the bytes a record attestation signs.
const RecordAttestationDomain = "contextgraph/attest/1/record"

// The reasons VerifyRecordAttestation gives, in the order it checks them.
const (
	ReasonMalformed          = "malformed"           // not an attestation of the six members, or not ed25519
	ReasonCommitmentMismatch = "commitment_mismatch" // signed_record_hash is not the record's hash
	ReasonSignatureInvalid   = "signature_invalid"   // the signature does not verify under the key
)

// RecordAttestationMessage is the domain tag followed by the 32 raw bytes of
// a "sha256:<hex>" record hash: what Ed25519 signs, never the bare digest.
func RecordAttestationMessage(recordHash string) ([]byte, error) {
	h, err := ParseHash(recordHash)
	if err != nil {
		return nil, fmt.Errorf("record hash %w", err)
	}
	return append([]byte(RecordAttestationDomain), h[:]...), nil
}

// SignRecordAttestation returns the hex Ed25519 signature by seed of a record hash.
func SignRecordAttestation(seed []byte, recordHash string) (string, error) {
	if len(seed) != ed25519.SeedSize {
		return "", fmt.Errorf("an Ed25519 seed is %d bytes, not %d", ed25519.SeedSize, len(seed))
	}
	msg, err := RecordAttestationMessage(recordHash)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg)), nil
}

// AttestationError is why a record attestation does not hold.
type AttestationError struct {
	Reason string // one of the Reason constants
	Detail string
}

func (e *AttestationError) Error() string { return e.Reason + ": " + e.Detail }

// VerifyRecordAttestation checks a detached attestation of record under the
// public key: its shape, then the commitment (signed_record_hash equals the
// record's hash), and only then the signature.
func VerifyRecordAttestation(record, attestation canon.Value, publicKey []byte) error {
	bad := func(reason, format string, a ...any) error {
		return &AttestationError{Reason: reason, Detail: fmt.Sprintf(format, a...)}
	}
	fields := map[string]string{}
	if attestation.Kind != canon.Object {
		return bad(ReasonMalformed, "an attestation is an object, not %s", attestation.Kind)
	}
	for _, m := range attestation.Members {
		if m.Value.Kind != canon.String {
			return bad(ReasonMalformed, "%s is %s, not a string", m.Key, m.Value.Kind)
		}
		fields[m.Key] = m.Value.Str
	}
	for _, k := range []string{"signed_record_hash", "key_id", "algorithm", "attester_id", "signature", "issued_at"} {
		if _, ok := fields[k]; !ok {
			return bad(ReasonMalformed, "no %s", k)
		}
	}
	if fields["algorithm"] != "ed25519" {
		return bad(ReasonMalformed, "algorithm %q, want ed25519", fields["algorithm"])
	}
	if _, err := RecordAttestationMessage(fields["signed_record_hash"]); err != nil {
		return bad(ReasonMalformed, "signed_record_hash: %v", err)
	}
	if len(publicKey) != ed25519.PublicKeySize {
		return bad(ReasonMalformed, "the public key is %d bytes, not %d", len(publicKey), ed25519.PublicKeySize)
	}
	want, err := RecordHash(record)
	if err != nil {
		return bad(ReasonMalformed, "%v", err)
	}
	if fields["signed_record_hash"] != want {
		return bad(ReasonCommitmentMismatch, "signed_record_hash %s, the record hashes to %s", fields["signed_record_hash"], want)
	}
	msg, _ := RecordAttestationMessage(want)
	sig, err := hex.DecodeString(fields["signature"])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return bad(ReasonSignatureInvalid, "the signature is not %d bytes of hex", ed25519.SignatureSize)
	}
	if WeakPublicKey(publicKey) || WeakPublicKey(sig[:32]) {
		return bad(ReasonSignatureInvalid, "the key or the signature's R is a small-order or non-canonical point (a strict verifier refuses them)")
	}
	if !ed25519.Verify(publicKey, msg, sig) {
		return bad(ReasonSignatureInvalid, "the signature does not verify under the key")
	}
	return nil
}

// smallOrder are the encodings of the points P with 8P = identity.
var smallOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
}

// IsSmallOrder reports whether p is the canonical encoding of a point of
// small order (8P = identity).
func IsSmallOrder(p []byte) bool { return slices.Contains(smallOrder, hex.EncodeToString(p)) }

// WeakPublicKey reports whether a 32-byte point encoding is one a strict
// Ed25519 verifier refuses: not 32 bytes, y not reduced mod 2^255-19, a y
// with no point (off the curve), x = 0 with the sign bit set, or a point
// of small order. crypto/ed25519 accepts all but the off-curve ones.
func WeakPublicKey(p []byte) bool {
	if len(p) != ed25519.PublicKeySize {
		return true
	}
	enc := hex.EncodeToString(p)
	if slices.Contains(smallOrder, enc) || slices.Contains(xZeroSignSet, enc) {
		return true
	}
	// y >= p = 2^255-19: bytes 1..30 all 0xff, byte 31 (sign masked) 0x7f,
	// byte 0 >= 0xed.
	nonCanonical := p[31]&0x7f == 0x7f && p[0] >= 0xed
	for _, b := range p[1:31] {
		nonCanonical = nonCanonical && b == 0xff
	}
	// A canonical encoding of a point is of small order exactly when it is
	// one of the eight in smallOrder.
	return nonCanonical || !onCurve(edY(p))
}
