package cgpvectors

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/protocols/cgp"
)

// The built-in adapter's provenance attestation ops: protocols/cgp, or one
// of the modes' mistakes.

type linkRule uint8

const (
	linkUTF8          linkRule = iota // u32be UTF-8 byte lengths, absent 00, present 01
	linkUTF16                         // lengths in UTF-16 code units
	linkCodePoints                    // lengths in code points
	linkEmptyAsAbsent                 // "" read as absent
	linkAbsentAsEmpty                 // absent read as ""
)

type chainRule uint8

const (
	chainRight       chainRule = iota
	chainReverse               // folded last link first
	chainZeroGenesis           // folded from 32 zero bytes
)

type commitRule uint8

const (
	commitRight        commitRule = iota
	commitNoDigestFlag            // content_digest without its presence byte
	commitBindsContent            // content bound too, as enc_opt after content_digest
)

type merkleRule uint8

const (
	merkleRFC6962   merkleRule = iota
	merkleDupLast              // odd levels padded with their last node
	merkleNoPrefix             // leaf and node hashes without 00 and 01
	merkleRFCEmpty             // the empty tree is SHA-256 of nothing, as RFC 6962 has it
	merkleSplitHalf            // a tree of n leaves split at ceil(n/2)
)

type orderRule uint8

const (
	orderFrameID orderRule = iota // canonical FrameId order, strings by bytes
	orderArrival                  // as the frames arrive
	orderUTF16                    // frame ids by UTF-16 code units
)

type proofRule uint8

const (
	proofRight       proofRule = iota
	proofRootFirst             // the path listed root first
	proofIgnoreSides           // sides taken from leaf_index, sibling_is_left ignored
	proofFollowFlags           // sibling_is_left followed, leaf_index and leaf_count ignored
)

type verdictRule uint8

const (
	verdictStrict     verdictRule = iota
	verdictLenient                // small-order and non-canonical points accepted
	verdictCoarse                 // only Valid, CommitmentMismatch, BadSignature
	verdictSigned                 // signs and verifies the domain tag and the 32 bytes
	verdictListed                 // a key is weak when it is one of the eight small-order encodings or has y ≥ p
	verdictReduceY                // y reduced mod p first, then small order refused
	verdictNoRCheck               // the key checked strictly, R never
	verdictUnreducedS             // S reduced mod L instead of S ≥ L refused
	verdictPrimeOrder             // a key with a small-order component refused too
)

// weakKey is whether the verdict rule refuses a 32-byte point encoding as
// a key (or R).
func (r verdictRule) weakKey(b []byte) bool {
	switch r {
	case verdictLenient:
		return false
	case verdictListed:
		return listedWeak(b)
	case verdictReduceY:
		if len(b) != 32 {
			return true
		}
		if edCanonical(b) {
			return cgp.WeakPublicKey(b)
		}
		return edSmallOrder(b) // decoded with y reduced mod p
	}
	return cgp.WeakPublicKey(b)
}

// listedWeak is a strictness check by list: the eight canonical small-order
// encodings and a y at or above p, and nothing else (not x = 0 with the
// sign bit set, not a y off the curve).
func listedWeak(b []byte) bool {
	return cgp.IsSmallOrder(b) || len(b) != 32 || !edCanonical(b)
}

// provRules is how the built-in adapter computes provenance attestations.
type provRules struct {
	link    linkRule
	chain   chainRule
	commit  commitRule
	merkle  merkleRule
	order   orderRule
	proof   proofRule
	verdict verdictRule
}

// provFrame is a frame argument: its identity, provenance and content.
type provFrame struct {
	id            string
	contentDigest *string
	content       *string
	provenance    []cgp.Link
}

