package cgpvectors

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// The provenance attestation ops (SPEC §6.5).
const (
	OpEncodeLink        = "encodeLink"
	OpChainHead         = "chainHead"
	OpFrameCommitment   = "frameCommitment"
	OpMerkleRoot        = "merkleRoot"
	OpResultRoot        = "resultRoot"
	OpInclusionProof    = "inclusionProof"
	OpVerifyInclusion   = "verifyInclusion"
	OpSignCommitment    = "signCommitment"
	OpVerifyAttestation = "verifyAttestation"
)

// ProvenanceVectorsFile is upstream's cross-language provenance attestation
// vectors (tests/vectors/attestation-vectors.json in the newer index).
const ProvenanceVectorsFile = "attestation-vectors.json"

// VecLink is a provenance link of the vectors, as the file spells it and as
// the Go reference reads it.
type VecLink struct {
	Name  string
	Value canon.Value
	Link  cgp.Link
}

// VecFrame is a frame of the vectors: only its identity and provenance
// enter a commitment.
type VecFrame struct {
	ID            string
	ContentDigest *string
	Provenance    []VecLink
}

// Commitment is the frame's commitment under providerID, by the Go reference.
func (f VecFrame) Commitment(providerID string) cgp.Hash {
	return cgp.FrameCommitment(providerID, f.ID, f.ContentDigest, cgp.ChainHead(links(f.Provenance)))
}

func links(ls []VecLink) []cgp.Link {
	out := make([]cgp.Link, len(ls))
	for i, l := range ls {
		out[i] = l.Link
	}
	return out
}

// LengthTrap is one string of unicode_length_trap: its three lengths.
type LengthTrap struct {
	Field                        string
	UTF8, CodePoints, UTF16Units int
}

// ProvenanceVectors is attestation-vectors.json, read strictly and checked
// against the Go reference value by value.
type ProvenanceVectors struct {
	Links      []VecLink         // in file order
	Encodings  map[string]string // link name -> hex, link_encodings_hex
	TrapLink   string            // the link unicode_length_trap is about
	Trap       []LengthTrap
	Chains     []Chain
	Provider   string // frame_commitment.provider_id
	Frame      VecFrame
	Commitment string

	MerkleProvider string
	LeafFrames     []VecFrame
	Roots          map[int]string // roots_by_leaf_count
	RootCounts     []int          // in file order
	Proof          cgp.InclusionProof

	Seed        []byte
	PublicKey   string
	Attestation cgp.ProvenanceAttestation

	SmallOrder   []string
	NonCanonical []string

	built []check.Check // the checks, built once by ReadProvenance
}

// Chain is one of chain_heads: the links its name lists and their head.
type Chain struct {
	Name  string
	Links []VecLink
	Head  string
}

// ReadProvenance reads attestation-vectors.json strictly and recomputes
// every value in it with protocols/cgp; a value the Go reference disagrees
// with is a corpus error naming its key.
func ReadProvenance(c *corpus.Corpus) (*ProvenanceVectors, error) {
	return readProvenance(c, ProvenanceVectorsFile)
}

