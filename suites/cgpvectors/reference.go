package cgpvectors

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
)

// Mode is a deliberately broken variant of the built-in adapter, each one a
// mistake an implementation of the digest profile could plausibly make.
// Every check of the suite fails under at least one mode.
type Mode struct {
	Name string
	Doc  string

	writer   *mutant.Writer // canonical text written this way instead
	opts     cgp.Options    // strict parse and normalisation variations
	hashText bool           // digest hashes the value's source-order text, not its RFC 8785 text
	frame    frameRule      // how checkFrame applies the frame rules
	record   recordRule     // how recordHash builds the preimage
	attest   attestRule     // how record attestations are signed and verified
	ranges   rangeRule      // how rangeDigest reads a line range
	prov     provRules      // how provenance attestations are computed and verified
	envelope envelopeRule   // how roundTripEnvelope writes an envelope
}

type rangeRule uint8

const (
	rangeF17                 rangeRule = iota // the grammar as specified
	rangeLenientNumbers                       // numbers parsed leniently: L01 and L+1 accepted
	rangeWholeFallback                        // an unrecognised range digests the whole resource
	rangeCRLines                              // CR and CRLF end lines too
	rangeNoClamp                              // an end past the last line is start_past_end
	rangeZeroBased                            // L1 is the second line
	rangeStripLF                              // lines joined without the range's final LF
	rangeNoRangeUnverifiable                  // an absent range is unrecognised, not the whole resource
	rangeSliceEmpty                           // inverted or past-the-end ranges give no bytes, digested
	rangeCRLFTranslated                       // a resource whose lines all end in CRLF read with LF line ends
)

type attestRule uint8

const (
	attestRight          attestRule = iota // domain-tagged, commitment then signature
	attestBareDigest                       // signs and verifies the bare 32-byte digest
	attestSignatureFirst                   // verifies the signature before the commitment
	attestNoCommitment                     // never compares signed_record_hash (signed_commitment) with the record's hash (the expected commitment)
	attestNoSignature                      // compares the commitment only, for both kinds of attestation
	attestIgnoreKey                        // verifies under the published test key, whatever key it is given
)

type recordRule uint8

const (
	recordRemove      recordRule = iota // the top-level record_hash removed
	recordKeepHash                      // record_hash left in the preimage
	recordBlankHash                     // record_hash blanked to "" rather than removed
	recordDropForeign                   // namespaced members (with a ':') dropped, as a typed struct would
)

