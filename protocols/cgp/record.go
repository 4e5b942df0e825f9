package cgp

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

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
	hexPart, ok := strings.CutPrefix(recordHash, "sha256:")
	raw, err := hex.DecodeString(hexPart)
	if !ok || err != nil || len(raw) != sha256.Size || strings.ToLower(hexPart) != hexPart {
		return nil, fmt.Errorf("record hash %q is not sha256: and 64 lowercase hex digits", recordHash)
	}
	return append([]byte(RecordAttestationDomain), raw...), nil
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
	want, err := RecordHash(record)
	if err != nil {
		return bad(ReasonMalformed, "%v", err)
	}
	if fields["signed_record_hash"] != want {
		return bad(ReasonCommitmentMismatch, "signed_record_hash %s, the record hashes to %s", fields["signed_record_hash"], want)
	}
	msg, _ := RecordAttestationMessage(want)
	sig, err := hex.DecodeString(fields["signature"])
	if err != nil || len(sig) != ed25519.SignatureSize || len(publicKey) != ed25519.PublicKeySize {
		return bad(ReasonSignatureInvalid, "the signature is not %d bytes of hex", ed25519.SignatureSize)
	}
	if !ed25519.Verify(publicKey, msg, sig) {
		return bad(ReasonSignatureInvalid, "the signature does not verify under the key")
	}
	return nil
}
