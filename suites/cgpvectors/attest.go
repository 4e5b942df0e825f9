package cgpvectors

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// The record attestation ops.
const (
	OpSignRecordAttestation   = "signRecordAttestation"
	OpVerifyRecordAttestation = "verifyRecordAttestation"
)

// AttestationKeyFile is upstream's published test key for record attestations.
const AttestationKeyFile = "record-attestation-key.json"

// placeholderSignature is the signature upstream's record-attestation.json
// carried before attestations were real: DER-looking hex, not Ed25519.
const placeholderSignature = "3045022100c0ffee02207a1753754b6e334dc7e782562dfe52fb54eb67a66d01ecffe499"

// AttestationKey is the published test key and the record it signs.
type AttestationKey struct {
	KeyID     string
	Seed      []byte
	PublicKey []byte
	Signs     Record // the record the key file's signed message is for
	Other     Record // another record, for the mismatched commitments
}

// ReadAttestationKey reads record-attestation-key.json and checks it against
// itself: the public key derives from the seed, and the signed message is the
// domain tag and the hash of the record it names.
func ReadAttestationKey(c *corpus.Corpus, records []Record) (*AttestationKey, error) {
	return readAttestationKey(c, AttestationKeyFile, records)
}

// readAttestationKey is ReadAttestationKey of the file at path in c.
func readAttestationKey(c *corpus.Corpus, path string, records []Record) (*AttestationKey, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, path)
	v, err := readValue(c, path)
	if err != nil {
		return nil, err
	}
	keys := []string{"algorithm", "key_id", "note", "public_key", "signed_message_hex", "signed_message_note", "signing_key_seed", "signing_key_seed_note", "signs"}
	f, err := fields(v, where, keys...)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if f[k].Kind != canon.String {
			return nil, fmt.Errorf("%s: %s is not a string", where, k)
		}
	}
	if f["algorithm"].Str != "ed25519" {
		return nil, fmt.Errorf("%s: algorithm %q, want ed25519", where, f["algorithm"].Str)
	}
	seed, err := hex.DecodeString(f["signing_key_seed"].Str)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: signing_key_seed is not 32 bytes of hex", where)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if hex.EncodeToString(pub) != f["public_key"].Str {
		return nil, fmt.Errorf("%s: public_key %s does not derive from the seed (it gives %x)", where, f["public_key"].Str, pub)
	}
	i := slices.IndexFunc(records, func(r Record) bool { return r.Name+".json" == f["signs"].Str })
	if len(records) < 2 {
		return nil, fmt.Errorf("%s: the attestation cases need at least 2 records, the corpus has %d", where, len(records))
	}
	if i < 0 {
		return nil, fmt.Errorf("%s: signs %q, which is not one of the records", where, f["signs"].Str)
	}
	if id, ok := records[i].Record.Lookup("record_id"); !ok || id.Kind != canon.String {
		return nil, fmt.Errorf("%s: %s has no string record_id, which the record-changed case edits", where, f["signs"].Str)
	}
	msg, _ := cgp.RecordAttestationMessage(records[i].Hash)
	if hex.EncodeToString(msg) != f["signed_message_hex"].Str {
		return nil, fmt.Errorf("%s: signed_message_hex is not the domain tag and the hash of %s", where, f["signs"].Str)
	}
	return &AttestationKey{KeyID: f["key_id"].Str, Seed: seed, PublicKey: pub, Signs: records[i], Other: records[(i+1)%len(records)]}, nil
}

// weakKey is the identity point, of order 1; with R = identity and S = 0,
// weakForgery verifies any message under it unless the verifier is strict.
const (
	weakKey     = "0100000000000000000000000000000000000000000000000000000000000000"
	weakForgery = "01000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
)

// attestation is a record attestation's JSON text.
func attestation(k *AttestationKey, hash, sig string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{
		"signed_record_hash": hash, "key_id": k.KeyID, "algorithm": "ed25519",
		"attester_id": "provider_example", "signature": sig, "issued_at": "2026-07-29T14:00:05Z",
	})
	return b
}