// Modes lists the built-in adapter's broken modes.
var Modes = []Mode{
	{Name: "codepoint-order", Doc: "sorts keys by code point (UTF-8 bytes), not by UTF-16 code units", writer: &mutant.Writer{Keys: mutant.CodePoint}},
	{Name: "go-float", Doc: "formats numbers with Go's strconv 'g' (1e+21 as 1e+21 but 1e-07, 1e+06)", writer: &mutant.Writer{Numbers: mutant.GoFloat}},
	{Name: "unsorted", Doc: "writes members in their source order, as plain serde_json does", writer: &mutant.Writer{Keys: mutant.Unsorted}},
	{Name: "null-optionals", Doc: "materialises absent optional scalars (uri, valid_from, valid_to, recorded_at, embedding, embedding.vector; query_text, embedding, as_of) as null", opts: cgp.Options{NullOptionals: true}},
	{Name: "no-empty-arrays", Doc: "leaves absent arrays absent and drops empty ones, as the wire serializer's skip-if-empty does, instead of materialising []", opts: cgp.Options{DropEmpty: true}},
	{Name: "sorted-arrays", Doc: "sorts provenance, relations, embedding.vector, kinds and anchors instead of keeping their order", opts: cgp.Options{SortArrays: true}},
	{Name: "lenient", Doc: "accepts unknown members, as the general protocol types do", opts: cgp.Options{Lenient: true}},
	{Name: "path-without-index", Doc: "names unknown fields in arrays without the index: frame.provenance.future_field", opts: cgp.Options{NoIndex: true}},
	{Name: "hash-source-text", Doc: "hashes the value's compact source-order text instead of its RFC 8785 text", hashText: true},
	{Name: "citation-absence-only", Doc: "checks only that citation_label is present; a blank one is accepted", frame: citationAbsenceOnly},
	{Name: "citation-optional", Doc: "treats citation_label as optional: blank is rejected, absent is accepted", frame: citationOptional},
	{Name: "ascii-trim", Doc: "trims only ASCII whitespace before every blank test (title, citation_label, display_name, target_uri), so a lone U+00A0 passes", frame: asciiTrim},
	{Name: "camel-case-citation", Doc: "looks for citationLabel instead of citation_label, so every frame lacks one", frame: citationCamelCase},
	{Name: "score-exclusive-bounds", Doc: "requires 0 < score < 1, refusing a score of exactly 0 or 1", frame: scoreExclusive},
	{Name: "score-clamped", Doc: "clamps the score into [0,1] before checking it, so F1 never fires", frame: scoreClamped},
	{Name: "lenient-timestamps", Doc: "checks a timestamp's grammar only, not its calendar: 2026-02-29, April 31 and hour 24 pass", frame: timeLenient},
	{Name: "offset-timestamps", Doc: "reads timestamps as RFC 3339 allows them: any offset (+00:00), lowercase t and z", frame: timeOffsets},
	{Name: "no-leap-second", Doc: "refuses second 60, as Go's time.Parse and JavaScript's Date do", frame: timeNoLeapSecond},
	{Name: "no-leap-days", Doc: "gives February 28 days in every year", frame: timeNoLeapDays},
	{Name: "julian-leap-years", Doc: "makes every fourth year a leap year, 2100 included", frame: timeJulian},
	{Name: "expires-at-unchecked", Doc: "applies F4 to the frame's own timestamps only, not to content_ref.expires_at", frame: timeNoExpiresAt},
	{Name: "window-inclusive", Doc: "accepts a validity window whose valid_to equals its valid_from", frame: windowInclusive},
	{Name: "window-string-compare", Doc: "compares valid_from and valid_to as strings, so 00:00:00.5Z sorts before 00:00:00Z", frame: windowStrings},
	{Name: "representation-names-only", Doc: "checks that representation is full, compact or reference, never the members each requires or forbids (P1-P3)", frame: representationNamesOnly},
	{Name: "open-representations", Doc: "reads an unknown representation as full, as a forward-compatible reader might", frame: representationOpen},
	{Name: "reference-may-cost", Doc: "lets a reference frame's token_cost be the cost of the content it references: neither P4 nor B3 applies to it", frame: referenceMayCost},
	{Name: "empty-content-absent", Doc: "takes content \"\" for no content, as a truthiness test does", frame: emptyContentAbsent},
	{Name: "digest-any-case", Doc: "accepts uppercase hex in content_digest, canonical_content_hash and file link digests", frame: digestAnyCase},
	{Name: "content-digest-unverified", Doc: "checks content_digest's grammar but never that it is the SHA-256 of the content", frame: digestUnverified},
	{Name: "file-digest-optional", Doc: "checks a file link's digest only when it has one", frame: fileDigestOptional},
	{Name: "display-name-optional", Doc: "checks a relation's display_name only when it has one", frame: displayNameOptional},
	{Name: "attestation-ignored", Doc: "ignores an attestation member in a frame, as unknown members are ignored", frame: attestationIgnored},
	{Name: "utf16-token-cost", Doc: "counts B3's token cost in UTF-16 code units (JavaScript's String length), not UTF-8 bytes", frame: costUTF16},
	{Name: "codepoint-token-cost", Doc: "counts B3's token cost in code points (Python's len), not UTF-8 bytes", frame: costCodePoints},
	{Name: "token-cost-floor", Doc: "rounds B3's token cost down: floor(bytes / 4)", frame: costFloor},
	{Name: "loose-numbers", Doc: "reads score and token_cost as JavaScript's Number() and a truncating integer read do: \"0.5\" is 0.5, 12.5 is 12", frame: looseNumbers},
	{Name: "js-trim", Doc: "tests blank as String.prototype.trim does: U+FEFF is whitespace, U+0085 is not", frame: jsTrim},
	{Name: "python-strip", Doc: "tests blank as Python's str.strip() does: U+001C to U+001F are whitespace", frame: pythonSpace},
	{Name: "java-whitespace", Doc: "tests blank with Java's Character.isWhitespace: no-break spaces (U+00A0, U+2007, U+202F) and U+0085 are not whitespace, U+001C to U+001F are", frame: javaSpace},
	{Name: "f64-score", Doc: "applies F1 to the score read as a double, not as the f32 it is: 1.00000005 is out of range", frame: scoreF64},
	{Name: "leap-second-next-minute", Doc: "reads second 60 as the first second of the next minute, as time.Date normalises it, so 23:59:60.5 falls after the next midnight", frame: timeLeapNextMinute},
	{Name: "zero-value-members", Doc: "reads a missing or null required member (title, a relation's target_uri, a link's type) as its zero value, as Go's encoding/json does, where serde refuses the frame", frame: zeroValueMembers},
	{Name: "score-f32-truncated", Doc: "narrows the score to an f32 toward zero, as a conversion that drops the double's low bits does, not to the nearest f32: 1.0000001 (the f32 above 1) reads as 1 and -1e-45 as -0, so F1 passes them", frame: scoreTruncated},
	{Name: "first-violation-only", Doc: "answers only the first violation it finds", frame: firstViolationOnly},
	{Name: "record-hash-kept", Doc: "hashes the lifecycle record with its record_hash member still in it", record: recordKeepHash},
	{Name: "record-hash-blanked", Doc: "blanks record_hash to \"\" before hashing instead of removing it", record: recordBlankHash},
	{Name: "drop-extensions", Doc: "drops namespaced members it does not model (acme:relay) before hashing a record, as a typed re-serialisation would", record: recordDropForeign},
	{Name: "attest-bare-digest", Doc: "signs and verifies record attestations over the bare digest, without the domain tag", attest: attestBareDigest},
	{Name: "signature-first", Doc: "verifies an attestation's signature before comparing its commitment (signed_record_hash with the record, signed_commitment with the expected one)", attest: attestSignatureFirst},
	{Name: "no-commitment", Doc: "verifies an attestation's signature but never compares its commitment (signed_record_hash with the record, signed_commitment with the expected one)", attest: attestNoCommitment},
	{Name: "no-signature", Doc: "compares a record or provenance attestation's commitment but never verifies its signature", attest: attestNoSignature},
	{Name: "ignore-key", Doc: "verifies attestations under the published test key, whatever public_key it is given", attest: attestIgnoreKey},
	{Name: "range-lenient-numbers", Doc: "parses line numbers leniently, accepting L01 and L+1, as the older verify.rs did", ranges: rangeLenientNumbers},
	{Name: "range-whole-fallback", Doc: "digests the whole resource when a range is not in the grammar", ranges: rangeWholeFallback},
	{Name: "range-cr-lines", Doc: "ends lines at CR and CRLF too, not at LF only", ranges: rangeCRLines},
	{Name: "range-no-clamp", Doc: "refuses an end past the last line instead of clamping it", ranges: rangeNoClamp},
	{Name: "range-zero-based", Doc: "counts lines from 0, so L1 is the second line", ranges: rangeZeroBased},
	{Name: "range-strip-lf", Doc: "drops the LF that ends the range's last line, as lines().join(\"\\n\") does", ranges: rangeStripLF},
	{Name: "no-range-unverifiable", Doc: "treats an absent range as unrecognised instead of the whole resource", ranges: rangeNoRangeUnverifiable},
	{Name: "range-crlf-translated", Doc: "reads a resource whose lines all end in CRLF with LF line ends, as text mode and universal newlines (Python's open) do", ranges: rangeCRLFTranslated},
	{Name: "range-slice-empty", Doc: "digests the empty bytes for an inverted or past-the-end range, as slice semantics give", ranges: rangeSliceEmpty},
	{Name: "utf16-link-lengths", Doc: "counts the length prefixes of the attestation encoding in UTF-16 code units (JavaScript's String length), not UTF-8 bytes", prov: provRules{link: linkUTF16}},
	{Name: "codepoint-link-lengths", Doc: "counts the length prefixes of the attestation encoding in code points (Python's len), not UTF-8 bytes", prov: provRules{link: linkCodePoints}},
	{Name: "empty-as-absent", Doc: "encodes a link member that is \"\" as absent (00), as a truthiness test does", prov: provRules{link: linkEmptyAsAbsent}},
	{Name: "absent-as-empty", Doc: "encodes an absent link member as \"\" (01 00000000), as plain string fields do", prov: provRules{link: linkAbsentAsEmpty}},
	{Name: "chain-folded-reverse", Doc: "folds the provenance chain from its last link to its first", prov: provRules{chain: chainReverse}},
	{Name: "chain-zero-genesis", Doc: "folds the provenance chain from 32 zero bytes instead of the genesis hash", prov: provRules{chain: chainZeroGenesis}},
	{Name: "commitment-without-digest-flag", Doc: "writes content_digest into the frame commitment without its presence byte (nothing when absent)", prov: provRules{commit: commitNoDigestFlag}},
	{Name: "commitment-binds-content", Doc: "binds the frame's content into its commitment too", prov: provRules{commit: commitBindsContent}},
	{Name: "merkle-duplicate-last", Doc: "pads odd levels of the Merkle tree with their last node (Bitcoin's shortcut) instead of splitting at the largest power of two", prov: provRules{merkle: merkleDupLast}},
	{Name: "merkle-no-prefix", Doc: "hashes Merkle leaves and nodes without the 00 and 01 prefixes", prov: provRules{merkle: merkleNoPrefix}},
	{Name: "merkle-split-half", Doc: "splits a Merkle tree of n leaves at ceil(n/2) instead of the largest power of two below n (5 and 9 leaves tell them apart; 3 and 7 do not)", prov: provRules{merkle: merkleSplitHalf}},
	{Name: "merkle-rfc6962-empty", Doc: "gives the empty tree RFC 6962's root, SHA-256 of nothing, instead of the merkle-empty tag's hash", prov: provRules{merkle: merkleRFCEmpty}},
	{Name: "result-arrival-order", Doc: "takes a result's root over its frames in arrival order, not canonical FrameId order", prov: provRules{order: orderArrival}},
	{Name: "utf16-frame-order", Doc: "orders frame ids by UTF-16 code units (JavaScript's <), not UTF-8 bytes", prov: provRules{order: orderUTF16}},
	{Name: "proof-root-first", Doc: "lists an inclusion proof's path from the root down instead of from the leaf up", prov: provRules{proof: proofRootFirst}},
	{Name: "proof-ignores-sides", Doc: "replays an inclusion proof with the sides leaf_index implies, ignoring sibling_is_left", prov: provRules{proof: proofIgnoreSides}},
	{Name: "proof-follows-flags", Doc: "replays an inclusion proof by sibling_is_left alone, never checking it against leaf_index and leaf_count", prov: provRules{proof: proofFollowFlags}},
	{Name: "signs-prefixed", Doc: "signs and verifies provenance attestations over the frame domain tag and the 32 bytes, not the bare 32 bytes", prov: provRules{verdict: verdictSigned}},
	{Name: "lenient-ed25519", Doc: "accepts small-order and non-canonical public keys and R, as crypto/ed25519 and OpenSSL do", prov: provRules{verdict: verdictLenient}},
	{Name: "listed-small-order", Doc: "refuses the eight small-order encodings and y ≥ p by list, so x = 0 with the sign bit set, which crypto/ed25519 reads as a small-order point, and a y off the curve pass the key check", prov: provRules{verdict: verdictListed}},
	{Name: "reduce-y", Doc: "reduces y mod p before refusing small-order keys, so a non-canonical encoding of a point of large order is a valid key", prov: provRules{verdict: verdictReduceY}},
	{Name: "no-r-check", Doc: "refuses weak keys but never checks the signature's R: a small-order R (the identity, with S = k·a) gets through to the group equation, which it satisfies", prov: provRules{verdict: verdictNoRCheck}},
	{Name: "s-unreduced", Doc: "reduces S mod L instead of refusing S ≥ L, as early Ed25519 code did: a valid signature with L added to S verifies (malleable signatures)", prov: provRules{verdict: verdictUnreducedS}},
	{Name: "prime-order-keys", Doc: "refuses a key with a small-order component (A + T, a mixed-order key) as malformed, as a check that [L]A is the identity does: such a key is neither small-order nor non-canonical, and a signature under it verifies", prov: provRules{verdict: verdictPrimeOrder}},
	{Name: "coarse-verdicts", Doc: "answers only Valid, CommitmentMismatch and BadSignature: a malformed key, signature or algorithm is BadSignature, a malformed commitment a mismatch", prov: provRules{verdict: verdictCoarse}},
	{Name: "drop-dot-zero", Doc: "writes an integral f32 as 1, not 1.0, as encoding/json and JSON.stringify do", envelope: envelopeDropDotZero},
	{Name: "sort-members", Doc: "writes an envelope's members sorted by name instead of in the types' declaration order", envelope: envelopeSortMembers},
	{Name: "f32-as-f64", Doc: "widens an f32 to f64 before writing it: 0.1 as 0.10000000149011612", envelope: envelopeF32AsF64},
	{Name: "null-absent", Doc: "writes an envelope's absent optional members as null, as a flattened envelope without skip-if-none does", envelope: envelopeNullAbsent},
	{Name: "generic-json", Doc: "re-serialises an envelope as generic JSON: source member order, number spellings and unknown members kept", envelope: envelopeGenericJSON},
}

