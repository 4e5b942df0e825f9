package cgpvectors

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
)

// referee's own links, beside upstream's: every optional member absent,
// every one present and empty, and strings beyond the BMP throughout (four
// UTF-8 bytes, two UTF-16 code units, one code point each).
const (
	linkAllAbsent    = `{"type":"file"}`
	linkEmptyStrings = `{"type":"file","uri":"","range":"","digest":"","method":"","by":""}`
	linkNonBMP       = `{"type":"𝄞","uri":"😀/𐍈.md","range":"L1","method":"🧪 extractive","by":"𐐷-agent"}`
)

// The extra leaves past upstream's leaf_frames, and the proofs referee adds.
const merkleLeaves = 9

var (
	extraRootCounts = []int{2, 5, 8, 9}
	extraProofs     = [][2]int{{0, 7}, {6, 7}, {4, 5}, {8, 9}} // {leaf_index, leaf_count}
)

// wrongKeySeed is the example-exchange key's seed (32 x 0x2a): a valid key
// that did not sign the published attestation.
var wrongKeySeed = [32]byte{
	0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a,
	0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a,
}

func mustLink(text string) VecLink {
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		panic(err)
	}
	l, err := readLink(v)
	if err != nil {
		panic(err)
	}
	return VecLink{Value: v, Link: l}
}

func jstr(s string) string { return string(cgp.AppendSerdeString(nil, s)) }

func linksJSON(ls []VecLink) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Value.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// frameJSON is a frame argument: id, content_digest when present,
// provenance, then extra members (JSON text, without braces) if any.
func frameJSON(f VecFrame, extra string) string {
	s := `{"id":` + jstr(f.ID)
	if f.ContentDigest != nil {
		s += `,"content_digest":` + jstr(*f.ContentDigest)
	}
	s += `,"provenance":` + linksJSON(f.Provenance)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func hashesJSON(hs []cgp.Hash) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = jstr(h.String())
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// leafFrames returns the first n leaf frames: past
// upstream's seven, referee's own (referee-leaf-N, the last one's digest).
func (pv *ProvenanceVectors) leafFrames(n int) []VecFrame {
	out := slices.Clone(pv.LeafFrames[:min(n, len(pv.LeafFrames))])
	for i := len(out); i < n; i++ {
		f := VecFrame{ID: fmt.Sprintf("referee-leaf-%d", i)}
		if len(pv.LeafFrames) > 0 {
			f.ContentDigest = pv.LeafFrames[len(pv.LeafFrames)-1].ContentDigest
		}
		out = append(out, f)
	}
	return out
}

func (pv *ProvenanceVectors) leaves(n int) []cgp.Hash {
	var out []cgp.Hash
	for _, f := range pv.leafFrames(n) {
		out = append(out, f.Commitment(pv.MerkleProvider))
	}
	return out
}

// provCase is a check whose op answers a string.
type provCase struct {
	id, doc, op string
	args        string // the args, JSON text
	want        string
	what        string // what the string is, for the failure
	verdict     bool   // compare as a name, not bytes
	weak        bool   // a weak-key case: a Valid is a forgery accepted
	notes       func(got string) []string
}

func (pc provCase) check() check.Check {
	c := check.Check{
		ID:      "cgp-vectors/provenance/" + pc.id,
		Doc:     pc.doc,
		Needs:   []string{pc.op},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s", pc.op, check.Clip(pc.args), jstr(pc.want)),
		Clause:  opClause(pc.op),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			e := check.Expect{Op: pc.op, Args: json.RawMessage(pc.args), Want: pc.want, Words: pc.words}
			if pc.verdict {
				return e.Word(ctx, s, pc.want)
			}
			return e.Bytes(ctx, s, pc.what, []byte(pc.want))
		},
	}
	if pc.weak {
		// A verifier that accepts a weak key breaks a should.
		return strictVerifier(c)
	}
	return c
}

// words add to a wrong answer the notes of what it matches: a forgery
// accepted under a weak key, pc.notes.
func (pc provCase) words(m check.Miss) check.Outcome {
	o := m.Outcome
	if m.Kind != check.Differs {
		return o
	}
	if pc.weak && m.OK.Str == cgp.VerdictValid {
		o.Notes = append(o.Notes, weakForgeryNote)
	}
	if pc.notes != nil {
		o.Notes = append(o.Notes, pc.notes(m.OK.Str)...)
	}
	return o
}