// readProvenance is ReadProvenance of the file at path in c.
func readProvenance(c *corpus.Corpus, path string) (*ProvenanceVectors, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, path)
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("%s: %s: %s", where, key, fmt.Sprintf(format, args...))
	}
	v, err := readValue(c, path)
	if err != nil {
		return nil, err
	}
	top, err := fields(v, where, "$comment", "domain_tags", "links", "links_note", "link_encodings_hex",
		"unicode_length_trap", "chain_heads", "frame_commitment", "merkle", "signature", "verifier_strictness")
	if err != nil {
		return nil, err
	}
	pv := &ProvenanceVectors{Encodings: map[string]string{}, Roots: map[int]string{}}

	// domain_tags: the Go reference's constants.
	tags, err := fields(top["domain_tags"], where+": domain_tags", "genesis", "link", "frame", "merkle_empty", "merkle_leaf_prefix_hex", "merkle_node_prefix_hex")
	if err != nil {
		return nil, err
	}
	for k, want := range map[string]string{"genesis": cgp.DomainGenesis, "link": cgp.DomainLink, "frame": cgp.DomainFrame,
		"merkle_empty": cgp.DomainMerkleEmpty, "merkle_leaf_prefix_hex": "00", "merkle_node_prefix_hex": "01"} {
		if tags[k].Kind != canon.String || tags[k].Str != want {
			return nil, bad("domain_tags."+k, "is %s; the Go reference uses %q", tags[k].String(), want)
		}
	}

	// links.
	if top["links"].Kind != canon.Object || len(top["links"].Members) == 0 {
		return nil, bad("links", "is not a non-empty object of named links")
	}
	byName := map[string]VecLink{}
	for _, m := range top["links"].Members {
		l, err := readLink(m.Value)
		if err != nil {
			return nil, bad("links."+m.Key, "%v", err)
		}
		if _, dup := byName[m.Key]; dup {
			return nil, bad("links."+m.Key, "is named twice")
		}
		byName[m.Key] = VecLink{Name: m.Key, Value: m.Value, Link: l}
		pv.Links = append(pv.Links, byName[m.Key])
	}
	named := func(key string, v canon.Value) ([]VecLink, error) {
		if v.Kind != canon.Array {
			return nil, bad(key, "is not an array of link names")
		}
		var out []VecLink
		for i, e := range v.Elems {
			l, ok := byName[e.Str]
			if e.Kind != canon.String || !ok {
				return nil, bad(fmt.Sprintf("%s[%d]", key, i), "%s is not the name of one of links", e.String())
			}
			out = append(out, l)
		}
		return out, nil
	}

	// link_encodings_hex.
	if top["link_encodings_hex"].Kind != canon.Object {
		return nil, bad("link_encodings_hex", "is not an object")
	}
	for _, m := range top["link_encodings_hex"].Members {
		key := "link_encodings_hex." + m.Key
		l, ok := byName[m.Key]
		if !ok || m.Value.Kind != canon.String {
			return nil, bad(key, "names no link, or is not a string")
		}
		if got := hex.EncodeToString(cgp.EncodeLink(l.Link)); got != m.Value.Str {
			return nil, bad(key, "is %s; the Go reference encodes the link as %s", m.Value.Str, got)
		}
		pv.Encodings[m.Key] = m.Value.Str
	}

	// unicode_length_trap: the lengths of the unicode link's strings.
	if top["unicode_length_trap"].Kind != canon.Object {
		return nil, bad("unicode_length_trap", "is not an object")
	}
	pv.TrapLink = "unicode"
	trapLink, ok := byName[pv.TrapLink]
	if !ok {
		return nil, bad("unicode_length_trap", "is about the link named unicode, and links has none")
	}
	for _, m := range top["unicode_length_trap"].Members {
		if m.Key == "$comment" {
			continue
		}
		key := "unicode_length_trap." + m.Key
		f, err := fields(m.Value, where+": "+key, "utf8_bytes", "code_points", "utf16_code_units")
		if err != nil {
			return nil, err
		}
		s, ok := trapLink.Value.Lookup(m.Key)
		if !ok || s.Kind != canon.String {
			return nil, bad(key, "the unicode link has no string %s", m.Key)
		}
		t := LengthTrap{Field: m.Key, UTF8: len(s.Str), CodePoints: canon.CodePoints(s.Str), UTF16Units: canon.UTF16Len(s.Str)}
		for k, n := range map[string]int{"utf8_bytes": t.UTF8, "code_points": t.CodePoints, "utf16_code_units": t.UTF16Units} {
			if f[k].Kind != canon.Number || f[k].Num != strconv.Itoa(n) {
				return nil, bad(key+"."+k, "is %s; %q has %d", f[k].String(), s.Str, n)
			}
		}
		pv.Trap = append(pv.Trap, t)
	}

	// chain_heads: a name is "empty" or link names joined by "_then_".
	if top["chain_heads"].Kind != canon.Object {
		return nil, bad("chain_heads", "is not an object")
	}
	for _, m := range top["chain_heads"].Members {
		key := "chain_heads." + m.Key
		ch := Chain{Name: m.Key, Head: m.Value.Str}
		if m.Key != "empty" {
			for _, n := range strings.Split(m.Key, "_then_") {
				l, ok := byName[n]
				if !ok {
					return nil, bad(key, "names no chain: %q is not one of links (a chain is \"empty\" or link names joined by _then_)", n)
				}
				ch.Links = append(ch.Links, l)
			}
		}
		if m.Value.Kind != canon.String {
			return nil, bad(key, "is not a string")
		}
		if got := cgp.ChainHead(links(ch.Links)).String(); got != ch.Head {
			return nil, bad(key, "is %s; the Go reference folds the chain to %s", ch.Head, got)
		}
		pv.Chains = append(pv.Chains, ch)
	}

	// frame_commitment.
	fc, err := fields(top["frame_commitment"], where+": frame_commitment", "provider_id", "frame", "frame_note", "commitment")
	if err != nil {
		return nil, err
	}
	if fc["provider_id"].Kind != canon.String || fc["commitment"].Kind != canon.String {
		return nil, bad("frame_commitment", "provider_id and commitment must be strings")
	}
	pv.Provider, pv.Commitment = fc["provider_id"].Str, fc["commitment"].Str
	if pv.Frame, err = readVecFrame(fc["frame"], "frame_commitment.frame", named, bad); err != nil {
		return nil, err
	}
	if got := pv.Frame.Commitment(pv.Provider).String(); got != pv.Commitment {
		return nil, bad("frame_commitment.commitment", "is %s; the Go reference commits the frame to %s", pv.Commitment, got)
	}

	// merkle.
	mk, err := fields(top["merkle"], where+": merkle", "provider_id", "leaf_frames", "roots_by_leaf_count", "roots_note", "inclusion_proof")
	if err != nil {
		return nil, err
	}
	if mk["provider_id"].Kind != canon.String || mk["leaf_frames"].Kind != canon.Array || mk["roots_by_leaf_count"].Kind != canon.Object {
		return nil, bad("merkle", "provider_id must be a string, leaf_frames an array, roots_by_leaf_count an object")
	}
	pv.MerkleProvider = mk["provider_id"].Str
	var leaves []cgp.Hash
	for i, e := range mk["leaf_frames"].Elems {
		f, err := readVecFrame(e, fmt.Sprintf("merkle.leaf_frames[%d]", i), named, bad)
		if err != nil {
			return nil, err
		}
		pv.LeafFrames = append(pv.LeafFrames, f)
		leaves = append(leaves, f.Commitment(pv.MerkleProvider))
	}
	for _, m := range mk["roots_by_leaf_count"].Members {
		key := "merkle.roots_by_leaf_count." + m.Key
		n, err := strconv.Atoi(m.Key)
		if err != nil || n < 0 || strconv.Itoa(n) != m.Key || n > len(leaves) || m.Value.Kind != canon.String {
			return nil, bad(key, "is not a string root for a count of at most %d leaf_frames", len(leaves))
		}
		if got := cgp.MerkleRoot(leaves[:n]).String(); got != m.Value.Str {
			return nil, bad(key, "is %s; the Go reference's root of the first %d leaf_frames is %s", m.Value.Str, n, got)
		}
		pv.Roots[n] = m.Value.Str
		pv.RootCounts = append(pv.RootCounts, n)
	}
	if pv.Proof, err = readProof(mk["inclusion_proof"]); err != nil {
		return nil, bad("merkle.inclusion_proof", "%v", err)
	}
	p := pv.Proof
	if p.LeafCount == 0 || p.LeafCount > uint64(len(leaves)) || p.LeafIndex >= p.LeafCount {
		return nil, bad("merkle.inclusion_proof", "leaf %d of %d: want a leaf of the first leaf_count of %d leaf_frames", p.LeafIndex, p.LeafCount, len(leaves))
	}
	mine, _ := cgp.Prove(leaves[:p.LeafCount], int(p.LeafIndex))
	if a, b := proofJSON(mine), proofJSON(p); a != b {
		return nil, bad("merkle.inclusion_proof", "is %s; the Go reference proves leaf %d of %d as %s", b, p.LeafIndex, p.LeafCount, a)
	}
	if root, ok := pv.Roots[int(p.LeafCount)]; ok {
		if got, err := cgp.ProofRoot(leaves[p.LeafIndex], p); err != nil || got.String() != root {
			return nil, bad("merkle.inclusion_proof", "does not replay to roots_by_leaf_count.%d", p.LeafCount)
		}
	}

	// signature.
	sg, err := fields(top["signature"], where+": signature", "$comment", "signing_key_seed_hex", "public_key_hex", "attestation")
	if err != nil {
		return nil, err
	}
	seed, err := hex.DecodeString(sg["signing_key_seed_hex"].Str)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, bad("signature.signing_key_seed_hex", "is not 32 bytes of hex")
	}
	pv.Seed = seed
	pub := hex.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	if pv.PublicKey = sg["public_key_hex"].Str; pv.PublicKey != pub {
		return nil, bad("signature.public_key_hex", "is %s; the seed's public key is %s", pv.PublicKey, pub)
	}
	if pv.Attestation, err = readAttestation(sg["attestation"]); err != nil {
		return nil, bad("signature.attestation", "%v", err)
	}
	a := pv.Attestation
	if a.SignedCommitment != pv.Commitment {
		return nil, bad("signature.attestation.signed_commitment", "is %s, not frame_commitment.commitment (%s)", a.SignedCommitment, pv.Commitment)
	}
	signed, _ := cgp.ParseHash(a.SignedCommitment)
	if want, _ := cgp.SignCommitment(seed, signed); a.Signature != want {
		return nil, bad("signature.attestation.signature", "is %s; the Go reference signs the commitment as %s", a.Signature, want)
	}
	if vd := cgp.VerifyAttestation(a, signed, pv.PublicKey); vd.Kind != cgp.VerdictValid {
		return nil, bad("signature.attestation", "the Go reference's verdict is %s, not Valid", vd)
	}

	// verifier_strictness: every key is refused by the Go reference, and is
	// what it says: small-order keys are canonical points P with 8P =
	// identity, non-canonical ones have y at or above p.
	vs, err := fields(top["verifier_strictness"], where+": verifier_strictness", "$comment", "small_order_public_keys_hex", "non_canonical_public_keys_hex", "non_canonical_note")
	if err != nil {
		return nil, err
	}
	for _, list := range []struct {
		key       string
		out       *[]string
		canonical bool
	}{{"small_order_public_keys_hex", &pv.SmallOrder, true}, {"non_canonical_public_keys_hex", &pv.NonCanonical, false}} {
		if vs[list.key].Kind != canon.Array || len(vs[list.key].Elems) == 0 {
			return nil, bad("verifier_strictness."+list.key, "is not a non-empty array")
		}
		for i, e := range vs[list.key].Elems {
			key := fmt.Sprintf("verifier_strictness.%s[%d]", list.key, i)
			b, err := hex.DecodeString(e.Str)
			switch {
			case e.Kind != canon.String || err != nil || len(b) != ed25519.PublicKeySize || strings.ToLower(e.Str) != e.Str:
				return nil, bad(key, "%s is not 64 lowercase hex digits", e.String())
			case !cgp.WeakPublicKey(b):
				return nil, bad(key, "the Go reference does not refuse %s", e.Str)
			case edCanonical(b) != list.canonical:
				return nil, bad(key, "%s: its y is %s p", e.Str, map[bool]string{true: "below", false: "at or above"}[edCanonical(b)])
			case list.canonical && !edSmallOrder(b):
				return nil, bad(key, "%s is not a point P with 8P = identity", e.Str)
			}
			*list.out = append(*list.out, e.Str)
		}
	}
	// Building the checks is also the last consistency check: it fails if
	// the Go reference disagrees with a value one of them expects.
	if pv.built, err = pv.checks(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return pv, nil
}

