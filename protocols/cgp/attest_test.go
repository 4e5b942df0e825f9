package cgp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/internal/sharedtest"
)

// The values attestation-vectors.json publishes, pinned here so the test
// fails without ../shared too.
const (
	vecFileHead   = "sha256:ac5418d723088033179a2671d17cd08d3e082eefa783e3eeb1a5145f83592178"
	vecCommitment = "sha256:cba5cb083177e61ce370ab586dbf7096508e5224ad18d213c902e014796c88ea"
	vecSignature  = "2f8af919196862e7f946a0117d65522da36592344cf46ffe00ab8e6ec0a6b5cdb132800b71b5cd161609378d8ebd789a0adc971cdb8856cd195c9154fe2b2d04"
	vecPublicKey  = "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"
)

func vecFileLink() Link {
	return Link{Type: "file", URI: Str("src/retry.rs"), Range: Str("L10-L20"),
		Digest: Str("sha256:abababababababababababababababababababababababababababababababab")}
}

func TestAttestationPinned(t *testing.T) {
	if got := ChainHead(nil).String(); got != "sha256:2ab226c884ffeb5ac95d300a8d8ee726cb4488fb59a19047d21da7170e9b63d6" {
		t.Errorf("empty chain head %s", got)
	}
	if got := ChainHead([]Link{vecFileLink()}).String(); got != vecFileHead {
		t.Errorf("file chain head %s, want %s", got, vecFileHead)
	}
	digest := "sha256:cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
	c := FrameCommitment("repo-graph", "retry-policy", &digest, ChainHead([]Link{vecFileLink()}))
	if c.String() != vecCommitment {
		t.Fatalf("commitment %s, want %s", c, vecCommitment)
	}
	seed := bytes.Repeat([]byte{7}, 32)
	sig, err := SignCommitment(seed, c)
	if err != nil || sig != vecSignature {
		t.Fatalf("signature %s, %v", sig, err)
	}
	a := ProvenanceAttestation{SignedCommitment: vecCommitment, KeyID: "key-1", Algorithm: "ed25519", Signature: sig}
	if v := VerifyAttestation(a, c, vecPublicKey); v.Kind != VerdictValid {
		t.Fatalf("verdict %v", v)
	}
	other := FrameCommitment("repo-graph", "retry-policy-2", &digest, ChainHead([]Link{vecFileLink()}))
	bad := []struct {
		name string
		a    ProvenanceAttestation
		want Hash
		key  string
		kind string
	}{
		{"lifted", a, other, vecPublicKey, VerdictCommitmentMismatch},
		{"algorithm", with(a, func(a *ProvenanceAttestation) { a.Algorithm = "ed448" }), c, vecPublicKey, VerdictUnknownAlgorithm},
		{"short key", a, c, vecPublicKey[:62], VerdictMalformedKey},
		{"small-order key", a, c, strings.Repeat("0", 64), VerdictMalformedKey},
		{"non-canonical key", a, c, "ed" + strings.Repeat("f", 60) + "7f", VerdictMalformedKey},
		{"upper commitment", with(a, func(a *ProvenanceAttestation) {
			a.SignedCommitment = strings.ToUpper(vecCommitment[:8]) + vecCommitment[8:]
		}), c, vecPublicKey, VerdictMalformedCommitment},
		{"short signature", with(a, func(a *ProvenanceAttestation) { a.Signature = a.Signature[:126] }), c, vecPublicKey, VerdictMalformedSignature},
		{"flipped signature", with(a, func(a *ProvenanceAttestation) { a.Signature = "3" + a.Signature[1:] }), c, vecPublicKey, VerdictBadSignature},
	}
	for _, tc := range bad {
		if v := VerifyAttestation(tc.a, tc.want, tc.key); v.Kind != tc.kind {
			t.Errorf("%s: verdict %v, want %s", tc.name, v, tc.kind)
		}
	}
}

func with(a ProvenanceAttestation, f func(*ProvenanceAttestation)) ProvenanceAttestation {
	f(&a)
	return a
}