// opClause is what a provenance check of op rests on.
func opClause(op string) string {
	switch op {
	case OpEncodeLink:
		return clauseLink
	case OpChainHead:
		return clauseChain
	case OpFrameCommitment:
		return clauseCommitment
	case OpMerkleRoot:
		return clauseMerkle
	case OpResultRoot:
		return clauseResultRoot
	case OpInclusionProof, OpVerifyInclusion:
		return clauseProof
	case OpSignCommitment:
		return clauseSign
	case OpVerifyAttestation:
		return clauseVerdicts
	}
	return ""
}

func note(s string) func(string) []string { return func(string) []string { return []string{s} } }

const weakForgeryNote = "the key or the signature's R is a small-order or non-canonical point, and the signature one that a cofactorless verifier accepts (a forgery, R small-order and S = 0, under a weak key; R the identity and S = k·a under any): refuse such keys and R before verifying, as ed25519-dalek's verify_strict does; crypto/ed25519 and Node's OpenSSL do not"

const (
	noteEncoding   = "encode(link) = enc_str(type) ‖ enc_opt(uri) ‖ enc_opt(range) ‖ enc_opt(digest) ‖ enc_opt(method) ‖ enc_opt(by); enc_str(s) = u32be(UTF-8 byte length) ‖ UTF-8; enc_opt: 00 when absent, 01 ‖ enc_str(s) when present, even when s is \"\""
	noteChain      = "h₋₁ = SHA-256(\"contextgraph/attest/1/genesis\"); hᵢ = SHA-256(\"contextgraph/attest/1/link\" ‖ hᵢ₋₁ ‖ encode(linkᵢ)), folded source first"
	noteCommitment = "SHA-256(\"contextgraph/attest/1/frame\" ‖ enc_str(provider_id) ‖ enc_str(frame.id) ‖ enc_opt(content_digest) ‖ chain_head(provenance)); no other frame member enters it"
	noteMerkle     = "RFC 6962: leaf = SHA-256(00 ‖ c), node = SHA-256(01 ‖ l ‖ r), split at the largest power of two below n; the empty tree is SHA-256(\"contextgraph/attest/1/merkle-empty\")"
	noteSign       = "Ed25519 over the raw 32 bytes of the commitment or root: no domain tag, not the sha256: text"
)

// linkNotes says which wrong length rule a reply matches, from upstream's
// unicode_length_trap.
func (pv *ProvenanceVectors) linkNotes(l cgp.Link) func(string) []string {
	return func(got string) []string {
		switch got {
		case hex.EncodeToString(encodeWith(l, canon.UTF16Len)):
			return []string{"the length prefixes count UTF-16 code units (JavaScript's String length)" + pv.trapText(), noteEncoding}
		case hex.EncodeToString(encodeWith(l, canon.CodePoints)):
			return []string{"the length prefixes count code points (Python's len)" + pv.trapText(), noteEncoding}
		}
		return []string{noteEncoding}
	}
}