// readLink reads a link object: a string type and optional strings uri,
// range, digest, method and by; an absent member is None, "" is Some("").
func readLink(v canon.Value) (cgp.Link, error) {
	if v.Kind != canon.Object {
		return cgp.Link{}, fmt.Errorf("a link is an object, not %s", v.Kind)
	}
	var l cgp.Link
	hasType := false
	for _, m := range v.Members {
		if m.Value.Kind != canon.String {
			return cgp.Link{}, fmt.Errorf("%s is %s, not a string", m.Key, m.Value.Kind)
		}
		s := m.Value.Str
		switch m.Key {
		case "type":
			l.Type, hasType = s, true
		case "uri":
			l.URI = &s
		case "range":
			l.Range = &s
		case "digest":
			l.Digest = &s
		case "method":
			l.Method = &s
		case "by":
			l.By = &s
		default:
			return cgp.Link{}, fmt.Errorf("unknown field %q", m.Key)
		}
	}
	if !hasType {
		return cgp.Link{}, fmt.Errorf("no type")
	}
	return l, nil
}

func readVecFrame(v canon.Value, key string, named func(string, canon.Value) ([]VecLink, error), bad func(string, string, ...any) error) (VecFrame, error) {
	if v.Kind != canon.Object {
		return VecFrame{}, bad(key, "is not an object")
	}
	var f VecFrame
	hasID := false
	for _, m := range v.Members {
		switch m.Key {
		case "id":
			f.ID, hasID = m.Value.Str, m.Value.Kind == canon.String
		case "content_digest":
			if m.Value.Kind != canon.String {
				return VecFrame{}, bad(key+".content_digest", "is not a string")
			}
			d := m.Value.Str
			f.ContentDigest = &d
		case "provenance":
			var err error
			if f.Provenance, err = named(key+".provenance", m.Value); err != nil {
				return VecFrame{}, err
			}
		default:
			return VecFrame{}, bad(key, "unknown field %q", m.Key)
		}
	}
	if !hasID {
		return VecFrame{}, bad(key, "has no string id")
	}
	return f, nil
}

