package cgpvectors

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/jsongen"
	"github.com/refereehq/referee/protocols/cgp"
)

// fuzzSpec fuzzes the ops whose answer is a pure function of their input:
// the digest profile (canonicalize, digest, normalizeFrame, normalizeQuery),
// the line ranges, the provenance attestation encodings, roots and proofs,
// record hashes and the deterministic Ed25519 signatures. Each input becomes
// a case of a corpus of found vectors (found.go) with the reference's
// answer, and is judged by the checks that case makes when it is replayed.
// checkFrame, the verifiers' verdicts and roundTripEnvelope are not fuzzed.
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{
		{
			Name:     "canonical",
			Doc:      "JSON values for canonicalize (as text) and digest: numbers at ECMAScript's formatting boundaries and f32 scores written as f32 and as f64, strings of every whitespace class, names that order differently by UTF-16 units and code points; a normalization-vectors.json vector",
			Needs:    []string{OpCanonicalize, OpDigest},
			Input:    check.FuzzValue,
			Weight:   3,
			Generate: func(r *rand.Rand) []byte { return fuzzJSON.Value(r) },
			Vector:   canonicalVector,
		},
		{
			Name:     "frame",
			Doc:      "ContextFrames for normalizeFrame, then canonicalize and digest: members absent, empty and out of order, provenance and relations in any order, f32 scores, Unicode text with CRLF, unknown members at every level (content_digest too); a context-frame.valid.json digest case, or a strict-validation.invalid.json case",
			Needs:    []string{OpNormalizeFrame, OpCanonicalize, OpDigest},
			Input:    check.FuzzValue,
			Weight:   3,
			Generate: func(r *rand.Rand) []byte { return genFrame(r).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return normalizeVector("frame", name, input) },
		},
		{
			Name:     "query",
			Doc:      "ContextQueries for normalizeQuery, then canonicalize and digest: kinds and anchors absent, empty or unsorted, f32 embeddings, unknown members (representation_preferences too); a context-query.valid.json digest case, or a strict case",
			Needs:    []string{OpNormalizeQuery, OpCanonicalize, OpDigest},
			Input:    check.FuzzValue,
			Weight:   1,
			Generate: func(r *rand.Rand) []byte { return genQuery(r).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return normalizeVector("query", name, input) },
		},
		{
			Name:     "check-frame",
			Doc:      "ContextFrames for checkFrame, valid and pushed to one or two rules' boundaries: f32 scores either side of 0, 1 and the f32s around them, timestamps at the edges of F4's grammar and the calendar, windows empty or inverted by a fraction or a leap second, blank and not-blank strings of every whitespace class, token costs of content 1 to 4 UTF-8 bytes a character, digests in and out of D1's grammar, representations and their members, required members missing or null, members of the wrong type; a frame-rules.json case",
			Needs:    []string{OpCheckFrame},
			Input:    check.FuzzValue,
			Weight:   5,
			Generate: func(r *rand.Rand) []byte { return genCheckFrame(r).Encode() },
			Vector:   checkFrameVector,
		},
		{
			Name:     "verify",
			Doc:      "attestations for verifyAttestation: real signatures by generated seeds, then keys of small order, with x = 0 and the sign bit, with y ≥ p, off the curve, of mixed order (with a signature that verifies under it), another key; R the identity with S = k·a, R with y ≥ p; S + L and beyond 2^253; tampered signatures; commitments that do not match or are malformed; other algorithms; keys and signatures in uppercase or of the wrong length; an op-cases.json case with the reference's verdict",
			Needs:    []string{OpVerifyAttestation},
			Input:    check.FuzzValue,
			Weight:   3,
			Generate: func(r *rand.Rand) []byte { return genVerify(r).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return verifyVector(OpVerifyAttestation, name, input) },
		},
		{
			Name:     "verify-record",
			Doc:      "record attestations for verifyRecordAttestation: records and their hash signed, another record's hash, the bare digest signed, the keys, R and S of the verify target, the identity key with its forgery, uppercase hashes, other algorithms, members missing; an op-cases.json case with the reference's answer",
			Needs:    []string{OpVerifyRecordAttestation},
			Input:    check.FuzzValue,
			Weight:   2,
			Generate: func(r *rand.Rand) []byte { return genVerifyRecord(r).Encode() },
			Vector: func(name string, input []byte) (any, bool) {
				return verifyVector(OpVerifyRecordAttestation, name, input)
			},
		},
		{
			Name:     "envelope",
			Doc:      "envelope lines for roundTripEnvelope, from upstream's reference envelopes: every float in another spelling of the same f32 (1.0 as 1, 1e0, 10e-1, 1.00) or another f32 at the edges of serde's f32 text (1e-6, 1e-7, 1e13, 16777217, the largest and smallest f32s, -0), integers at the edges of u32, members reordered, unknown members, optional members null, spaces and tabs; an op-cases.json case with the reference's re-serialisation",
			Needs:    []string{OpRoundTripEnvelope},
			Input:    check.FuzzText,
			Weight:   2,
			Generate: genEnvelope,
			Vector:   envelopeVector,
		},
		{
			Name:     "range",
			Doc:      "resources with LF, CRLF and bare CR line ends, with and without a final line end, and line ranges in and out of the grammar (leading zeros, signs, L0, inverted, past the end, huge): a range-vectors.json case",
			Needs:    []string{OpRangeDigest},
			Input:    check.FuzzValue,
			Weight:   3,
			Generate: func(r *rand.Rand) []byte { return genRange(r).Encode() },
			Vector:   rangeVector,
		},
		{
			Name:     "link",
			Doc:      "provenance links for encodeLink: members absent, null, empty and non-ASCII (lengths in UTF-8 bytes, UTF-16 units and code points differ)",
			Needs:    []string{OpEncodeLink},
			Input:    check.FuzzValue,
			Weight:   2,
			Generate: func(r *rand.Rand) []byte { return jsongen.Obj("link", genLink(r)).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return opVector(OpEncodeLink, name, input) },
		},
		{
			Name:     "chain",
			Doc:      "provenance chains for chainHead: none to five links",
			Needs:    []string{OpChainHead},
			Input:    check.FuzzValue,
			Weight:   1,
			Generate: func(r *rand.Rand) []byte { return jsongen.Obj("links", genLinks(r, 5)).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return opVector(OpChainHead, name, input) },
		},
		{
			Name:   "commitment",
			Doc:    "frames for frameCommitment: with and without content_digest, with content and other members that must not enter the commitment",
			Needs:  []string{OpFrameCommitment},
			Input:  check.FuzzValue,
			Weight: 1,
			Generate: func(r *rand.Rand) []byte {
				return jsongen.Obj("provider_id", genID(r), "frame", genProvFrame(r, true)).Encode()
			},
			Vector: func(name string, input []byte) (any, bool) {
				return opVector(OpFrameCommitment, name, input)
			},
		},
		{
			Name:     "merkle",
			Doc:      "leaf counts around powers of two (0 to 33) for merkleRoot, inclusionProof of a leaf, and verifyInclusion of its proof, of the proof with one side flipped and of the proof claiming another leaf",
			Needs:    []string{OpMerkleRoot, OpInclusionProof, OpVerifyInclusion},
			Input:    check.FuzzValue,
			Weight:   2,
			Generate: func(r *rand.Rand) []byte { return genMerkle(r).Encode() },
			Vector:   merkleVector,
		},
		{
			Name:     "result-root",
			Doc:      "frames for resultRoot in any order: ids that order differently by UTF-8 bytes and UTF-16 units, one id with and without content_digest",
			Needs:    []string{OpResultRoot},
			Input:    check.FuzzValue,
			Weight:   1,
			Generate: func(r *rand.Rand) []byte { return genResultRoot(r).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return opVector(OpResultRoot, name, input) },
		},
		{
			Name:     "record",
			Doc:      "lifecycle records for recordHash: with and without a top-level record_hash, nested ones, namespaced extension members",
			Needs:    []string{OpRecordHash},
			Input:    check.FuzzValue,
			Weight:   1,
			Generate: func(r *rand.Rand) []byte { return jsongen.Obj("record", genRecord(r)).Encode() },
			Vector:   func(name string, input []byte) (any, bool) { return opVector(OpRecordHash, name, input) },
		},
		{
			Name:   "sign",
			Doc:    "seeds and commitments for signCommitment and signRecordAttestation (Ed25519 is deterministic)",
			Needs:  []string{OpSignCommitment, OpSignRecordAttestation},
			Input:  check.FuzzValue,
			Weight: 1,
			Generate: func(r *rand.Rand) []byte {
				return jsongen.Obj("seed", jsongen.Str(hexBytes(r, 32)), "commitment", digestNode(r)).Encode()
			},
			Vector: signVector,
		},
	},
	Files: foundFiles,
	Proof: check.FuzzProof{Elsewhere: "suites/cgpvectors TestEveryFuzzedModeIsFound"},
}