func (pv *ProvenanceVectors) trapText() string {
	var parts []string
	for _, t := range pv.Trap {
		parts = append(parts, fmt.Sprintf("%s: %d UTF-8 bytes, %d code points, %d UTF-16 code units", t.Field, t.UTF8, t.CodePoints, t.UTF16Units))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; they are UTF-8 byte lengths (upstream's unicode_length_trap, the " + pv.TrapLink + " link: " + strings.Join(parts, "; ") + ")"
}

// Checks returns the provenance attestation checks:
// cgp-vectors/provenance/{link,chain,commitment,merkle-root,result-root,
// inclusion-proof,verify-inclusion,sign,verify}/CASE.
func (pv *ProvenanceVectors) Checks() []check.Check { return pv.built }

// checks builds the checks, and fails if the Go reference disagrees with
// a value one of them expects.
func (pv *ProvenanceVectors) checks() ([]check.Check, error) {
	var cases []provCase

	// encodeLink.
	extraLinks := []struct{ name, text, doc string }{
		{"all-absent", linkAllAbsent, "every optional member absent: five 00 presence bytes"},
		{"empty-strings", linkEmptyStrings, "every optional member present and empty: Some(\"\") is 01 00000000, never the absent 00"},
		{"non-bmp", linkNonBMP, "strings beyond the BMP: lengths are UTF-8 bytes (4 per character), not UTF-16 code units (2) or code points (1)"},
	}
	for _, l := range pv.Links {
		want, published := pv.Encodings[l.Name]
		doc := "encodeLink of upstream's " + l.Name + " link is its published encoding"
		if !published {
			want = hex.EncodeToString(cgp.EncodeLink(l.Link))
			doc = "encodeLink of upstream's " + l.Name + " link (no published encoding: computed by the Go reference)"
		}
		cases = append(cases, provCase{id: "link/" + l.Name, doc: doc, op: OpEncodeLink, args: `{"link":` + l.Value.String() + `}`, want: want, what: "the encoding (hex)", notes: pv.linkNotes(l.Link)})
	}
	for _, x := range extraLinks {
		l := mustLink(x.text)
		cases = append(cases, provCase{id: "link/" + x.name, doc: "encodeLink, " + x.doc, op: OpEncodeLink, args: `{"link":` + x.text + `}`,
			want: hex.EncodeToString(cgp.EncodeLink(l.Link)), what: "the encoding (hex)", notes: pv.linkNotes(l.Link)})
	}

	// chainHead.
	for _, ch := range pv.Chains {
		cases = append(cases, provCase{id: "chain/" + ch.Name, doc: "chainHead of upstream's " + ch.Name + " chain is its published head", op: OpChainHead,
			args: `{"links":` + linksJSON(ch.Links) + `}`, want: ch.Head, what: "the chain head", notes: note(noteChain)})
	}
	for _, x := range []struct {
		name, doc string
		links     []VecLink
	}{
		{"all-links", "all of upstream's links, in file order", pv.Links},
		{"empty-vs-absent", "a link with every optional member absent, then one with every one empty", []VecLink{mustLink(linkAllAbsent), mustLink(linkEmptyStrings)}},
		{"non-bmp", "one link of strings beyond the BMP", []VecLink{mustLink(linkNonBMP)}},
	} {
		cases = append(cases, provCase{id: "chain/" + x.name, doc: "chainHead of " + x.doc + " (computed by the Go reference)", op: OpChainHead,
			args: `{"links":` + linksJSON(x.links) + `}`, want: cgp.ChainHead(links(x.links)).String(), what: "the chain head", notes: note(noteChain)})
	}

	// frameCommitment.
	noDigest := pv.Frame
	noDigest.ContentDigest = nil
	nonBMP := VecFrame{ID: "frame:😀/日本語", ContentDigest: pv.Frame.ContentDigest, Provenance: []VecLink{mustLink(linkNonBMP)}}
	const otherMembers = `"kind":"doc","title":"Retry policy","content":"Retry with exponential backoff, at most 3 times.","score":0.875,"token_cost":12,"citation_label":"retry.rs L10-L20"`
	for _, x := range []struct {
		name, provider, doc string
		frame               VecFrame
		extra, want         string
	}{
		{pv.Frame.ID, pv.Provider, "frameCommitment of upstream's frame is its published commitment", pv.Frame, "", pv.Commitment},
		{"no-content-digest", pv.Provider, "frameCommitment of upstream's frame without content_digest: enc_opt writes 00 (computed by the Go reference)", noDigest, "", noDigest.Commitment(pv.Provider).String()},
		{"other-members", pv.Provider, "frameCommitment of upstream's frame with kind, title, content, score, token_cost and citation_label beside it: none of them enters the commitment", pv.Frame, otherMembers, pv.Commitment},
		{"non-bmp-ids", "provider-𝄞", "frameCommitment with a provider_id and frame id beyond the BMP: UTF-8 byte lengths (computed by the Go reference)", nonBMP, "", nonBMP.Commitment("provider-𝄞").String()},
	} {
		cases = append(cases, provCase{id: "commitment/" + x.name, doc: x.doc, op: OpFrameCommitment,
			args: `{"provider_id":` + jstr(x.provider) + `,"frame":` + frameJSON(x.frame, x.extra) + `}`, want: x.want, what: "the commitment", notes: note(noteCommitment)})
	}

	// merkleRoot over leaf commitments in the order given.
	leaves := pv.leaves(max(merkleLeaves, len(pv.LeafFrames)))
	counts := slices.Clone(pv.RootCounts)
	for _, n := range extraRootCounts {
		if _, ok := pv.Roots[n]; !ok && !slices.Contains(counts, n) {
			counts = append(counts, n)
		}
	}
	slices.Sort(counts)
	for _, n := range counts {
		want, published := pv.Roots[n]
		doc := fmt.Sprintf("merkleRoot of the commitments of upstream's first %d leaf_frames is the published root", n)
		if !published {
			want = cgp.MerkleRoot(leaves[:n]).String()
			doc = fmt.Sprintf("merkleRoot of %d leaf commitments (upstream publishes no root for %d; computed by the Go reference)", n, n)
		}
		cases = append(cases, provCase{id: fmt.Sprintf("merkle-root/%d", n), doc: doc, op: OpMerkleRoot,
			args: `{"leaves":` + hashesJSON(leaves[:n]) + `}`, want: want, what: "the root", notes: note(noteMerkle)})
	}

	// resultRoot: frames in canonical FrameId order, whatever their arrival.
	for _, x := range []struct {
		name, doc string
		frames    []VecFrame
	}{
		{"arrival-order", "upstream's leaf_frames, sent last first: the root is over canonical FrameId order, not arrival order", reversed(pv.LeafFrames)},
		{"byte-order-ids", "frame ids compared by UTF-8 bytes, as Rust's String order: U+E000 and U+FF61 before U+1F600, which UTF-16 code units (JavaScript's <) put first", []VecFrame{{ID: "😀"}, {ID: "a"}, {ID: "\uff61"}, {ID: "\ue000"}}},
		{"absent-digest-first", "two frames with one id: the one without content_digest sorts first (None before Some)", []VecFrame{{ID: "frame:x", ContentDigest: pv.Frame.ContentDigest}, {ID: "frame:x"}}},
	} {
		parts := make([]string, len(x.frames))
		cf := make([]cgp.ContextFrame, len(x.frames))
		for i, f := range x.frames {
			parts[i] = frameJSON(f, "")
			cf[i] = cgp.ContextFrame{ID: f.ID, ContentDigest: f.ContentDigest, Provenance: links(f.Provenance)}
		}
		_, ls := cgp.ResultLeaves(pv.MerkleProvider, cf)
		cases = append(cases, provCase{id: "result-root/" + x.name, doc: "resultRoot of " + x.doc, op: OpResultRoot,
			args: `{"provider_id":` + jstr(pv.MerkleProvider) + `,"frames":[` + strings.Join(parts, ",") + `]}`, want: cgp.MerkleRoot(ls).String(), what: "the root",
			notes: note("the leaves are the frames' commitments ordered by FrameId: provider_id, then frame id, then content_digest (absent first), strings compared by UTF-8 bytes")})
	}

	// signCommitment.
	signed, _ := cgp.ParseHash(pv.Attestation.SignedCommitment)
	root7 := cgp.MerkleRoot(leaves[:7])
	rootSig, _ := cgp.SignCommitment(pv.Seed, root7)
	seed := hex.EncodeToString(pv.Seed)
	cases = append(cases,
		provCase{id: "sign/published", doc: "signCommitment of upstream's commitment with its published seed is its published signature", op: OpSignCommitment,
			args: `{"seed":` + jstr(seed) + `,"commitment":` + jstr(pv.Attestation.SignedCommitment) + `}`, want: pv.Attestation.Signature, what: "the signature (hex)", notes: note(noteSign)},
		provCase{id: "sign/root", doc: "signCommitment of a result root (of 7 leaves) with the published seed (computed by the Go reference)", op: OpSignCommitment,
			args: `{"seed":` + jstr(seed) + `,"commitment":` + jstr(root7.String()) + `}`, want: rootSig, what: "the signature (hex)", notes: note(noteSign)},
	)

	// verifyAttestation.
	vcs, err := pv.verifyCases(signed)
	if err != nil {
		return nil, err
	}
	cases = append(cases, vcs...)

	var out []check.Check
	for _, c := range cases {
		out = append(out, c.check())
	}
	pcs, err := pv.proofChecks(leaves)
	if err != nil {
		return nil, err
	}
	return append(out, pcs...), nil
}

func reversed(fs []VecFrame) []VecFrame {
	out := slices.Clone(fs)
	slices.Reverse(out)
	return out
}

func attestationJSON(a cgp.ProvenanceAttestation) string {
	b, _ := cgp.MarshalReference(a)
	return string(b)
}

// verifyCases are cgp-vectors/provenance/verify/CASE.
func (pv *ProvenanceVectors) verifyCases(signed cgp.Hash) ([]provCase, error) {
	a := pv.Attestation
	lifted := pv.Frame
	lifted.ID += "-lifted"
	other := lifted.Commitment(pv.Provider)
	with := func(f func(*cgp.ProvenanceAttestation)) cgp.ProvenanceAttestation {
		b := a
		f(&b)
		return b
	}
	flip := func(s string, i int) string {
		c := "0"
		if s[i] == '0' {
			c = "1"
		}
		return s[:i] + c + s[i+1:]
	}
	wrongKey := hex.EncodeToString(ed25519.NewKeyFromSeed(wrongKeySeed[:]).Public().(ed25519.PublicKey))
	type vc struct {
		name, doc string
		att       cgp.ProvenanceAttestation
		expected  cgp.Hash
		key, want string
	}
	vcs := []vc{
		{"valid", "upstream's published attestation verifies under its key", a, signed, pv.PublicKey, cgp.VerdictValid},
		{"commitment-mismatch", "the published attestation, checked against another frame's commitment (the frame id with -lifted), is a lifted signature", a, other, pv.PublicKey, cgp.VerdictCommitmentMismatch},
		{"mismatch-before-signature", "a signed_commitment that is not the expected one, with a signature that does not verify over it: the commitment is compared before the signature", with(func(b *cgp.ProvenanceAttestation) { b.SignedCommitment = other.String() }), signed, pv.PublicKey, cgp.VerdictCommitmentMismatch},
		{"unknown-algorithm", "algorithm ed448 is UnknownAlgorithm, checked first", with(func(b *cgp.ProvenanceAttestation) { b.Algorithm = "ed448" }), signed, pv.PublicKey, cgp.VerdictUnknownAlgorithm},
		{"short-key", "a public key of 31 bytes is MalformedKey", a, signed, pv.PublicKey[:62], cgp.VerdictMalformedKey},
	}
	torsion := pv.SmallOrder
	for _, list := range []struct {
		name, doc string
		keys      []string
	}{{"small-order-key", "the small-order key", pv.SmallOrder}, {"non-canonical-key", "the non-canonical key", pv.NonCanonical}} {
		for i, k := range list.keys {
			x := vc{name: fmt.Sprintf("%s-%d", list.name, i+1), key: k, want: cgp.VerdictMalformedKey}
			if f, ok := forge(k, torsion); ok {
				x.att = with(func(b *cgp.ProvenanceAttestation) {
					b.SignedCommitment, b.Signature = f.commitment.String(), f.signature
				})
				x.expected = f.commitment
				x.doc = fmt.Sprintf("%s %s… of verifier_strictness is MalformedKey, with a signature (R small-order, S = 0) that crypto/ed25519 and OpenSSL accept under it", list.doc, k[:16])
			} else {
				x.att, x.expected = a, signed
				x.doc = fmt.Sprintf("%s %s… of verifier_strictness is MalformedKey", list.doc, k[:16])
			}
			vcs = append(vcs, x)
		}
	}
	// referee's keys beside upstream's lists: the two encodings with x = 0
	// and the sign bit set (RFC 8032 refuses them; crypto/ed25519 reads them
	// as the identity and the point of order 2, so a forgery turns up), a
	// non-canonical y whose reduced point is of large order (a verifier that
	// reduces y mod p and only then refuses small order passes it), and a
	// y with no point at all.
	for _, x := range []struct{ name, key, doc string }{
		{"x-zero-sign-key-1", xZeroSign[0], "the identity encoded with x = 0 and the sign bit set, which RFC 8032 §5.1.3 refuses to decode"},
		{"x-zero-sign-key-2", xZeroSign[1], "the point of order 2 encoded with x = 0 and the sign bit set, which RFC 8032 §5.1.3 refuses to decode"},
		{"non-canonical-large-order-key", nonCanonicalLarge, "y = p + 3, a non-canonical encoding of a point of large order: reduced mod p it is a valid key, so only refusing y ≥ p catches it"},
	} {
		v := vc{name: x.name, key: x.key, want: cgp.VerdictMalformedKey, att: a, expected: signed}
		v.doc = x.doc + ": MalformedKey"
		if f, ok := forge(x.key, torsion); ok {
			v.att = with(func(b *cgp.ProvenanceAttestation) {
				b.SignedCommitment, b.Signature = f.commitment.String(), f.signature
			})
			v.expected = f.commitment
			v.doc += ", with a signature (R small-order, S = 0) that crypto/ed25519 and OpenSSL accept under it"
		}
		vcs = append(vcs, v)
	}
	// referee's signatures that only a strict verifier's own checks refuse,
	// or accept: R the identity with S = k·a (the group equation holds; a
	// verifier that checks the key but not R accepts it), the published
	// signature with L added to S (S ≥ L; a verifier that reduces S accepts
	// it), and a key of mixed order, the published key plus the point of
	// order 4, with a signature under it over a commitment of referee's
	// (valid; a verifier that wants keys in the prime-order subgroup refuses
	// it).
	signer := newSigner(pv.Seed)
	sig, _ := hex.DecodeString(a.Signature)
	vcs = append(vcs,
		vc{"identity-r", "a signature whose R is the identity and S = k·a satisfies the group equation under the published key: BadSignature, for a strict verifier refuses a small-order R", with(func(b *cgp.ProvenanceAttestation) {
			b.Signature = hex.EncodeToString(signer.withR(identityR, signed[:]))
		}), signed, pv.PublicKey, cgp.VerdictBadSignature},
		vc{"s-plus-l", "the published signature with L added to S (a second spelling of it, S ≥ L) is BadSignature: S must be below L (RFC 8032 §5.1.7)", with(func(b *cgp.ProvenanceAttestation) {
			b.Signature = hex.EncodeToString(sPlus(sig, 1))
		}), signed, pv.PublicKey, cgp.VerdictBadSignature},
	)
	var msgs [][]byte
	for n := range 16 {
		c := sha256.Sum256([]byte("referee/cgp-vectors/mixed-order-key/" + strconv.Itoa(n)))
		msgs = append(msgs, c[:])
	}
	if mc, m, ok := mixedCase(signer, 4, msgs); ok {
		vcs = append(vcs, vc{"mixed-order-key", "the published key plus the point of order 4 is a key of mixed order, neither small-order nor non-canonical: a signature under it, over a commitment whose challenge clears the small-order part, is Valid", with(func(b *cgp.ProvenanceAttestation) {
			b.SignedCommitment, b.Signature = cgp.Hash(m).String(), hex.EncodeToString(mc.sig)
		}), cgp.Hash(m), hex.EncodeToString(mc.key), cgp.VerdictValid})
	}
	vcs = append(vcs,
		vc{"off-curve-key", "a public key whose y has no x on the curve (y = 2) is no point: MalformedKey, not BadSignature", a, signed, offCurveKey, cgp.VerdictMalformedKey},
		vc{"uppercase-commitment", "the right signed_commitment in uppercase hex is MalformedCommitment, not a mismatch: digests are lowercase", with(func(b *cgp.ProvenanceAttestation) {
			b.SignedCommitment = "sha256:" + strings.ToUpper(b.SignedCommitment[len("sha256:"):])
		}), signed, pv.PublicKey, cgp.VerdictMalformedCommitment},
		vc{"short-signature", "a signature of 63 bytes is MalformedSignature", with(func(b *cgp.ProvenanceAttestation) { b.Signature = b.Signature[:126] }), signed, pv.PublicKey, cgp.VerdictMalformedSignature},
		vc{"bad-signature", "the published signature with one hex digit of S changed is BadSignature", with(func(b *cgp.ProvenanceAttestation) { b.Signature = flip(b.Signature, 100) }), signed, pv.PublicKey, cgp.VerdictBadSignature},
		vc{"wrong-key", "the published attestation under another valid key (seed 32 × 2a) is BadSignature", a, signed, wrongKey, cgp.VerdictBadSignature},
	)
	var out []provCase
	for _, x := range vcs {
		// The Go reference must agree with what the check expects.
		if got := cgp.VerifyAttestation(x.att, x.expected, x.key); got.Kind != x.want {
			return nil, fmt.Errorf("verify/%s: the Go reference's verdict is %s, the check expects %s", x.name, got, x.want)
		}
		out = append(out, provCase{id: "verify/" + x.name, doc: "verifyAttestation: " + x.doc, op: OpVerifyAttestation,
			args: `{"attestation":` + attestationJSON(x.att) + `,"expected_commitment":` + jstr(x.expected.String()) + `,"public_key":` + jstr(x.key) + `}`,
			want: x.want, verdict: true, weak: strings.HasPrefix(x.name, "small-order") || strings.HasPrefix(x.name, "non-canonical") || strings.HasPrefix(x.name, "x-zero-sign") || x.name == "identity-r",
			notes: note("the order of the checks: algorithm (UnknownAlgorithm), the key's form and strictness (MalformedKey: small-order and non-canonical points too), signed_commitment's form (MalformedCommitment), signed_commitment = the expected commitment (CommitmentMismatch), the signature's form (MalformedSignature), Ed25519 over the 32 raw bytes (BadSignature)")})
	}
	return out, nil
}

// proofChecks are cgp-vectors/provenance/inclusion-proof/I-of-N and
// cgp-vectors/provenance/verify-inclusion/CASE.
func (pv *ProvenanceVectors) proofChecks(leaves []cgp.Hash) ([]check.Check, error) {
	var out []check.Check
	up := pv.Proof
	proofs := [][2]int{{int(up.LeafIndex), int(up.LeafCount)}}
	for _, p := range extraProofs {
		if p[1] <= len(leaves) && !slices.Contains(proofs, p) {
			proofs = append(proofs, p)
		}
	}
	for i, p := range proofs {
		want, _ := cgp.Prove(leaves[:p[1]], p[0])
		doc := fmt.Sprintf("inclusionProof of leaf %d of %d is upstream's published proof", p[0], p[1])
		if i > 0 {
			doc = fmt.Sprintf("inclusionProof of leaf %d of %d (computed by the Go reference)", p[0], p[1])
		}
		out = append(out, proofCheck(fmt.Sprintf("%d-of-%d", p[0], p[1]), doc, leaves[:p[1]], p[0], want))
	}

	// verifyInclusion: upstream's proof, two of referee's, and two that
	// must be refused.
	type vi struct {
		name, doc string
		leaf      cgp.Hash
		proof     cgp.InclusionProof
		root      cgp.Hash
		valid     bool
	}
	prove := func(i, n int) vi {
		p, _ := cgp.Prove(leaves[:n], i)
		return vi{name: fmt.Sprintf("%d-of-%d", i, n), leaf: leaves[i], proof: p, root: cgp.MerkleRoot(leaves[:n]), valid: true}
	}
	upRoot := cgp.MerkleRoot(leaves[:up.LeafCount])
	vis := []vi{{fmt.Sprintf("%d-of-%d", up.LeafIndex, up.LeafCount), "upstream's published proof replays to its root", leaves[up.LeafIndex], up, upRoot, true}}
	for _, p := range [][2]int{{0, 1}, {8, 9}} {
		x := prove(p[0], p[1])
		x.doc = fmt.Sprintf("a proof of leaf %d of %d replays to the root", p[0], p[1])
		if p[1] == 1 {
			x.doc += " (an empty path: the root is the leaf hash)"
		}
		vis = append(vis, x)
	}
	flipped := prove(3, 7)
	flipped.proof.Path = slices.Clone(flipped.proof.Path)
	flipped.proof.Path[0].SiblingIsLeft = !flipped.proof.Path[0].SiblingIsLeft
	flipped.name, flipped.valid = "flipped-side", false
	flipped.doc = "a proof of leaf 3 of 7 with its first step's sibling_is_left flipped is refused, even though the sides leaf_index implies would replay it"
	wrongIndex := prove(3, 7)
	wrongIndex.proof.LeafIndex = 2
	wrongIndex.name, wrongIndex.valid = "wrong-index", false
	wrongIndex.doc = "a proof of leaf 3 of 7 that claims leaf_index 2 is refused: its sides do not fit leaf 2, even though following them reaches the root"
	vis = append(vis, flipped, wrongIndex)
	for _, x := range vis {
		got, err := cgp.ProofRoot(x.leaf, x.proof)
		if (err == nil && got == x.root) != x.valid {
			return nil, fmt.Errorf("verify-inclusion/%s: the Go reference's answer is not valid=%v", x.name, x.valid)
		}
		out = append(out, verifyInclusionCheck(x.name, "verifyInclusion: "+x.doc, x.leaf, x.proof, x.root, x.valid))
	}
	return out, nil
}

func proofCheck(name, doc string, leaves []cgp.Hash, index int, want cgp.InclusionProof) check.Check {
	args := fmt.Sprintf(`{"leaves":%s,"index":%d}`, hashesJSON(leaves), index)
	wantText := proofJSON(want)
	wantValue, _ := canon.Parse([]byte(wantText), canon.ReadOptions{})
	return check.Check{
		ID:      "cgp-vectors/provenance/inclusion-proof/" + name,
		Doc:     doc,
		Needs:   []string{OpInclusionProof},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s (compared by RFC 8785 bytes)", OpInclusionProof, check.Clip(args), wantText),
		Clause:  opClause(OpInclusionProof),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Expect{
				Op: OpInclusionProof, Args: json.RawMessage(args), Want: wantText, Words: mustAnswerProof,
				Notes: []string{"the path is RFC 6962's audit path, the sibling nearest the leaf first; sibling_is_left says the sibling is the left operand of SHA-256(01 ‖ l ‖ r)", noteMerkle},
			}.Value(ctx, s, "the proof (as RFC 8785 text)", wantValue)
		},
	}
}

func verifyInclusionCheck(name, doc string, leaf cgp.Hash, p cgp.InclusionProof, root cgp.Hash, valid bool) check.Check {
	args := `{"leaf":` + jstr(leaf.String()) + `,"proof":` + proofJSON(p) + `,"root":` + jstr(root.String()) + `}`
	want := fmt.Sprintf(`{"valid": %v}`, valid)
	return check.Check{
		ID:      "cgp-vectors/provenance/verify-inclusion/" + name,
		Doc:     doc,
		Needs:   []string{OpVerifyInclusion},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s", OpVerifyInclusion, check.Clip(args), want),
		Clause:  opClause(OpVerifyInclusion),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			r, o, ok := check.Expect{Op: OpVerifyInclusion, Args: json.RawMessage(args), Want: want}.OK(ctx, s)
			if !ok {
				return o
			}
			v, ok := r.Lookup("valid")
			if r.Kind != canon.Object || !ok || v.Kind != canon.Bool {
				return check.Failed(OpVerifyInclusion+` must answer {"valid": B, ...}`, want, r.String())
			}
			switch {
			case v.Bool == valid:
				return check.Passed()
			case valid:
				return check.Failed("a proof that replays to the root was refused", want, r.String())
			}
			o = check.Failed("a proof that must be refused was accepted", want, r.String())
			o.Notes = []string{"the path must have the length and the sides that leaf_index and leaf_count give; each sibling_is_left must be the one the tree's shape implies"}
			return o
		},
	}
}

// mustAnswerProof words an answer that is no proof: not an object, or one
// with no RFC 8785 form.
func mustAnswerProof(m check.Miss) check.Outcome {
	o := m.Outcome
	if m.Kind == check.Mistyped {
		o.Reason = m.Op + " must answer {leaf_index, leaf_count, path}"
	}
	return o
}

// The keys referee adds to upstream's verifier_strictness lists.
var (
	// xZeroSign are y = 1 and y = p - 1 with the sign bit set, x being 0.
	xZeroSign = [2]string{
		"0100000000000000000000000000000000000000000000000000000000000080",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	}
	// nonCanonicalLarge is y = p + 3: reduced mod p, the point y = 3, of
	// large order.
	nonCanonicalLarge = "f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
	// offCurveKey is y = 2, for which no x is on the curve.
	offCurveKey = "0200000000000000000000000000000000000000000000000000000000000000"
)