func readProof(v canon.Value) (cgp.InclusionProof, error) {
	f, err := fields(v, "inclusion proof", "leaf_index", "leaf_count", "path")
	if err != nil {
		return cgp.InclusionProof{}, err
	}
	var p cgp.InclusionProof
	for k, out := range map[string]*uint64{"leaf_index": &p.LeafIndex, "leaf_count": &p.LeafCount} {
		n, err := strconv.ParseUint(f[k].Num, 10, 64)
		if f[k].Kind != canon.Number || err != nil {
			return cgp.InclusionProof{}, fmt.Errorf("%s is not a non-negative integer", k)
		}
		*out = n
	}
	if f["path"].Kind != canon.Array {
		return cgp.InclusionProof{}, fmt.Errorf("path is not an array")
	}
	for i, e := range f["path"].Elems {
		s, err := fields(e, fmt.Sprintf("path[%d]", i), "sibling", "sibling_is_left")
		if err != nil {
			return cgp.InclusionProof{}, err
		}
		if s["sibling"].Kind != canon.String || s["sibling_is_left"].Kind != canon.Bool {
			return cgp.InclusionProof{}, fmt.Errorf("path[%d]: sibling is a string and sibling_is_left a boolean", i)
		}
		p.Path = append(p.Path, cgp.ProofStep{Sibling: s["sibling"].Str, SiblingIsLeft: s["sibling_is_left"].Bool})
	}
	return p, nil
}