// Handler is the built-in adapter: protocols/cgp, honest or in one of the
// broken Modes.
type Handler struct{ mode *Mode }

// Reference returns the built-in adapter in mode ("" for the honest one).
func Reference(mode string) (*Handler, error) {
	if mode == "" {
		return &Handler{mode: &Mode{}}, nil
	}
	m, err := check.FindMode(Name, Modes, func(m *Mode) string { return m.Name }, mode)
	if err != nil {
		return nil, err
	}
	return &Handler{mode: m}, nil
}

// textKey returns the argument of op that also travels as text: the _text
// form, when sent, is read in place of the value.
func textKey(op string) (string, bool) {
	switch op {
	case OpNormalizeFrame, OpCheckFrame:
		return "frame", true
	case OpNormalizeQuery:
		return "query", true
	}
	return "", false
}

// Hello describes the built-in adapter.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-cgp-vectors"
	if h.mode.Name != "" {
		name += "+" + h.mode.Name
	}
	return adapter.Hello{Name: name, Version: Version, Ops: []string{OpNormalizeFrame, OpNormalizeQuery, OpCanonicalize, OpDigest, OpCheckFrame, OpRecordHash, OpSignRecordAttestation, OpVerifyRecordAttestation, OpRangeDigest,
		OpEncodeLink, OpChainHead, OpFrameCommitment, OpMerkleRoot, OpResultRoot, OpInclusionProof, OpVerifyInclusion, OpSignCommitment, OpVerifyAttestation, OpRoundTripEnvelope}, Concurrency: 8}
}

