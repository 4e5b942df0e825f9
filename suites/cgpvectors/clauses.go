package cgpvectors

import (
	"strings"

	"github.com/refereehq/referee/check"
)

// The clauses the checks rest on, each with its source: the fixture
// profile's own text (contextgraph-conformance's README, "Golden
// fixtures"), upstream's SPEC (its rule IDs, F1 ... B3, and sections), and
// the notes upstream's vector files carry. Every check is a must except a
// strict Ed25519 verifier's refusals, which SPEC §6.5.4 makes a should.
const (
	clauseMaterialize = `contextgraph-conformance, Golden fixtures: "This pinned profile materializes omitted provenance, relations, kinds, and anchors arrays before hashing. It preserves array order and leaves absent optional scalar fields absent."`
	clauseJCS         = `contextgraph-conformance, Golden fixtures: each digest case publishes the "exact JCS UTF-8 text" of its normalized object; "Ordinary serde_json serialization is not a substitute for RFC 8785 canonicalization."`
	clauseVectorJCS   = `contextgraph-conformance, Golden fixtures: "The generic JCS cases additionally cover Unicode/escaping and ECMAScript number boundaries"; "Ordinary serde_json serialization is not a substitute for RFC 8785 canonicalization."`
	clauseSHA256      = `contextgraph-conformance, Golden fixtures: each case publishes the "SHA-256 digest of those canonical bytes": "sha256:" and the lowercase hex SHA-256 of the UTF-8 RFC 8785 text`
	clauseStrict      = `contextgraph-conformance, Golden fixtures: "the digest profile rejects unknown frame/query fields, including unknown fields in provenance, embedding, and relation objects; the portable negative vectors freeze that stricter behavior."`
	clauseValidFrame  = `CGP SPEC frame rules (F1–F6, P1–P4, Q2, D1, G1, G2, B3): a frame that breaks none of them is valid, and the fixture profile's valid frames break none`

	clauseRecordHash      = `record-hash-vectors.json, rule: record_hash = "sha256:" + hex(sha256(JCS(record with its top-level record_hash member removed)))`
	clauseRecordExtension = `contextgraph-conformance, record_hash_typed_wire_parity (issue #118): an unmodelled namespaced member is kept (record.extra) and hashed like the wire value; an extension member is content: it changes the hash`
	clauseRecordSigned    = `record-attestation-key.json, signed_message_note: "RECORD_ATTESTATION_DOMAIN ("contextgraph/attest/1/record") followed by the 32 raw bytes of the signed record_hash. Ed25519 signs these bytes; it never signs the bare digest"`
	clauseRecordVerify    = `CGP ADR 0017 (record attestation): the verifier compares the signed record_hash with the record's hash before the signature (a mismatch is a commitment mismatch), then verifies Ed25519 over the domain-tagged hash`
	clauseDigestGrammar   = `CGP SPEC D1: a digest is "sha256:" and 64 hex digits; lowercase is mandatory`
	clauseStrictVerifier  = `CGP SPEC §6.5.4 (attestation-vectors.json, verifier_strictness): a verifier SHOULD reject small-order public keys and non-canonical encodings`

	clauseRange = `CGP SPEC §6.2.1 (F17): line-range = "L" line-number ["-" line-number], line-number without a leading zero, from 1; lines split on LF only, each including its LF, CR is content; the end is inclusive and clamps to the last line; a start past the end, an inverted range or any other spelling is unverifiable, never a whole-file fallback`

	clauseLink       = `CGP SPEC §6.5: encode(link) = enc_str(type) ‖ enc_opt(uri) ‖ enc_opt(range) ‖ enc_opt(digest) ‖ enc_opt(method) ‖ enc_opt(by), enc_str(s) = u32be(len(utf8 s)) ‖ utf8 s, enc_opt(None) = 00, enc_opt(Some s) = 01 ‖ enc_str(s); attestation-vectors.json: "An explicit empty string is Some("") and encodes differently — that distinction is normative"`
	clauseChain      = `CGP SPEC §6.5: h₋₁ = SHA256("contextgraph/attest/1/genesis"); hᵢ = SHA256("contextgraph/attest/1/link" ‖ hᵢ₋₁ ‖ encode(linkᵢ)), folded source-first; an empty chain gives the genesis value`
	clauseCommitment = `CGP SPEC §6.5: the frame commitment is SHA256("contextgraph/attest/1/frame" ‖ enc_str(provider_id) ‖ enc_str(frame.id) ‖ enc_opt(content_digest) ‖ chain_head)`
	clauseMerkle     = `CGP SPEC §6.5: the result root is RFC 6962 over the frame commitments: leaf = SHA256(00 ‖ c), node = SHA256(01 ‖ l ‖ r), split at the largest power of 2 below n; the empty tree is SHA256("contextgraph/attest/1/merkle-empty")`
	clauseResultRoot = `CGP SPEC §6.5: the result root is RFC 6962 over the frame commitments in canonical FrameId order (provider_id, frame_id, content_digest, as Rust's derived order)`
	clauseProof      = `CGP SPEC §6.5: an InclusionProof is {leaf_index, leaf_count, path: [{sibling, sibling_is_left}]}, RFC 6962's audit path to the result root`
	clauseSign       = `CGP SPEC §6.5: the attestation is an Ed25519 signature over the raw 32 commitment or root bytes, with no domain prefix`
	clauseVerdicts   = `CGP SPEC §6.5: a verifier's verdict is Valid, CommitmentMismatch, BadSignature, UnknownAlgorithm, MalformedKey, MalformedSignature or MalformedCommitment; only signed_commitment is covered by the signature (F18)`

	clauseEnvelope          = `CGP schema/reference-vectors.ndjson (issue #54): each envelope as the Rust serializer (serde_json over the wire types) writes it, compact, one per line`
	clauseEnvelopeRespelled = `CGP SPEC U1: a receiver MUST ignore members it does not know; schema/reference-vectors.ndjson: each envelope as the Rust serializer (serde_json over the wire types) writes it`
)