func readAttestation(v canon.Value) (cgp.ProvenanceAttestation, error) {
	keys := []string{"signed_commitment", "key_id", "algorithm", "attester_id", "signature", "issued_at"}
	f, err := fields(v, "attestation", keys...)
	if err != nil {
		return cgp.ProvenanceAttestation{}, err
	}
	for _, k := range keys {
		if f[k].Kind != canon.String {
			return cgp.ProvenanceAttestation{}, fmt.Errorf("%s is not a string", k)
		}
	}
	return cgp.ProvenanceAttestation{SignedCommitment: f["signed_commitment"].Str, KeyID: f["key_id"].Str, Algorithm: f["algorithm"].Str,
		AttesterID: f["attester_id"].Str, Signature: f["signature"].Str, IssuedAt: f["issued_at"].Str}, nil
}

// proofJSON is an inclusion proof's JSON text, members in wire order.
func proofJSON(p cgp.InclusionProof) string {
	b, _ := cgp.MarshalReference(p)
	return string(b)
}

// forgery is a signature that a verifier without the strict key check
// accepts under a weak key, over a message of referee's.
type forgery struct {
	commitment cgp.Hash
	signature  string
}

// forge finds, for a small-order (or non-canonical) key, a commitment and a
// signature R || S with S = 0 and R one of the small-order points, that
// crypto/ed25519 (and so any verifier that skips the strict checks)
// accepts: R = -[k]A holds for one R in eight or so. ok is false when none
// turns up in 64 commitments.
func forge(key string, torsion []string) (forgery, bool) {
	k, _ := hex.DecodeString(key)
	for n := range 64 {
		c := cgp.Hash(sha256.Sum256([]byte("referee/cgp-vectors/weak-key-forgery/" + key + "/" + strconv.Itoa(n))))
		for _, r := range torsion {
			sig, _ := hex.DecodeString(r + strings.Repeat("00", 32))
			if ed25519.Verify(k, c[:], sig) {
				return forgery{c, hex.EncodeToString(sig)}, true
			}
		}
	}
	return forgery{}, false
}

// encodeWith is a link's attestation encoding with lengths counted by n:
// for the unicode trap's wrong answers.
func encodeWith(l cgp.Link, n func(string) int) []byte {
	b := appendLenPrefixed(nil, l.Type, n)
	for _, s := range []*string{l.URI, l.Range, l.Digest, l.Method, l.By} {
		if s == nil {
			b = append(b, 0)
		} else {
			b = appendLenPrefixed(append(b, 1), *s, n)
		}
	}
	return b
}

// appendLenPrefixed appends enc_str(s) with n(s) as its length: UTF-8 bytes
// for the real encoding, another count for a broken one.
func appendLenPrefixed(b []byte, s string, n func(string) int) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(n(s))), s...)
}