// fuzzReference is the built-in implementation the vectors' answers come from.
var fuzzReference = &Handler{mode: &Mode{}}

// refCall is the reference's answer to op with args, or the err it
// answered; ok is false unless it answered ok.
func refCall(op string, args []byte) (out canon.Value, refused *adapter.Error, ok bool) {
	raw, aerr := fuzzReference.Handle(context.Background(), op, args)
	if aerr != nil {
		return canon.Value{}, aerr, false
	}
	v, err := canon.Parse(raw, canon.ReadOptions{})
	return v, nil, err == nil
}

// canonicalVector is a normalization-vectors.json vector of input: the
// text for canonicalize's value_text, the value for canonicalize and
// digest.
func canonicalVector(name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	args, _ := json.Marshal(map[string]string{"value_text": string(input)})
	text, _, ok := refCall(OpCanonicalize, args)
	if !ok || text.Kind != canon.String {
		return nil, false
	}
	return foundEntry{File: VectorsFile, Cases: []any{vectorJSON{
		Name: name, InputJSON: string(input), Normalized: json.RawMessage(v.String()), JCS: text.Str, SHA256: cgp.DigestOf([]byte(text.Str)),
	}}}, true
}

// normalizeVector makes a digest case of a frame or query the reference
// normalises, or a strict case of one it refuses for an unknown member.
func normalizeVector(target, name string, input []byte) (any, bool) {
	op, file := OpNormalizeFrame, FrameFile
	if target == "query" {
		op, file = OpNormalizeQuery, QueryFile
	}
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || v.Kind != canon.Object {
		return nil, false
	}
	args, _ := json.Marshal(withText(target, v))
	n, refused, ok := refCall(op, args)
	if refused != nil {
		path, _ := refused.Member("path")
		if refused.Code != cgp.CodeUnknownField || path.Kind != canon.String || path.Str == "" {
			return nil, false
		}
		return foundEntry{File: StrictFile, Cases: []any{strictCaseJSON{Name: name, Target: target, Input: json.RawMessage(v.String()), UnknownPath: path.Str}}}, true
	}
	if !ok {
		return nil, false
	}
	text, err := cgp.Canonical(n)
	if err != nil {
		return nil, false
	}
	return foundEntry{File: file, Cases: []any{digestCaseJSON{
		Name: name, Source: json.RawMessage(v.String()), Normalized: json.RawMessage(n.String()), JCS: string(text), SHA256: cgp.DigestOf(text),
	}}}, true
}

