package cgp

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Frame provenance attestation (SPEC §6.5): a length-prefixed binary
// encoding of provenance links (not JCS), a hash chain over them, a
// commitment per frame, an RFC 6962 Merkle root over a result's commitments
// in canonical FrameID order, and Ed25519 over the raw 32 bytes.

// The attestation domain tags.
const (
	DomainGenesis     = "contextgraph/attest/1/genesis"
	DomainLink        = "contextgraph/attest/1/link"
	DomainFrame       = "contextgraph/attest/1/frame"
	DomainMerkleEmpty = "contextgraph/attest/1/merkle-empty"
)

// Hash is a SHA-256 value.
type Hash [sha256.Size]byte

// String returns the hash as "sha256:<64 lowercase hex>".
func (h Hash) String() string { return "sha256:" + hex.EncodeToString(h[:]) }

// ParseHash reads "sha256:<64 lowercase hex>".
func ParseHash(s string) (Hash, error) {
	var h Hash
	hexPart, ok := strings.CutPrefix(s, "sha256:")
	raw, err := hex.DecodeString(hexPart)
	if !ok || err != nil || len(raw) != sha256.Size || strings.ToLower(hexPart) != hexPart {
		return h, fmt.Errorf("%q is not sha256: and 64 lowercase hex digits", s)
	}
	copy(h[:], raw)
	return h, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendOpt(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendStr(append(b, 1), *s)
}

// EncodeLink is a link's attestation encoding: its type, then uri, range,
// digest, method and by, each absent (00) or present (01, u32be length, UTF-8).
func EncodeLink(l Link) []byte {
	b := appendStr(nil, l.Type)
	for _, s := range []*string{l.URI, l.Range, l.Digest, l.Method, l.By} {
		b = appendOpt(b, s)
	}
	return b
}

// ChainHead folds a provenance chain, source first, from the genesis hash.
func ChainHead(links []Link) Hash {
	h := Hash(sha256.Sum256([]byte(DomainGenesis)))
	for _, l := range links {
		msg := append(append([]byte(DomainLink), h[:]...), EncodeLink(l)...)
		h = sha256.Sum256(msg)
	}
	return h
}

// FrameCommitment binds a frame's identity and provenance chain; providerID
// is the provider's handshake name.
func FrameCommitment(providerID, frameID string, contentDigest *string, head Hash) Hash {
	b := appendStr([]byte(DomainFrame), providerID)
	b = appendStr(b, frameID)
	b = appendOpt(b, contentDigest)
	return sha256.Sum256(append(b, head[:]...))
}

// CommitmentOf is the commitment of a served frame.
func CommitmentOf(providerID string, f *ContextFrame) Hash {
	return FrameCommitment(providerID, f.ID, f.ContentDigest, ChainHead(f.Provenance))
}

func leafHash(c Hash) Hash { return sha256.Sum256(append([]byte{0}, c[:]...)) }

func nodeHash(l, r Hash) Hash {
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

// splitPoint is the largest power of two below n (n > 1).
func splitPoint[T int | uint64](n T) T {
	k := T(1)
	for k*2 < n {
		k *= 2
	}
	return k
}

// MerkleRoot is the RFC 6962 root over the leaves, in the order given; the
// empty tree's root is the hash of the merkle-empty tag.
func MerkleRoot(leaves []Hash) Hash {
	if len(leaves) == 0 {
		return sha256.Sum256([]byte(DomainMerkleEmpty))
	}
	return subtree(leaves)
}

func subtree(leaves []Hash) Hash {
	if len(leaves) == 1 {
		return leafHash(leaves[0])
	}
	k := splitPoint(len(leaves))
	return nodeHash(subtree(leaves[:k]), subtree(leaves[k:]))
}

// Prove returns the inclusion proof of leaves[index] (RFC 6962 audit path,
// the sibling nearest the leaf first).
func Prove(leaves []Hash, index int) (InclusionProof, error) {
	if index < 0 || index >= len(leaves) {
		return InclusionProof{}, fmt.Errorf("leaf %d of %d", index, len(leaves))
	}
	p := InclusionProof{LeafIndex: uint64(index), LeafCount: uint64(len(leaves))}
	var walk func(ls []Hash, i int)
	walk = func(ls []Hash, i int) {
		if len(ls) == 1 {
			return
		}
		k := splitPoint(len(ls))
		if i < k {
			walk(ls[:k], i)
			p.Path = append(p.Path, ProofStep{Sibling: subtree(ls[k:]).String(), SiblingIsLeft: false})
		} else {
			walk(ls[k:], i-k)
			p.Path = append(p.Path, ProofStep{Sibling: subtree(ls[:k]).String(), SiblingIsLeft: true})
		}
	}
	walk(leaves, index)
	return p, nil
}

// ProofRoot replays an inclusion proof from a leaf commitment and returns
// the root it leads to. It refuses a path whose length or sides do not fit
// leaf_index and leaf_count.
func ProofRoot(leaf Hash, p InclusionProof) (Hash, error) {
	if p.LeafCount == 0 || p.LeafIndex >= p.LeafCount {
		return Hash{}, fmt.Errorf("leaf_index %d is not below leaf_count %d", p.LeafIndex, p.LeafCount)
	}
	if p.LeafCount > 1<<32 {
		return Hash{}, fmt.Errorf("leaf_count %d is more frames than any result holds", p.LeafCount)
	}
	// The sides the path must take, leaf first, from the tree's shape.
	var sides []bool
	idx, n := p.LeafIndex, p.LeafCount
	for n > 1 {
		k := splitPoint(n)
		if idx < k {
			sides = append(sides, false)
			n = k
		} else {
			sides = append(sides, true)
			idx, n = idx-k, n-k
		}
	}
	slices.Reverse(sides)
	if len(sides) != len(p.Path) {
		return Hash{}, fmt.Errorf("path has %d steps; leaf %d of %d needs %d", len(p.Path), p.LeafIndex, p.LeafCount, len(sides))
	}
	h := leafHash(leaf)
	for i, step := range p.Path {
		sib, err := ParseHash(step.Sibling)
		if err != nil {
			return Hash{}, fmt.Errorf("path[%d].sibling: %v", i, err)
		}
		if step.SiblingIsLeft != sides[i] {
			return Hash{}, fmt.Errorf("path[%d].sibling_is_left is %v; leaf %d of %d needs %v", i, step.SiblingIsLeft, p.LeafIndex, p.LeafCount, sides[i])
		}
		if step.SiblingIsLeft {
			h = nodeHash(sib, h)
		} else {
			h = nodeHash(h, sib)
		}
	}
	return h, nil
}

// Less orders frame identities canonically: provider_id, frame_id, then
// content_digest (absent first).
func (a FrameID) Less(b FrameID) bool {
	if a.ProviderID != b.ProviderID {
		return a.ProviderID < b.ProviderID
	}
	if a.FrameID != b.FrameID {
		return a.FrameID < b.FrameID
	}
	switch {
	case a.ContentDigest == nil:
		return b.ContentDigest != nil
	case b.ContentDigest == nil:
		return false
	}
	return *a.ContentDigest < *b.ContentDigest
}

// CanonicalOrder returns the indices of frames in canonical FrameID order
// (the order of a result's Merkle leaves); equal identities keep their order.
func CanonicalOrder(providerID string, frames []ContextFrame) []int {
	idx := make([]int, len(frames))
	ids := make([]FrameID, len(frames))
	for i := range frames {
		idx[i] = i
		ids[i] = frameID(providerID, &frames[i])
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ids[a].Less(ids[b]):
			return -1
		case ids[b].Less(ids[a]):
			return 1
		}
		return 0
	})
	return idx
}