func TestMerkleProofsRoundTrip(t *testing.T) {
	for n := 1; n <= 17; n++ {
		leaves := make([]Hash, n)
		for i := range leaves {
			leaves[i][0] = byte(i)
		}
		root := MerkleRoot(leaves)
		for i := range leaves {
			p, err := Prove(leaves, i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ProofRoot(leaves[i], p)
			if err != nil || got != root {
				t.Fatalf("n=%d i=%d: root %v, %v", n, i, got, err)
			}
			if len(p.Path) > 0 {
				p.Path[0].SiblingIsLeft = !p.Path[0].SiblingIsLeft
				if _, err := ProofRoot(leaves[i], p); err == nil {
					t.Fatalf("n=%d i=%d: a proof with a flipped side was accepted", n, i)
				}
			}
		}
	}
}

// TestAttestationVectors reads upstream's attestation-vectors.json and
// recomputes every value in it.
func TestAttestationVectors(t *testing.T) {
	dir := sharedtest.Dir(t, "upstream's attestation vectors")
	data, err := os.ReadFile(filepath.Join(dir, "corpora/cgp/_extra/index-newer/tests/vectors/attestation-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Links           map[string]Link   `json:"links"`
		LinkEncodings   map[string]string `json:"link_encodings_hex"`
		ChainHeads      map[string]string `json:"chain_heads"`
		FrameCommitment struct {
			ProviderID string `json:"provider_id"`
			Frame      struct {
				ID            string   `json:"id"`
				ContentDigest *string  `json:"content_digest"`
				Provenance    []string `json:"provenance"`
			} `json:"frame"`
			Commitment string `json:"commitment"`
		} `json:"frame_commitment"`
		Merkle struct {
			ProviderID string `json:"provider_id"`
			LeafFrames []struct {
				ID            string  `json:"id"`
				ContentDigest *string `json:"content_digest"`
			} `json:"leaf_frames"`
			Roots map[string]string `json:"roots_by_leaf_count"`
			Proof InclusionProof    `json:"inclusion_proof"`
		} `json:"merkle"`
		Signature struct {
			Seed        string                `json:"signing_key_seed_hex"`
			PublicKey   string                `json:"public_key_hex"`
			Attestation ProvenanceAttestation `json:"attestation"`
		} `json:"signature"`
		Strictness struct {
			SmallOrder   []string `json:"small_order_public_keys_hex"`
			NonCanonical []string `json:"non_canonical_public_keys_hex"`
		} `json:"verifier_strictness"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for name, want := range v.LinkEncodings {
		if got := hex.EncodeToString(EncodeLink(v.Links[name])); got != want {
			t.Errorf("link %s: encoding %s, want %s", name, got, want)
		}
	}
	chains := map[string][]string{"empty": nil, "file": {"file"}, "file_then_derivation": {"file", "derivation"}, "unicode": {"unicode"}}
	for name, want := range v.ChainHeads {
		var links []Link
		for _, l := range chains[name] {
			links = append(links, v.Links[l])
		}
		if got := ChainHead(links).String(); got != want {
			t.Errorf("chain %s: head %s, want %s", name, got, want)
		}
	}
	fc := v.FrameCommitment
	var links []Link
	for _, l := range fc.Frame.Provenance {
		links = append(links, v.Links[l])
	}
	c := FrameCommitment(fc.ProviderID, fc.Frame.ID, fc.Frame.ContentDigest, ChainHead(links))
	if c.String() != fc.Commitment {
		t.Errorf("commitment %s, want %s", c, fc.Commitment)
	}
	var leaves []Hash
	for _, f := range v.Merkle.LeafFrames {
		leaves = append(leaves, FrameCommitment(v.Merkle.ProviderID, f.ID, f.ContentDigest, ChainHead(nil)))
	}
	for n, want := range v.Merkle.Roots {
		var k int
		if _, err := fmt.Sscan(n, &k); err != nil {
			t.Fatal(err)
		}
		if got := MerkleRoot(leaves[:k]).String(); got != want {
			t.Errorf("root of %d leaves %s, want %s", k, got, want)
		}
	}
	p := v.Merkle.Proof
	mine, err := Prove(leaves[:p.LeafCount], int(p.LeafIndex))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, mine), mustJSON(t, p); a != b {
		t.Errorf("inclusion proof\n got %s\nwant %s", a, b)
	}
	root, err := ProofRoot(leaves[p.LeafIndex], p)
	if err != nil || root.String() != v.Merkle.Roots["7"] {
		t.Errorf("proof replays to %v, %v", root, err)
	}
	seed, _ := hex.DecodeString(v.Signature.Seed)
	sig, err := SignCommitment(seed, c)
	if err != nil || sig != v.Signature.Attestation.Signature {
		t.Errorf("signature %s, want %s", sig, v.Signature.Attestation.Signature)
	}
	if vd := VerifyAttestation(v.Signature.Attestation, c, v.Signature.PublicKey); vd.Kind != VerdictValid {
		t.Errorf("published attestation: %v", vd)
	}
	for _, k := range append(v.Strictness.SmallOrder, v.Strictness.NonCanonical...) {
		if vd := VerifyAttestation(v.Signature.Attestation, c, k); vd.Kind != VerdictMalformedKey {
			t.Errorf("key %s: %v, want MalformedKey", k, vd)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