// ruleClause is the SPEC text of one of the frame rules checkFrame answers.
func ruleClause(rule string) string {
	switch rule {
	case "F1":
		return "F1: 0 ≤ score ≤ 1"
	case "F2":
		return "F2: title is non-empty"
	case "F3":
		return "F3: citation_label MUST be present and non-blank (whitespace-only fails)"
	case "F4":
		return "F4: a timestamp is YYYY-MM-DDTHH:MM:SS(.f+)?Z, UTC only, uppercase T and Z"
	case "F5":
		return `F5: a provenance link of type "file" requires a digest matching sha256:[0-9a-f]{64}`
	case "F6":
		return "F6: a frame MUST NOT carry its own attestation"
	case "P1":
		return "P1: a full frame (representation absent) requires content; representation is full, compact or reference"
	case "P2":
		return "P2: a compact frame requires content, content_digest, canonical_content_hash, transform and content_ref"
	case "P3":
		return "P3: a reference frame requires content_ref and canonical_content_hash; content, content_digest and transform must be absent"
	case "P4":
		return "P4: a reference frame's token_cost is 0"
	case "Q2":
		return "Q2: the validity window is the half-open [valid_from, valid_to), compared as instants"
	case "D1":
		return "D1: a digest (content_digest, canonical_content_hash) is sha256:<64 lowercase hex>; content_digest is the SHA-256 of the inline bytes"
	case "G1":
		return "G1: a relation's display_name is non-blank"
	case "G2":
		return "G2: a relation's target_uri is non-blank"
	case RuleTokenCost:
		return "B3: token_cost == ceil(utf8_byte_len(content)/4), exact, no tolerance"
	case RuleShape:
		return "ContextFrame (the wire type): score is an f32 and token_cost a u32, both required"
	}
	return ""
}

// rulesClause is the clause of a frame-rules case: the rules it breaks or,
// for a valid frame, the rules its note names as the boundary it pins.
func rulesClause(rules []string, note string) string {
	if len(rules) == 0 {
		for _, r := range Rules {
			if r != RuleShape && strings.Contains(note, r) {
				rules = append(rules, r)
			}
		}
	}
	var parts []string
	for _, r := range rules {
		if c := ruleClause(r); c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return clauseValidFrame
	}
	return "CGP SPEC " + strings.Join(parts, "; ")
}

// strictVerifier is the level and clause of a check that a verifier
// refuses a small-order or non-canonical Ed25519 key.
func strictVerifier(c check.Check) check.Check {
	c.Level, c.Clause = check.Should, clauseStrictVerifier
	return c
}