func badArgs(msg string) *adapter.Error { return &adapter.Error{Code: "bad_args", Message: msg} }

// Handle performs one op.
func (h *Handler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	a, err := canon.Parse(args, canon.ReadOptions{})
	if err != nil || a.Kind != canon.Object {
		return nil, badArgs("args must be a JSON object")
	}
	if out, aerr, ok := h.handleProvenance(op, a); ok {
		return out, aerr
	}
	if op == OpRoundTripEnvelope {
		return h.roundTripEnvelope(a)
	}
	arg := a.Lookup
	if key, ok := textKey(op); ok {
		if t, has := a.Lookup(key + "_text"); has && t.Kind == canon.String {
			// The exact text: member order, lexemes and duplicates as sent.
			v, err := canon.Parse([]byte(t.Str), canon.ReadOptions{})
			if err != nil {
				if op == OpCheckFrame {
					return frameReply([]cgp.Violation{{Rule: RuleShape, Msg: "the frame is not one JSON text: " + err.Error()}}), nil
				}
				return nil, &adapter.Error{Code: cgp.CodeInvalidJSON, Message: err.Error()}
			}
			arg = func(name string) (canon.Value, bool) {
				if name == key {
					return v, true
				}
				return a.Lookup(name)
			}
		}
	}
	switch op {
	case OpNormalizeFrame, OpNormalizeQuery:
		key, norm := "frame", cgp.NormalizeFrameWith
		if op == OpNormalizeQuery {
			key, norm = "query", cgp.NormalizeQueryWith
		}
		v, ok := arg(key)
		if !ok {
			return nil, badArgs("args." + key + " is missing")
		}
		n, err := norm(v, h.mode.opts)
		if err != nil {
			return nil, toError(err)
		}
		return json.RawMessage(n.String()), nil
	case OpCanonicalize, OpDigest:
		v, ok := arg("value")
		if t, has := arg("value_text"); has && op == OpCanonicalize {
			if ok || t.Kind != canon.String {
				return nil, badArgs("args needs exactly one of value and value_text (a string)")
			}
			if v, err = canon.Parse([]byte(t.Str), canon.ReadOptions{}); err != nil {
				return nil, &adapter.Error{Code: cgp.CodeInvalidJSON, Message: err.Error()}
			}
		} else if !ok {
			return nil, badArgs("args.value is missing")
		}
		text, err := h.canonical(v)
		if err != nil {
			return nil, &adapter.Error{Code: "not_canonicalizable", Message: err.Error()}
		}
		if op == OpCanonicalize {
			return marshalString(string(text))
		}
		if h.mode.hashText {
			text = []byte(v.String())
		}
		return marshalString(cgp.DigestOf(text))
	case OpRecordHash:
		v, ok := arg("record")
		if !ok {
			return nil, badArgs("args.record is missing")
		}
		if v.Kind != canon.Object {
			return nil, badArgs("args.record is not an object")
		}
		text, err := h.canonical(h.preimage(v))
		if err != nil {
			return nil, &adapter.Error{Code: "not_canonicalizable", Message: err.Error()}
		}
		return marshalString(cgp.DigestOf(text))
	case OpSignRecordAttestation:
		seed, okS := arg("seed")
		hash, okH := arg("signed_record_hash")
		if !okS || !okH || seed.Kind != canon.String || hash.Kind != canon.String {
			return nil, badArgs("args needs seed and signed_record_hash, strings")
		}
		sd, err := hex.DecodeString(seed.Str)
		if err != nil {
			return nil, badArgs("args.seed is not hex")
		}
		sig, err := h.signAttestation(sd, hash.Str)
		if err != nil {
			return nil, badArgs(err.Error())
		}
		return marshalString(sig)
	case OpVerifyRecordAttestation:
		rec, okR := arg("record")
		att, okA := arg("attestation")
		pub, okP := arg("public_key")
		if !okR || !okA || !okP || pub.Kind != canon.String {
			return nil, badArgs("args needs record, attestation and public_key (hex)")
		}
		key, err := hex.DecodeString(pub.Str)
		if err != nil {
			return nil, badArgs("args.public_key is not hex")
		}
		if err := h.verifyAttestation(rec, att, key); err != nil {
			var ae *cgp.AttestationError
			if !errors.As(err, &ae) {
				return nil, &adapter.Error{Code: "internal", Message: err.Error()}
			}
			out, _ := json.Marshal(map[string]any{"valid": false, "reason": ae.Reason, "message": ae.Detail})
			return out, nil
		}
		return json.RawMessage(`{"valid":true}`), nil
	case OpRangeDigest:
		res, ok := arg("resource")
		if !ok || res.Kind != canon.String {
			return nil, badArgs("args.resource must be a string")
		}
		r, has := arg("range")
		if has && r.Kind != canon.String {
			return nil, badArgs("args.range must be a string")
		}
		b, err := h.rangeBytes([]byte(res.Str), r.Str, has)
		return rangeReply(b, err), nil
	case OpCheckFrame:
		v, ok := arg("frame")
		if !ok {
			return nil, badArgs("args.frame is missing")
		}
		return frameReply(h.checkFrame(v)), nil
	}
	return nil, &adapter.Error{Code: "unknown_op", Message: op}
}