// ResultLeaves returns the commitments of a result's frames in canonical
// FrameID order, with their identities.
func ResultLeaves(providerID string, frames []ContextFrame) ([]FrameID, []Hash) {
	ids := make([]FrameID, len(frames))
	leaves := make([]Hash, len(frames))
	for i, j := range CanonicalOrder(providerID, frames) {
		ids[i] = frameID(providerID, &frames[j])
		leaves[i] = CommitmentOf(providerID, &frames[j])
	}
	return ids, leaves
}

// frameID is a served frame's full identity.
func frameID(providerID string, f *ContextFrame) FrameID {
	return FrameID{ProviderID: providerID, FrameID: f.ID, ContentDigest: f.ContentDigest}
}

// SignCommitment signs the raw 32 bytes of a commitment or root with an
// Ed25519 seed and returns the signature in lowercase hex.
func SignCommitment(seed []byte, h Hash) (string, error) {
	if len(seed) != ed25519.SeedSize {
		return "", fmt.Errorf("an Ed25519 seed is %d bytes, not %d", ed25519.SeedSize, len(seed))
	}
	return hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), h[:])), nil
}

// The attestation verdicts, as upstream names them.
const (
	VerdictValid               = "Valid"
	VerdictCommitmentMismatch  = "CommitmentMismatch"
	VerdictBadSignature        = "BadSignature"
	VerdictUnknownAlgorithm    = "UnknownAlgorithm"
	VerdictMalformedKey        = "MalformedKey"
	VerdictMalformedSignature  = "MalformedSignature"
	VerdictMalformedCommitment = "MalformedCommitment"
)

// Verdict is the outcome of verifying one attestation.
type Verdict struct {
	Kind   string // one of the Verdict constants
	Detail string // what was wrong, empty for Valid
}

func (v Verdict) String() string {
	if v.Detail == "" {
		return v.Kind
	}
	return v.Kind + ": " + v.Detail
}

// VerifyAttestation checks an attestation against the commitment the
// verifier computed itself and a hex Ed25519 public key, in upstream's
// order: algorithm, key, commitment form, commitment, signature form, then a
// strict signature check (small-order and non-canonical points refused).
func VerifyAttestation(a ProvenanceAttestation, expected Hash, publicKeyHex string) Verdict {
	if a.Algorithm != "ed25519" {
		return Verdict{VerdictUnknownAlgorithm, fmt.Sprintf("algorithm %q", a.Algorithm)}
	}
	key, err := hex.DecodeString(publicKeyHex)
	if err != nil || len(key) != ed25519.PublicKeySize || strings.ToLower(publicKeyHex) != publicKeyHex {
		return Verdict{VerdictMalformedKey, fmt.Sprintf("public key %q is not 64 lowercase hex digits", publicKeyHex)}
	}
	if WeakPublicKey(key) {
		return Verdict{VerdictMalformedKey, "the public key is a small-order or non-canonical point"}
	}
	signed, err := ParseHash(a.SignedCommitment)
	if err != nil {
		return Verdict{VerdictMalformedCommitment, fmt.Sprintf("signed_commitment: %v", err)}
	}
	if signed != expected {
		return Verdict{VerdictCommitmentMismatch, fmt.Sprintf("expected %s, signed %s", expected, signed)}
	}
	sig, err := hex.DecodeString(a.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize || strings.ToLower(a.Signature) != a.Signature {
		return Verdict{VerdictMalformedSignature, "the signature is not 128 lowercase hex digits"}
	}
	if WeakPublicKey(sig[:32]) || !ed25519.Verify(key, signed[:], sig) {
		return Verdict{VerdictBadSignature, "the signature does not verify under key " + a.KeyID}
	}
	return Verdict{Kind: VerdictValid}
}