func (h *Handler) readLink(v canon.Value, where string) (cgp.Link, *adapter.Error) {
	if v.Kind != canon.Object {
		return cgp.Link{}, badArgs(where + " is not a link object")
	}
	var l cgp.Link
	hasType := false
	for _, m := range v.Members {
		if m.Value.Kind == canon.Null {
			continue // an Option's null is None
		}
		if m.Value.Kind != canon.String {
			return cgp.Link{}, badArgs(where + "." + m.Key + " is not a string")
		}
		s := m.Value.Str
		if s == "" && h.mode.prov.link == linkEmptyAsAbsent && m.Key != "type" {
			continue
		}
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
		}
	}
	if !hasType {
		return cgp.Link{}, badArgs(where + " has no string type")
	}
	if h.mode.prov.link == linkAbsentAsEmpty {
		for _, p := range []**string{&l.URI, &l.Range, &l.Digest, &l.Method, &l.By} {
			if *p == nil {
				*p = new(string)
			}
		}
	}
	return l, nil
}

func (h *Handler) readLinks(v canon.Value, where string) ([]cgp.Link, *adapter.Error) {
	if v.Kind != canon.Array {
		return nil, badArgs(where + " is not an array of links")
	}
	out := make([]cgp.Link, len(v.Elems))
	for i, e := range v.Elems {
		l, err := h.readLink(e, where+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

func (h *Handler) readFrame(v canon.Value, where string) (provFrame, *adapter.Error) {
	if v.Kind != canon.Object {
		return provFrame{}, badArgs(where + " is not an object")
	}
	var f provFrame
	id, ok := v.Lookup("id")
	if !ok || id.Kind != canon.String {
		return provFrame{}, badArgs(where + ".id is not a string")
	}
	f.id = id.Str
	for _, k := range []struct {
		key string
		out **string
	}{{"content_digest", &f.contentDigest}, {"content", &f.content}} {
		if d, ok := v.Lookup(k.key); ok && d.Kind != canon.Null {
			if d.Kind != canon.String {
				return provFrame{}, badArgs(where + "." + k.key + " is not a string")
			}
			s := d.Str
			*k.out = &s
		}
	}
	if p, ok := v.Lookup("provenance"); ok && p.Kind != canon.Null {
		var err *adapter.Error
		if f.provenance, err = h.readLinks(p, where+".provenance"); err != nil {
			return provFrame{}, err
		}
	}
	return f, nil
}

func (h *Handler) strLen(s string) int {
	switch h.mode.prov.link {
	case linkUTF16:
		return canon.UTF16Len(s)
	case linkCodePoints:
		return canon.CodePoints(s)
	}
	return len(s)
}

func (h *Handler) appendStr(b []byte, s string) []byte { return appendLenPrefixed(b, s, h.strLen) }

func (h *Handler) appendOpt(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return h.appendStr(append(b, 1), *s)
}

func (h *Handler) encodeLink(l cgp.Link) []byte {
	if h.mode.prov.link == linkUTF8 {
		return cgp.EncodeLink(l)
	}
	return encodeWith(l, h.strLen)
}

func (h *Handler) chainHead(ls []cgp.Link) cgp.Hash {
	r := h.mode.prov
	if r.link == linkUTF8 && r.chain == chainRight {
		return cgp.ChainHead(ls)
	}
	head := cgp.Hash(sha256.Sum256([]byte(cgp.DomainGenesis)))
	if r.chain == chainZeroGenesis {
		head = cgp.Hash{}
	}
	if r.chain == chainReverse {
		ls = slices.Clone(ls)
		slices.Reverse(ls)
	}
	for _, l := range ls {
		head = sha256.Sum256(append(append([]byte(cgp.DomainLink), head[:]...), h.encodeLink(l)...))
	}
	return head
}

func (h *Handler) commitment(providerID string, f provFrame) cgp.Hash {
	r := h.mode.prov
	head := h.chainHead(f.provenance)
	if r.link == linkUTF8 && r.commit == commitRight {
		return cgp.FrameCommitment(providerID, f.id, f.contentDigest, head)
	}
	b := h.appendStr([]byte(cgp.DomainFrame), providerID)
	b = h.appendStr(b, f.id)
	switch {
	case r.commit == commitNoDigestFlag && f.contentDigest != nil:
		b = h.appendStr(b, *f.contentDigest)
	case r.commit == commitNoDigestFlag:
	default:
		b = h.appendOpt(b, f.contentDigest)
	}
	if r.commit == commitBindsContent {
		b = h.appendOpt(b, f.content)
	}
	return sha256.Sum256(append(b, head[:]...))
}

func (h *Handler) leafHash(c cgp.Hash) cgp.Hash {
	if h.mode.prov.merkle == merkleNoPrefix {
		return sha256.Sum256(c[:])
	}
	return sha256.Sum256(append([]byte{0}, c[:]...))
}

func (h *Handler) nodeHash(l, r cgp.Hash) cgp.Hash {
	if h.mode.prov.merkle == merkleNoPrefix {
		return sha256.Sum256(append(slices.Clone(l[:]), r[:]...))
	}
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

// split is RFC 6962's: the largest power of two below n.
func split(n int) int {
	k := 1
	for k*2 < n {
		k *= 2
	}
	return k
}

// splitAt is where the handler splits a tree of n leaves.
func (h *Handler) splitAt(n int) int {
	if h.mode.prov.merkle == merkleSplitHalf {
		return (n + 1) / 2
	}
	return split(n)
}

func (h *Handler) merkleRoot(leaves []cgp.Hash) cgp.Hash {
	switch h.mode.prov.merkle {
	case merkleRFC6962:
		return cgp.MerkleRoot(leaves)
	case merkleRFCEmpty:
		if len(leaves) == 0 {
			return sha256.Sum256(nil)
		}
		return cgp.MerkleRoot(leaves)
	}
	if len(leaves) == 0 {
		return sha256.Sum256([]byte(cgp.DomainMerkleEmpty))
	}
	if h.mode.prov.merkle == merkleDupLast {
		level := make([]cgp.Hash, len(leaves))
		for i, c := range leaves {
			level[i] = h.leafHash(c)
		}
		for len(level) > 1 {
			if len(level)%2 == 1 {
				level = append(level, level[len(level)-1])
			}
			next := make([]cgp.Hash, len(level)/2)
			for i := range next {
				next[i] = h.nodeHash(level[2*i], level[2*i+1])
			}
			level = next
		}
		return level[0]
	}
	var sub func([]cgp.Hash) cgp.Hash
	sub = func(ls []cgp.Hash) cgp.Hash {
		if len(ls) == 1 {
			return h.leafHash(ls[0])
		}
		k := h.splitAt(len(ls))
		return h.nodeHash(sub(ls[:k]), sub(ls[k:]))
	}
	return sub(leaves)
}

func (h *Handler) prove(leaves []cgp.Hash, index int) cgp.InclusionProof {
	var p cgp.InclusionProof
	if h.mode.prov.merkle == merkleRFC6962 || h.mode.prov.merkle == merkleRFCEmpty {
		p, _ = cgp.Prove(leaves, index)
	} else {
		p = cgp.InclusionProof{LeafIndex: uint64(index), LeafCount: uint64(len(leaves))}
		if h.mode.prov.merkle == merkleDupLast {
			level := make([]cgp.Hash, len(leaves))
			for i, c := range leaves {
				level[i] = h.leafHash(c)
			}
			for i := index; len(level) > 1; i /= 2 {
				if len(level)%2 == 1 {
					level = append(level, level[len(level)-1])
				}
				sib := i ^ 1
				p.Path = append(p.Path, cgp.ProofStep{Sibling: level[sib].String(), SiblingIsLeft: sib < i})
				next := make([]cgp.Hash, len(level)/2)
				for j := range next {
					next[j] = h.nodeHash(level[2*j], level[2*j+1])
				}
				level = next
			}
		} else {
			var walk func(ls []cgp.Hash, i int)
			walk = func(ls []cgp.Hash, i int) {
				if len(ls) == 1 {
					return
				}
				k := h.splitAt(len(ls))
				if i < k {
					walk(ls[:k], i)
					p.Path = append(p.Path, cgp.ProofStep{Sibling: h.merkleRoot(ls[k:]).String()})
				} else {
					walk(ls[k:], i-k)
					p.Path = append(p.Path, cgp.ProofStep{Sibling: h.merkleRoot(ls[:k]).String(), SiblingIsLeft: true})
				}
			}
			walk(leaves, index)
		}
	}
	if h.mode.prov.proof == proofRootFirst {
		p.Path = slices.Clone(p.Path)
		slices.Reverse(p.Path)
	}
	return p
}

// shapeSides are the sides a proof of leaf index of count takes, leaf
// first (true: the sibling is on the left).
func (h *Handler) shapeSides(index, count uint64) []bool {
	var sides []bool
	for count > 1 {
		k := uint64(h.splitAt(int(count)))
		if index < k {
			sides = append(sides, false)
			count = k
		} else {
			sides = append(sides, true)
			index, count = index-k, count-k
		}
	}
	slices.Reverse(sides)
	return sides
}

func (h *Handler) verifyInclusion(leaf cgp.Hash, p cgp.InclusionProof, root cgp.Hash) bool {
	r := h.mode.prov
	if r.merkle == merkleRFC6962 && (r.proof == proofRight || r.proof == proofRootFirst) {
		got, err := cgp.ProofRoot(leaf, p)
		return err == nil && got == root
	}
	sides := make([]bool, len(p.Path))
	for i, s := range p.Path {
		sides[i] = s.SiblingIsLeft
	}
	if r.proof != proofFollowFlags && r.merkle != merkleDupLast {
		if p.LeafCount == 0 || p.LeafIndex >= p.LeafCount || p.LeafCount > 1<<32 {
			return false
		}
		shape := h.shapeSides(p.LeafIndex, p.LeafCount)
		if len(shape) != len(p.Path) || (r.proof != proofIgnoreSides && !slices.Equal(shape, sides)) {
			return false
		}
		sides = shape
	}
	acc := h.leafHash(leaf)
	for i, s := range p.Path {
		sib, err := cgp.ParseHash(s.Sibling)
		if err != nil {
			return false
		}
		if sides[i] {
			acc = h.nodeHash(sib, acc)
		} else {
			acc = h.nodeHash(acc, sib)
		}
	}
	return acc == root
}

// resultLeaves orders frames as the mode does and returns their commitments.
func (h *Handler) resultLeaves(providerID string, frames []provFrame) []cgp.Hash {
	frames = slices.Clone(frames)
	cmpStr := strings.Compare
	if h.mode.prov.order == orderUTF16 {
		cmpStr = func(a, b string) int { return slices.Compare(utf16Units(a), utf16Units(b)) }
	}
	if h.mode.prov.order != orderArrival {
		slices.SortStableFunc(frames, func(a, b provFrame) int {
			if c := cmpStr(a.id, b.id); c != 0 {
				return c
			}
			switch {
			case a.contentDigest == nil && b.contentDigest == nil:
				return 0
			case a.contentDigest == nil:
				return -1
			case b.contentDigest == nil:
				return 1
			}
			return cmpStr(*a.contentDigest, *b.contentDigest)
		})
	}
	out := make([]cgp.Hash, len(frames))
	for i, f := range frames {
		out[i] = h.commitment(providerID, f)
	}
	return out
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

func (h *Handler) signCommitment(seed []byte, c cgp.Hash) (string, error) {
	if h.mode.prov.verdict != verdictSigned {
		return cgp.SignCommitment(seed, c)
	}
	if len(seed) != ed25519.SeedSize {
		return cgp.SignCommitment(seed, c) // its error
	}
	return hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), append([]byte(cgp.DomainFrame), c[:]...))), nil
}

// verifyProvenance is cgp.VerifyAttestation, or the mode's mistake, and
// returns the verdict's name.
func (h *Handler) verifyProvenance(a cgp.ProvenanceAttestation, expected cgp.Hash, keyHex string) string {
	r := h.mode.prov
	if r.verdict == verdictStrict && h.mode.attest == attestRight {
		return cgp.VerifyAttestation(a, expected, keyHex).Kind
	}
	var key, sig []byte
	var signed cgp.Hash
	algorithm := func() string {
		if a.Algorithm != "ed25519" {
			return cgp.VerdictUnknownAlgorithm
		}
		return ""
	}
	keyForm := func() string {
		var err error
		key, err = hex.DecodeString(keyHex)
		if err != nil || len(key) != ed25519.PublicKeySize || strings.ToLower(keyHex) != keyHex || r.verdict.weakKey(key) {
			return cgp.VerdictMalformedKey
		}
		if r.verdict == verdictPrimeOrder && !edPrimeOrder(key) {
			return cgp.VerdictMalformedKey
		}
		return ""
	}
	commitmentForm := func() string {
		var err error
		if signed, err = cgp.ParseHash(a.SignedCommitment); err != nil {
			return cgp.VerdictMalformedCommitment
		}
		return ""
	}
	commitment := func() string {
		if h.mode.attest != attestNoCommitment && signed != expected {
			return cgp.VerdictCommitmentMismatch
		}
		return ""
	}
	signatureForm := func() string {
		var err error
		sig, err = hex.DecodeString(a.Signature)
		if err != nil || len(sig) != ed25519.SignatureSize || strings.ToLower(a.Signature) != a.Signature {
			return cgp.VerdictMalformedSignature
		}
		return ""
	}
	signature := func() string {
		if h.mode.attest == attestNoSignature {
			return ""
		}
		msg := signed[:]
		if r.verdict == verdictSigned {
			msg = append([]byte(cgp.DomainFrame), msg...)
		}
		if r.verdict == verdictUnreducedS {
			sig = reducedS(sig)
		}
		if (r.verdict != verdictNoRCheck && r.verdict.weakKey(sig[:32])) || !ed25519.Verify(key, msg, sig) {
			return cgp.VerdictBadSignature
		}
		return ""
	}
	steps := []func() string{algorithm, keyForm, commitmentForm, commitment, signatureForm, signature}
	if h.mode.attest == attestSignatureFirst {
		steps = []func() string{algorithm, keyForm, commitmentForm, signatureForm, signature, commitment}
	}
	verdict := cgp.VerdictValid
	for _, step := range steps {
		if v := step(); v != "" {
			verdict = v
			break
		}
	}
	if r.verdict == verdictCoarse {
		switch verdict {
		case cgp.VerdictUnknownAlgorithm, cgp.VerdictMalformedKey, cgp.VerdictMalformedSignature:
			verdict = cgp.VerdictBadSignature
		case cgp.VerdictMalformedCommitment:
			verdict = cgp.VerdictCommitmentMismatch
		}
	}
	return verdict
}

func hashArg(v canon.Value, where string) (cgp.Hash, *adapter.Error) {
	if v.Kind != canon.String {
		return cgp.Hash{}, badArgs(where + " is not a string")
	}
	c, err := cgp.ParseHash(v.Str)
	if err != nil {
		return cgp.Hash{}, badArgs(where + ": " + err.Error())
	}
	return c, nil
}

func hashesArg(v canon.Value, where string) ([]cgp.Hash, *adapter.Error) {
	if v.Kind != canon.Array {
		return nil, badArgs(where + " is not an array of sha256: strings")
	}
	out := make([]cgp.Hash, len(v.Elems))
	for i, e := range v.Elems {
		c, err := hashArg(e, where+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// handleProvenance performs the provenance attestation ops; ok is false
// for any other op.
func (h *Handler) handleProvenance(op string, a canon.Value) (json.RawMessage, *adapter.Error, bool) {
	arg := func(k string) canon.Value {
		v, _ := a.Lookup(k)
		return v
	}
	str := func(s string) (json.RawMessage, *adapter.Error, bool) {
		out, err := marshalString(s)
		return out, err, true
	}
	switch op {
	case OpEncodeLink:
		l, err := h.readLink(arg("link"), "args.link")
		if err != nil {
			return nil, err, true
		}
		return str(hex.EncodeToString(h.encodeLink(l)))
	case OpChainHead:
		ls, err := h.readLinks(arg("links"), "args.links")
		if err != nil {
			return nil, err, true
		}
		return str(h.chainHead(ls).String())
	case OpFrameCommitment, OpResultRoot:
		p := arg("provider_id")
		if p.Kind != canon.String {
			return nil, badArgs("args.provider_id is not a string"), true
		}
		if op == OpFrameCommitment {
			f, err := h.readFrame(arg("frame"), "args.frame")
			if err != nil {
				return nil, err, true
			}
			return str(h.commitment(p.Str, f).String())
		}
		fs := arg("frames")
		if fs.Kind != canon.Array {
			return nil, badArgs("args.frames is not an array"), true
		}
		frames := make([]provFrame, len(fs.Elems))
		for i, e := range fs.Elems {
			f, err := h.readFrame(e, "args.frames["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err, true
			}
			frames[i] = f
		}
		return str(h.merkleRoot(h.resultLeaves(p.Str, frames)).String())
	case OpMerkleRoot:
		leaves, err := hashesArg(arg("leaves"), "args.leaves")
		if err != nil {
			return nil, err, true
		}
		return str(h.merkleRoot(leaves).String())
	case OpInclusionProof:
		leaves, err := hashesArg(arg("leaves"), "args.leaves")
		if err != nil {
			return nil, err, true
		}
		i := arg("index")
		n, ok := smallInt(i)
		if !ok || n >= len(leaves) {
			return nil, badArgs("args.index is not the index of one of args.leaves"), true
		}
		out, _ := cgp.MarshalReference(h.prove(leaves, n))
		return out, nil, true
	case OpVerifyInclusion:
		leaf, err := hashArg(arg("leaf"), "args.leaf")
		if err != nil {
			return nil, err, true
		}
		root, err := hashArg(arg("root"), "args.root")
		if err != nil {
			return nil, err, true
		}
		var p cgp.InclusionProof
		if e := json.Unmarshal([]byte(arg("proof").String()), &p); e != nil || arg("proof").Kind != canon.Object {
			return nil, badArgs("args.proof is not an inclusion proof"), true
		}
		if h.verifyInclusion(leaf, p, root) {
			return json.RawMessage(`{"valid":true}`), nil, true
		}
		return json.RawMessage(`{"valid":false,"message":"the proof does not lead to the root"}`), nil, true
	case OpSignCommitment:
		s := arg("seed")
		seed, herr := hex.DecodeString(s.Str)
		if s.Kind != canon.String || herr != nil || len(seed) != ed25519.SeedSize {
			return nil, badArgs("args.seed is not 32 bytes of hex"), true
		}
		c, err := hashArg(arg("commitment"), "args.commitment")
		if err != nil {
			return nil, err, true
		}
		sig, _ := h.signCommitment(seed, c)
		return str(sig)
	case OpVerifyAttestation:
		var att cgp.ProvenanceAttestation
		if e := json.Unmarshal([]byte(arg("attestation").String()), &att); e != nil || arg("attestation").Kind != canon.Object {
			return nil, badArgs("args.attestation is not an attestation object"), true
		}
		c, err := hashArg(arg("expected_commitment"), "args.expected_commitment")
		if err != nil {
			return nil, err, true
		}
		k := arg("public_key")
		if k.Kind != canon.String {
			return nil, badArgs("args.public_key is not a string"), true
		}
		return str(h.verifyProvenance(att, c, k.Str))
	}
	return nil, nil, false
}

// smallInt reads a JSON number that is a non-negative integer below 2^31.
func smallInt(v canon.Value) (int, bool) {
	if v.Kind != canon.Number || v.Num == "" || len(v.Num) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(v.Num) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n >= 1<<31 || (len(v.Num) > 1 && v.Num[0] == '0') {
		return 0, false
	}
	return n, true
}