func marshalString(s string) (json.RawMessage, *adapter.Error) {
	out, err := canon.JSONStringify.Marshal(s)
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return out, nil
}

// toError renders a strict-parse error as {"code", "path", "message"}.
func toError(err error) *adapter.Error {
	var ce *cgp.Error
	if !errors.As(err, &ce) {
		return &adapter.Error{Message: err.Error()}
	}
	str := func(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }
	return &adapter.Error{Code: ce.Code, Message: ce.Error(), Members: []canon.Member{
		{Key: "code", Value: str(ce.Code)},
		{Key: "path", Value: str(ce.Path)},
		{Key: "message", Value: str(ce.Error())},
	}}
}

func (h *Handler) canonical(v canon.Value) ([]byte, error) {
	if h.mode.writer != nil {
		return h.mode.writer.Append(nil, v)
	}
	return cgp.Canonical(v)
}

// preimage is the record recordHash canonicalises: without its top-level
// record_hash, or as the mode gets that wrong.
func (h *Handler) preimage(rec canon.Value) canon.Value {
	out := canon.Value{Kind: canon.Object}
	for _, m := range rec.Members {
		switch {
		case m.Key == cgp.RecordHashMember && h.mode.record == recordRemove:
			continue
		case m.Key == cgp.RecordHashMember && h.mode.record == recordBlankHash:
			m.Value = canon.Value{Kind: canon.String}
		case strings.Contains(m.Key, ":") && h.mode.record == recordDropForeign:
			continue
		case m.Key == cgp.RecordHashMember && h.mode.record == recordDropForeign:
			continue
		}
		out.Members = append(out.Members, m)
	}
	return out
}