// attestationChecks are cgp-vectors/record-attestation/sign and
// cgp-vectors/record-attestation/verify/CASE.
func attestationChecks(k *AttestationKey) []check.Check {
	rec, other := k.Signs, k.Other
	good, _ := cgp.SignRecordAttestation(k.Seed, rec.Hash)
	otherSig, _ := cgp.SignRecordAttestation(k.Seed, other.Hash)
	digest, _ := hex.DecodeString(rec.Hash[len("sha256:"):])
	bare := hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(k.Seed), digest))
	wrongKey := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	changed := canon.Value{Kind: canon.Object}
	for _, m := range rec.Record.Members {
		if m.Key == "record_id" {
			m.Value = canon.Value{Kind: canon.String, Str: m.Value.Str + "-edited"}
		}
		changed.Members = append(changed.Members, m)
	}
	pub := hex.EncodeToString(k.PublicKey)
	out := []check.Check{{
		ID:    "cgp-vectors/record-attestation/sign",
		Doc:   "the published test key's Ed25519 signature of " + rec.Name + "'s record_hash, domain-tagged",
		Needs: []string{OpSignRecordAttestation},
		Explain: fmt.Sprintf("sends: %s {\"seed\": %q, \"signed_record_hash\": %q}\nexpects: ok %q (Ed25519 is deterministic; the message is %q followed by the hash's 32 raw bytes)",
			OpSignRecordAttestation, hex.EncodeToString(k.Seed), rec.Hash, good, cgp.RecordAttestationDomain),
		Clause: clauseRecordSigned,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Expect{
				Op: OpSignRecordAttestation, Args: map[string]string{"seed": hex.EncodeToString(k.Seed), "signed_record_hash": rec.Hash},
				Words: func(m check.Miss) check.Outcome {
					o := m.Outcome
					if m.Kind == check.Differs && m.OK.Str == bare {
						o.Reason = "the signature is of the bare digest: a record attestation signs \"" + cgp.RecordAttestationDomain + "\" followed by the hash's 32 raw bytes"
					}
					return o
				},
			}.Bytes(ctx, s, "signature (hex)", []byte(good))
		},
	}}
	cases := []struct {
		name, doc string
		record    canon.Value
		att       json.RawMessage
		pub       string
		reason    string // "" for valid
	}{
		{"valid", "a correct attestation of " + rec.Name + " verifies", rec.Record, attestation(k, rec.Hash, good), pub, ""},
		{"other-record", "an attestation validly signed for another record (" + other.Name + ") does not attest " + rec.Name, rec.Record, attestation(k, other.Hash, otherSig), pub, cgp.ReasonCommitmentMismatch},
		{"record-changed", "a record edited after it was attested no longer matches its attestation", changed, attestation(k, rec.Hash, good), pub, cgp.ReasonCommitmentMismatch},
		{"commitment-before-signature", "the commitment is compared before the signature is verified", rec.Record, attestation(k, other.Hash, placeholderSignature), pub, cgp.ReasonCommitmentMismatch},
		{"bare-digest", "a signature of the bare digest, without the domain tag, is refused", rec.Record, attestation(k, rec.Hash, bare), pub, cgp.ReasonSignatureInvalid},
		{"placeholder", "upstream's former placeholder signature is refused", rec.Record, attestation(k, rec.Hash, placeholderSignature), pub, cgp.ReasonSignatureInvalid},
		{"wrong-key", "a valid signature under another key is refused", rec.Record, attestation(k, rec.Hash, good), hex.EncodeToString(wrongKey), cgp.ReasonSignatureInvalid},
		{"uppercase-commitment", "a signed_record_hash in uppercase hex is malformed, not a mismatch: digests are lowercase", rec.Record, attestation(k, "sha256:"+strings.ToUpper(rec.Hash[7:]), good), pub, cgp.ReasonMalformed},
		{"small-order-key", "a small-order key, under which one forged signature verifies any message, is refused (verify_strict)", rec.Record, attestation(k, rec.Hash, weakForgery), weakKey, cgp.ReasonSignatureInvalid},
	}
	for _, c := range cases {
		want := `{"valid": true}`
		if c.reason != "" {
			want = `{"valid": false, "reason": "` + c.reason + `"}`
		}
		clause := clauseRecordVerify
		switch c.name {
		case "bare-digest", "placeholder", "wrong-key":
			clause = clauseRecordSigned
		case "uppercase-commitment":
			clause = clauseDigestGrammar
		}
		vc := check.Check{
			ID:      "cgp-vectors/record-attestation/verify/" + c.name,
			Doc:     c.doc,
			Needs:   []string{OpVerifyRecordAttestation},
			Explain: fmt.Sprintf("sends: %s {\"record\": <%s>, \"attestation\": %s, \"public_key\": %q}\nexpects: ok %s", OpVerifyRecordAttestation, rec.Name, check.Clip(string(c.att)), c.pub, want),
			Clause:  clause,
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				r, o, ok := check.Expect{
					Op: OpVerifyRecordAttestation, Args: map[string]any{"record": raw(c.record), "attestation": c.att, "public_key": c.pub}, Want: want,
				}.OK(ctx, s)
				if !ok {
					return o
				}
				valid, okV := r.Lookup("valid")
				reason, _ := r.Lookup("reason")
				if r.Kind != canon.Object || !okV || valid.Kind != canon.Bool {
					return check.Failed(OpVerifyRecordAttestation+` must answer {"valid": B, ...}`, want, r.String())
				}
				switch {
				case c.reason == "" && !valid.Bool:
					why := "no reason given"
					if reason.Kind == canon.String && reason.Str != "" {
						why = reason.Str
					}
					return check.Failed("a correct attestation was refused ("+why+")", want, r.String())
				case c.reason == "":
					return check.Passed()
				case valid.Bool:
					return check.Failed("an attestation that must be refused with "+c.reason+" was accepted", want, r.String())
				case reason.Kind != canon.String || reason.Str != c.reason:
					return check.Failed(fmt.Sprintf("refused, but with reason %s, want %s", reason.String(), c.reason), want, r.String())
				}
				return check.Passed()
			},
		}
		if c.name == "small-order-key" {
			vc = strictVerifier(vc)
		}
		out = append(out, vc)
	}
	return out
}