// rangeVector is a range-vectors.json case of {"resource", "range"?}: the
// bytes the reference addresses, or its reason for addressing none.
func rangeVector(name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	res, ok := v.Lookup("resource")
	rg, hasRange := v.Lookup("range")
	members := 1
	if hasRange {
		members++
	}
	// The case holds a resource and a range, strings of UTF-8 text, and
	// nothing else.
	if !ok || res.Kind != canon.String || !utf8.ValidString(res.Str) || (hasRange && (rg.Kind != canon.String || !utf8.ValidString(rg.Str))) || len(v.Members) != members {
		return nil, false
	}
	out, _, ok := refCall(OpRangeDigest, input)
	if !ok {
		return nil, false
	}
	rc := rangeCaseJSON{Resource: name, text: res.Str}
	if hasRange {
		rc.Range = &rg.Str
	}
	if why, ok := out.Lookup("unverifiable"); ok {
		rc.Unverifiable = &why.Str
	} else {
		b, _ := out.Lookup("bytes")
		d, _ := out.Lookup("digest")
		rc.Bytes, rc.Digest = &b.Str, &d.Str
	}
	return foundEntry{File: RangeVectorsFile, Cases: []any{rc}}, true
}

// opVector makes an op case of the args input, with the reference's answer.
func opVector(op, name string, input []byte) (any, bool) {
	c, ok := opCase(name, op, input)
	if !ok {
		return nil, false
	}
	return foundEntry{File: OpCasesFile, Cases: []any{c}}, true
}