// publishedSeed is the seed of upstream's published record attestation test key.
var publishedSeed = []byte("contextgraph-lifecycle-test-key!")

func (h *Handler) signAttestation(seed []byte, hash string) (string, error) {
	if h.mode.attest != attestBareDigest {
		return cgp.SignRecordAttestation(seed, hash)
	}
	msg, err := cgp.RecordAttestationMessage(hash)
	if err != nil || len(seed) != ed25519.SeedSize {
		return "", fmt.Errorf("cannot sign %q", hash)
	}
	return hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg[len(cgp.RecordAttestationDomain):])), nil
}

// verifyAttestation is cgp.VerifyRecordAttestation, or the mode's mistake.
func (h *Handler) verifyAttestation(rec, att canon.Value, key []byte) error {
	if h.mode.attest == attestRight {
		return cgp.VerifyRecordAttestation(rec, att, key)
	}
	if h.mode.attest == attestIgnoreKey {
		return cgp.VerifyRecordAttestation(rec, att, ed25519.NewKeyFromSeed(publishedSeed).Public().(ed25519.PublicKey))
	}
	signed, _ := att.Lookup("signed_record_hash")
	sigText, _ := att.Lookup("signature")
	want, err := cgp.RecordHash(rec)
	if err != nil {
		return &cgp.AttestationError{Reason: cgp.ReasonMalformed, Detail: err.Error()}
	}
	commitment := func() error {
		if h.mode.attest == attestNoCommitment || signed.Str == want {
			return nil
		}
		return &cgp.AttestationError{Reason: cgp.ReasonCommitmentMismatch, Detail: "signed_record_hash is not the record's hash"}
	}
	signature := func() error {
		if h.mode.attest == attestNoSignature {
			return nil
		}
		msg, err := cgp.RecordAttestationMessage(signed.Str)
		sig, herr := hex.DecodeString(sigText.Str)
		if err == nil && herr == nil && len(key) == ed25519.PublicKeySize && len(sig) == ed25519.SignatureSize {
			if h.mode.attest == attestBareDigest {
				msg = msg[len(cgp.RecordAttestationDomain):]
			}
			if ed25519.Verify(key, msg, sig) {
				return nil
			}
		}
		return &cgp.AttestationError{Reason: cgp.ReasonSignatureInvalid, Detail: "the signature does not verify"}
	}
	steps := []func() error{commitment, signature}
	if h.mode.attest == attestSignatureFirst {
		steps = []func() error{signature, commitment}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// rangeBytes is cgp.RangeBytes, or the mode's mistake.
func (h *Handler) rangeBytes(resource []byte, r string, has bool) ([]byte, error) {
	switch h.mode.ranges {
	case rangeCRLFTranslated:
		if n := bytes.Count(resource, []byte("\n")); n > 0 && bytes.Count(resource, []byte("\r\n")) == n {
			resource = bytes.ReplaceAll(resource, []byte("\r\n"), []byte("\n"))
		}
	case rangeLenientNumbers:
		if has {
			r = lenientRange(r)
		}
	case rangeWholeFallback:
		b, err := cgp.RangeBytes(resource, r, has)
		var re *cgp.RangeError
		if errors.As(err, &re) && re.Reason == cgp.RangeUnrecognised {
			return resource, nil
		}
		return b, err
	case rangeCRLines:
		// Make every CR and CRLF an LF for the line count, then cut the
		// original bytes at the same line ends.
		b, err := cgp.RangeBytes([]byte(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(resource))), r, has)
		if err != nil || !has {
			return b, err
		}
		return crLines(resource, r)
	case rangeZeroBased:
		if start, end, err := cgp.ParseLineRange(r); has && err == nil {
			next := func(n *big.Int) string { return new(big.Int).Add(n, big.NewInt(1)).String() }
			r = "L" + next(start)
			if end != nil {
				r += "-" + next(end)
			}
		}
	case rangeStripLF:
		b, err := cgp.RangeBytes(resource, r, has)
		if has && err == nil {
			b = bytes.TrimSuffix(b, []byte("\n"))
		}
		return b, err
	case rangeNoRangeUnverifiable:
		if !has {
			return nil, &cgp.RangeError{Reason: cgp.RangeUnrecognised}
		}
	case rangeSliceEmpty:
		b, err := cgp.RangeBytes(resource, r, has)
		var re *cgp.RangeError
		if errors.As(err, &re) && re.Reason != cgp.RangeUnrecognised {
			return []byte{}, nil
		}
		return b, err
	case rangeNoClamp:
		if has {
			if start, end, err := cgp.ParseLineRange(r); err == nil && end != nil && end.Cmp(start) >= 0 && end.Cmp(big.NewInt(int64(len(cgp.Lines(resource))))) > 0 {
				return nil, &cgp.RangeError{Reason: cgp.RangeStartPastEnd, Range: r}
			}
		}
	}
	return cgp.RangeBytes(resource, r, has)
}

// lenientRange rewrites L01 or L+1 style numbers the way a general integer
// parser reads them.
func lenientRange(r string) string {
	rest, ok := strings.CutPrefix(r, "L")
	if !ok {
		return r
	}
	parts := strings.SplitN(rest, "-", 2)
	for i, p := range parts {
		p = strings.TrimPrefix(p, "+")
		trimmed := strings.TrimLeft(p, "0")
		if trimmed == "" && p != "" {
			trimmed = "0"
		}
		parts[i] = trimmed
	}
	return "L" + strings.Join(parts, "-")
}

// crLines is the range over lines ended by LF, CRLF or CR.
func crLines(resource []byte, r string) ([]byte, error) {
	var lines [][]byte
	for len(resource) > 0 {
		i := bytes.IndexAny(resource, "\r\n")
		if i < 0 {
			lines = append(lines, resource)
			break
		}
		n := i + 1
		if resource[i] == '\r' && n < len(resource) && resource[n] == '\n' {
			n++
		}
		lines = append(lines, resource[:n])
		resource = resource[n:]
	}
	start, end, _ := cgp.ParseLineRange(r)
	if end == nil {
		end = start
	}
	last := int64(len(lines))
	if end.Cmp(big.NewInt(last)) > 0 {
		end = big.NewInt(last)
	}
	return bytes.Join(lines[start.Int64()-1:end.Int64()], nil), nil
}