// opCase is the op case named name of op with args, or false when the
// reference refuses them.
func opCase(name, op string, args []byte) (opCaseJSON, bool) {
	a, err := canon.Parse(args, canon.ReadOptions{})
	if err != nil || a.Kind != canon.Object {
		return opCaseJSON{}, false
	}
	out, _, ok := refCall(op, args)
	if !ok {
		return opCaseJSON{}, false
	}
	expected := out.String()
	switch op {
	case OpVerifyInclusion:
		// Only valid is compared; the rest of the answer is free.
		valid, _ := out.Lookup("valid")
		expected = `{"valid":` + valid.String() + `}`
	case OpVerifyRecordAttestation:
		// valid and the reason are compared; the message is free.
		valid, _ := out.Lookup("valid")
		expected = `{"valid":` + valid.String() + `}`
		if reason, ok := out.Lookup("reason"); ok && !valid.Bool {
			expected = `{"valid":false,"reason":` + reason.String() + `}`
		}
	}
	return opCaseJSON{Name: name, Op: op, Args: json.RawMessage(a.String()), Expected: json.RawMessage(expected)}, true
}

// merkleVector makes, of {"leaves", "index"?}, the op cases of the root,
// and with an index the leaf's inclusion proof and three verifications:
// of the proof, of the proof with its first side flipped, and of the proof
// claiming the next leaf.
func merkleVector(name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	leaves, _ := v.Lookup("leaves")
	root, ok := opCase(name, OpMerkleRoot, []byte(`{"leaves":`+leaves.String()+`}`))
	if !ok {
		return nil, false
	}
	cases := []any{root}
	if index, has := v.Lookup("index"); has {
		i, ok := smallInt(index)
		if !ok || i >= len(leaves.Elems) {
			return nil, false
		}
		pc, ok := opCase(name, OpInclusionProof, []byte(`{"leaves":`+leaves.String()+`,"index":`+strconv.Itoa(i)+`}`))
		if !ok {
			return nil, false
		}
		var proof cgp.InclusionProof
		if json.Unmarshal(pc.Expected, &proof) != nil {
			return nil, false
		}
		verify := func(suffix string, p cgp.InclusionProof) bool {
			c, ok := opCase(name+suffix, OpVerifyInclusion, []byte(`{"leaf":`+leaves.Elems[i].String()+`,"proof":`+proofJSON(p)+`,"root":`+string(root.Expected)+`}`))
			if ok {
				cases = append(cases, c)
			}
			return ok
		}
		cases = append(cases, pc)
		if !verify("", proof) {
			return nil, false
		}
		if len(proof.Path) > 0 {
			flipped := proof
			flipped.Path = append([]cgp.ProofStep(nil), proof.Path...)
			flipped.Path[0].SiblingIsLeft = !flipped.Path[0].SiblingIsLeft
			verify("-flipped-side", flipped)
			other := proof
			other.LeafIndex = (proof.LeafIndex + 1) % proof.LeafCount
			verify("-other-index", other)
		}
	}
	return foundEntry{File: OpCasesFile, Cases: cases}, true
}

// signVector makes the op cases of signCommitment and of
// signRecordAttestation over the same seed and digest.
func signVector(name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	seed, _ := v.Lookup("seed")
	c, _ := v.Lookup("commitment")
	sc, ok := opCase(name, OpSignCommitment, input)
	if !ok {
		return nil, false
	}
	rc, ok := opCase(name, OpSignRecordAttestation, []byte(`{"seed":`+seed.String()+`,"signed_record_hash":`+c.String()+`}`))
	if !ok {
		return nil, false
	}
	return foundEntry{File: OpCasesFile, Cases: []any{sc, rc}}, true
}

// The generators. Strings come from the pieces the suite's rules treat
// apart: whitespace of every class (Unicode White_Space, what JavaScript,
// Python and Java take for space, and what none does), text beyond the
// BMP and at the top of it (UTF-16 and code point order part there),
// combining marks, the characters JSON escapes, CR and LF.

var textPieces = []string{
	"a", "retry", "Config::retry", "L10", "doc", "x-y", "0", "é", "ß", "日本語", "e\u0301", "😀", "𝄞", "𐍈", "\uff61",
	"\ue000", "\ufffd", "\uffff", "<", "&", `"`, `\`, "/", "\u007f", "\u0000", "\u0001",
}

var spacePieces = []string{
	" ", "\t", "\n", "\r\n", "\r", "\v", "\f", "\u00a0", "\u0085", "\u1680", "\u2000", "\u2007", "\u200a", "\u2028",
	"\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u200b", "\u180e", "\u001c", "\u001f",
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// genText returns text of a few pieces: words and spaces of every class;
// at times empty or only spaces.
func genText(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return pick(r, spacePieces) + pick(r, spacePieces)
	}
	var b strings.Builder
	for range 1 + r.IntN(6) {
		if r.IntN(3) == 0 {
			b.WriteString(pick(r, spacePieces))
		} else {
			b.WriteString(pick(r, textPieces))
		}
	}
	return b.String()
}

// strNode is a string node of genText, or of the fuzz package's strings
// (every escape form) without lone surrogates.
func strNode(r *rand.Rand) *jsongen.Node {
	if r.IntN(4) == 0 {
		return &jsongen.Node{Kind: canon.String, Raw: jsongen.StringNoSurrogates(r)}
	}
	return jsongen.Str(genText(r))
}

// genID is an id or provider id: short, at times with characters beyond
// the BMP or at the top of it, whose orders by UTF-8 and UTF-16 differ.
func genID(r *rand.Rand) *jsongen.Node {
	ids := []string{"frame:a", "frame:b", "retry-policy", "a", "b", "😀", "\uff61", "\ue000", "𝄞x", "frame:😀", "frame:\uff61", "", "repo-graph", "provider-𝄞"}
	if r.IntN(4) == 0 {
		return jsongen.Str(genText(r))
	}
	return jsongen.Str(pick(r, ids))
}

// score returns a number lexeme as a score is written: an f32 in its own
// shortest form or widened to f64, near 0 and 1, or any number.
func score(r *rand.Rand) string {
	var f float32
	switch r.IntN(6) {
	case 0:
		return jsongen.Number(r)
	case 1:
		f = pick(r, []float32{0, 1, 0.5, 0.1, 0.875, 1.00000005, 0.99999994, 1e-7, 1.5e-7, 0.000001, 1e21, 3.4028235e38})
	default:
		f = r.Float32()
	}
	lex := strconv.FormatFloat(float64(f), 'g', -1, 32)
	switch r.IntN(4) {
	case 0:
		lex = strconv.FormatFloat(float64(f), 'g', -1, 64) // the f32 widened: 0.10000000149011612
	case 1:
		lex = strconv.FormatFloat(float64(f), 'e', -1, 32)
	case 2:
		if f == float32(math.Trunc(float64(f))) && f < 1e15 {
			lex = strconv.FormatFloat(float64(f), 'f', 1, 32) // 1.0, as serde writes an f32
		}
	}
	if r.IntN(10) == 0 {
		lex = "-" + lex
	}
	return lex
}

// fuzzJSON is the canonical target's JSON: scores beside the fuzz
// package's numbers, strings of the pieces above, names that order
// differently by UTF-16 units, code points and bytes.
var fuzzJSON = jsongen.JSON{
	Number: func(r *rand.Rand) string {
		if r.IntN(3) == 0 {
			return score(r)
		}
		return jsongen.Number(r)
	},
	String: func(r *rand.Rand) string { return strNode(r).Raw },
	Key:    genKey,
	Space:  true, Scalars: true, MaxDepth: 40,
}

// orderKeys are names whose order differs by UTF-16 code units, code
// points and bytes: beyond the BMP (surrogates D800 to DFFF) against the
// top of the BMP (E000 and above).
var orderKeys = []string{"😀", "𝄞", "𐍈", "\ue000", "\uff61", "\ufb01", "\ufffd", "a", "B", "é", "_", "10", "9"}

func genKey(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return jsongen.Lexeme(pick(r, orderKeys))
	}
	return jsongen.KeyNoSurrogates(r)
}

func digestNode(r *rand.Rand) *jsongen.Node { return jsongen.Str("sha256:" + hexBytes(r, 32)) }

func hexBytes(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return hex.EncodeToString(b)
}

// timestamp is an F4 timestamp, at times a leap second, a fraction, an
// offset or a calendar impossibility.
func timestamp(r *rand.Rand) string {
	return pick(r, []string{"2026-07-20T18:00:00Z", "2026-01-01T00:00:00.5Z", "2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z",
		"2026-02-29T00:00:00Z", "2024-02-29T12:00:00Z", "2026-07-20T18:00:00+00:00", "2026-07-20t18:00:00z", "2026-07-20 18:00:00"})
}

// obj builds an object of the members given in a random order, each kept
// with probability keep.
func obj(r *rand.Rand, keep float64, members ...any) *jsongen.Node {
	o := &jsongen.Node{Kind: canon.Object}
	perm := r.Perm(len(members) / 2)
	for _, i := range perm {
		if r.Float64() < keep {
			o.Keys = append(o.Keys, jsongen.Lexeme(members[2*i].(string)))
			o.Vals = append(o.Vals, members[2*i+1].(*jsongen.Node))
		}
	}
	return o
}

// unknown adds a member no allow-list has to o, at a random position.
func unknown(r *rand.Rand, o *jsongen.Node, names ...string) {
	name := jsongen.Lexeme(pick(r, append(names, "future_field", "x-acme", "Title")))
	if r.IntN(3) == 0 {
		name = jsongen.KeyNoSurrogates(r)
	}
	at := r.IntN(len(o.Keys) + 1)
	o.Keys = append(o.Keys[:at], append([]string{name}, o.Keys[at:]...)...)
	o.Vals = append(o.Vals[:at], append([]*jsongen.Node{jsongen.Num("1")}, o.Vals[at:]...)...)
}

// optional is a link member: mostly text, at times "" or null.
func optional(r *rand.Rand) *jsongen.Node {
	switch r.IntN(8) {
	case 0:
		return jsongen.Str("")
	case 1:
		return &jsongen.Node{Kind: canon.Null, Raw: "null"}
	}
	return strNode(r)
}

// genLink is a provenance link: a type and some of the optional members.
func genLink(r *rand.Rand) *jsongen.Node {
	typ := jsongen.Str(pick(r, []string{"file", "derivation", "episode", "file", ""}))
	if r.IntN(5) == 0 {
		typ = strNode(r)
	}
	return first("type", typ, obj(r, 0.6, "uri", optional(r), "range", optional(r), "digest", optional(r), "method", optional(r), "by", optional(r)))
}

func genLinks(r *rand.Rand, most int) *jsongen.Node {
	a := jsongen.Arr()
	for range r.IntN(most + 1) {
		a.Elems = append(a.Elems, genLink(r))
	}
	return a
}

// genProvFrame is a frame as the attestation ops read it: an id, at times
// a content_digest and provenance, and, when other, members that must not
// enter a commitment.
func genProvFrame(r *rand.Rand, other bool) *jsongen.Node {
	f := jsongen.Obj("id", genID(r))
	if r.IntN(3) > 0 {
		f.Set("content_digest", digestNode(r))
	}
	if r.IntN(3) > 0 {
		f.Set("provenance", genLinks(r, 3))
	}
	if other && r.IntN(2) == 0 {
		f.Set("content", strNode(r))
	}
	if other && r.IntN(3) == 0 {
		f.Set("title", strNode(r))
		f.Set("score", jsongen.Num(score(r)))
	}
	return f
}

// genFrame is a ContextFrame for normalizeFrame: any of its members, in
// any order, arrays empty or long, and at times an unknown member at the
// top or inside provenance, relations or the embedding.
func genFrame(r *rand.Rand) *jsongen.Node {
	links := jsongen.Arr()
	for range r.IntN(4) {
		links.Elems = append(links.Elems, first("type", jsongen.Str(pick(r, []string{"file", "derivation"})),
			obj(r, 0.5, "uri", strNode(r), "range", jsongen.Str(pick(r, []string{"L1", "L1-20", "L01", ""})), "digest", digestNode(r), "method", strNode(r), "by", strNode(r))))
	}
	rels := jsongen.Arr()
	for range r.IntN(3) {
		rels.Elems = append(rels.Elems, obj(r, 0.8, "rel", jsongen.Str(pick(r, []string{"doc.documents", "code.calls", "episode.follows"})), "target_uri", strNode(r), "display_name", strNode(r)))
	}
	vector := jsongen.Arr()
	for range r.IntN(4) {
		vector.Elems = append(vector.Elems, jsongen.Num(score(r)))
	}
	f := obj(r, 0.5,
		"id", genID(r), "kind", jsongen.Str(pick(r, []string{"doc", "snippet", "fact", "graph", "acme:custom"})), "title", strNode(r),
		"content", strNode(r), "uri", jsongen.Str("file:///repo/"+genText(r)), "representation", jsongen.Str(pick(r, []string{"full", "compact", "reference"})),
		"content_fidelity", jsongen.Str("exact"), "canonical_content_hash", digestNode(r),
		"content_ref", jsongen.Obj("provider_id", genID(r), "uri", jsongen.Str("context://p/r")), "transform", jsongen.Obj("method", jsongen.Str("extractive_summary"), "implementation", jsongen.Str("d"), "version", jsongen.Str("1")),
		"minimum_content_fidelity", jsongen.Str("summarized"), "inline_content_requirement", jsongen.Str("required"),
		"score", jsongen.Num(score(r)), "token_cost", jsongen.Num(jsongen.Integer(r)), "canonical_token_cost", jsongen.Num(strconv.Itoa(r.IntN(5000))), "tokenizer_ref", jsongen.Str("openai:o200k_base"),
		"valid_from", jsongen.Str(timestamp(r)), "valid_to", jsongen.Str(timestamp(r)), "recorded_at", jsongen.Str(timestamp(r)),
		"provenance", links, "citation_label", strNode(r),
		"embedding", first("fingerprint", jsongen.Str("bge-small-en-v1.5/384/l2"), obj(r, 0.7, "vector", vector)),
		"relations", rels,
	)
	switch r.IntN(10) {
	case 0:
		unknown(r, f, "content_digest", "attestation")
	case 1:
		if nested := nestedObjects(f); len(nested) > 0 {
			unknown(r, pick(r, nested), "kind", "label")
		}
	}
	return f
}

// nestedObjects are the objects of a frame the allow-lists reach:
// provenance's and relations' elements, and the embedding.
func nestedObjects(f *jsongen.Node) []*jsongen.Node {
	var out []*jsongen.Node
	for i, k := range f.Keys {
		switch k {
		case `"provenance"`, `"relations"`:
			out = append(out, f.Vals[i].Elems...)
		case `"embedding"`:
			out = append(out, f.Vals[i])
		}
	}
	return out
}

// genQuery is a ContextQuery for normalizeQuery.
func genQuery(r *rand.Rand) *jsongen.Node {
	list := func(gen func() string) *jsongen.Node {
		a := jsongen.Arr()
		for range r.IntN(4) {
			a.Elems = append(a.Elems, jsongen.Str(gen()))
		}
		return a
	}
	emb := jsongen.Arr()
	for range r.IntN(4) {
		emb.Elems = append(emb.Elems, jsongen.Num(score(r)))
	}
	q := obj(r, 0.6,
		"goal", strNode(r), "query_text", strNode(r), "embedding", emb,
		"kinds", list(func() string { return pick(r, []string{"snippet", "doc", "fact", "symbol", "graph"}) }),
		"anchors", list(func() string { return "file:///repo/" + genText(r) }),
		"max_frames", jsongen.Num(jsongen.Integer(r)), "max_tokens", jsongen.Num(strconv.Itoa(r.IntN(10000))), "as_of", jsongen.Str(timestamp(r)))
	if r.IntN(8) == 0 {
		unknown(r, q, "representation_preferences", "id")
	}
	return q
}

// genRange is {"resource", "range"?}: lines ended by LF, CRLF or a bare
// CR (content), all CRLF at times, the last with or without its end; and
// a range in the grammar around the line count, or out of it.
func genRange(r *rand.Rand) *jsongen.Node {
	n := r.IntN(6)
	crlf := r.IntN(4) == 0
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(genText(r), "\n", ""), "\r", pick(r, []string{"", "\r"})))
		end := pick(r, []string{"\n", "\n", "\r\n", "\r\n", "\r"})
		if crlf {
			end = "\r\n"
		}
		if i == n-1 && r.IntN(3) == 0 {
			end = ""
		}
		b.WriteString(end)
	}
	res := jsongen.Obj("resource", jsongen.Str(b.String()))
	if r.IntN(6) == 0 {
		return res
	}
	num := func() string {
		return pick(r, []string{"1", "2", "3", strconv.Itoa(max(n, 1)), strconv.Itoa(n + 1), strconv.Itoa(n + 7), "99999999999999999999"})
	}
	var rg string
	switch r.IntN(5) {
	case 0:
		rg = pick(r, []string{"", "L0", "L01", "L+1", "l2", "L2-L3", "B0-5", " L1", "L1-", "L-1", "L1-2-3", "L1-01", "L１", "L0-2"})
	case 1, 2:
		rg = "L" + num()
	default:
		rg = "L" + num() + "-" + num()
	}
	res.Set("range", jsongen.Str(rg))
	return res
}

// genMerkle is {"leaves", "index"}: a leaf count around a power of two.
func genMerkle(r *rand.Rand) *jsongen.Node {
	n := pick(r, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33})
	leaves := jsongen.Arr()
	for range n {
		leaves.Elems = append(leaves.Elems, digestNode(r))
	}
	m := jsongen.Obj("leaves", leaves)
	if n > 0 {
		m.Set("index", jsongen.Num(strconv.Itoa(r.IntN(n))))
	}
	return m
}

// genResultRoot is {"provider_id", "frames"}: two to six frames, ids drawn
// from genID's (so repeats happen), in the order generated.
func genResultRoot(r *rand.Rand) *jsongen.Node {
	frames := jsongen.Arr()
	for range 2 + r.IntN(5) {
		frames.Elems = append(frames.Elems, genProvFrame(r, false))
	}
	return jsongen.Obj("provider_id", genID(r), "frames", frames)
}

// genRecord is a lifecycle record: its common members, a record_hash at
// times (at the top, and nested), namespaced extension members, and small
// trees of JSON.
func genRecord(r *rand.Rand) *jsongen.Node {
	small := jsongen.JSON{Number: fuzzJSON.Number, String: fuzzJSON.String, Key: genKey, MaxDepth: 3}
	rec := obj(r, 0.7,
		"schema_version", jsongen.Str("contextgraph/lifecycle/1.0-draft"), "record_kind", jsongen.Str(pick(r, []string{"observation", "memory", "directive"})),
		"record_id", genID(r), "confidence", jsongen.Num(score(r)), "record_hash", digestNode(r),
		"acme:relay", jsongen.Obj("hops", jsongen.Num("2"), "latency_ms", jsongen.Num("12.5"), "note", &jsongen.Node{Kind: canon.Null, Raw: "null"}),
		"provenance", jsongen.Obj("record_hash", digestNode(r), "derivation_kind", jsongen.Str("summary")),
		"body", small.Tree(r))
	return rec
}

// first puts the member name first in o, and returns o.
func first(name string, v, o *jsongen.Node) *jsongen.Node {
	o.Keys = append([]string{jsongen.Lexeme(name)}, o.Keys...)
	o.Vals = append([]*jsongen.Node{v}, o.Vals...)
	return o
}
