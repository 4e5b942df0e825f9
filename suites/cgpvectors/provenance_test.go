package cgpvectors

import (
	"crypto/ed25519"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/sharedtest"
)

func TestProvenanceAndEnvelopeCheckIDs(t *testing.T) {
	ids := map[string]bool{}
	prov, env := 0, 0
	for _, c := range embeddedSuite(t).Checks {
		ids[c.ID] = true
		switch {
		case strings.HasPrefix(c.ID, "cgp-vectors/provenance/"):
			prov++
		case strings.HasPrefix(c.ID, "cgp-vectors/envelope/"):
			env++
		}
	}
	// 7 links, 7 chains, 4 commitments, 9 roots, 3 result roots, 5 proofs,
	// 5 proof verifications, 2 signatures, 26 verdicts.
	if prov != 68 || env != 26 {
		t.Errorf("%d provenance and %d envelope checks, want 68 and 26", prov, env)
	}
	for _, want := range []string{
		"cgp-vectors/provenance/link/unicode", "cgp-vectors/provenance/link/empty-strings", "cgp-vectors/provenance/link/non-bmp",
		"cgp-vectors/provenance/chain/file_then_derivation", "cgp-vectors/provenance/commitment/retry-policy",
		"cgp-vectors/provenance/merkle-root/0", "cgp-vectors/provenance/merkle-root/9", "cgp-vectors/provenance/result-root/byte-order-ids",
		"cgp-vectors/provenance/inclusion-proof/3-of-7", "cgp-vectors/provenance/verify-inclusion/flipped-side",
		"cgp-vectors/provenance/sign/published", "cgp-vectors/provenance/verify/small-order-key-8", "cgp-vectors/provenance/verify/non-canonical-key-2",
		"cgp-vectors/provenance/verify/x-zero-sign-key-1", "cgp-vectors/provenance/verify/non-canonical-large-order-key", "cgp-vectors/provenance/verify/off-curve-key",
		"cgp-vectors/provenance/verify/identity-r", "cgp-vectors/provenance/verify/s-plus-l", "cgp-vectors/provenance/verify/mixed-order-key",
		"cgp-vectors/envelope/07-frames/round-trip", "cgp-vectors/envelope/13-error/respelled",
	} {
		if !ids[want] {
			t.Errorf("no check %s", want)
		}
	}
}

// TestWeakKeysAreForged: every weak key of the vectors gets a signature that
// crypto/ed25519 accepts under it, so the strictness checks tell a strict
// verifier from one that would take a forgery.
func TestWeakKeysAreForged(t *testing.T) {
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	pv, err := ReadProvenance(rc)
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.SmallOrder) != 8 || len(pv.NonCanonical) != 2 {
		t.Fatalf("%d small-order and %d non-canonical keys", len(pv.SmallOrder), len(pv.NonCanonical))
	}
	for _, k := range append(append([]string{}, pv.SmallOrder...), pv.NonCanonical...) {
		f, ok := forge(k, pv.SmallOrder)
		key, _ := hex.DecodeString(k)
		sig, _ := hex.DecodeString(f.signature)
		if !ok || !ed25519.Verify(key, f.commitment[:], sig) {
			t.Errorf("no forgery under %s", k)
		}
	}
}

func TestEdwards(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	if edSmallOrder(pub) || !edCanonical(pub) {
		t.Errorf("an ordinary key is small-order or non-canonical")
	}
	identity, _ := hex.DecodeString("0100000000000000000000000000000000000000000000000000000000000000")
	p, _ := hex.DecodeString("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
	if !edSmallOrder(identity) || edCanonical(p) || !edSmallOrder(p) {
		t.Errorf("identity or p misread")
	}
	offCurve, _ := hex.DecodeString("0200000000000000000000000000000000000000000000000000000000000000")
	if _, ok := edDecode(offCurve); ok {
		t.Errorf("y = 2 decodes, but no point has it")
	}
}

// mutated returns the embedded records corpus with file's first old
// replaced by new.
func mutated(t *testing.T, file, old, new string) *corpus.Corpus {
	t.Helper()
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range rc.Files() {
		b, _ := rc.ReadFile(f)
		if f == file {
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s holds no %s", file, old)
			}
			b = []byte(strings.Replace(string(b), old, new, 1))
		}
		fsys[f] = &fstest.MapFile{Data: b}
	}
	c, err := corpus.Open(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReadProvenanceErrors(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"link encoding", `"ascii_minimal": "0000000466696c65`, `"ascii_minimal": "0000000566696c65`, "link_encodings_hex.ascii_minimal: is 0000000566696c65"},
		{"chain head", `"file": "sha256:ac5418d7`, `"file": "sha256:bc5418d7`, "chain_heads.file: is sha256:bc5418d7"},
		{"chain name", `"file_then_derivation": "sha256`, `"file_then_summary": "sha256`, `chain_heads.file_then_summary: names no chain: "summary"`},
		{"commitment", `"commitment": "sha256:cba5cb08`, `"commitment": "sha256:dba5cb08`, "frame_commitment.commitment: is sha256:dba5cb08"},
		{"root", `"3": "sha256:bb7a2c79`, `"3": "sha256:cb7a2c79`, "merkle.roots_by_leaf_count.3: is sha256:cb7a2c79"},
		{"root past the leaves", `"7": "sha256:`, `"8": "sha256:`, "merkle.roots_by_leaf_count.8: is not a string root for a count of at most 7"},
		{"proof", `"sibling": "sha256:dc1ae14d`, `"sibling": "sha256:ec1ae14d`, "merkle.inclusion_proof: is "},
		{"proof side", `"sibling_is_left": false`, `"sibling_is_left": true`, "merkle.inclusion_proof: is "},
		{"public key", `"public_key_hex": "ea4a6c63`, `"public_key_hex": "fa4a6c63`, "signature.public_key_hex: is fa4a6c63"},
		{"signature", `"signature": "2f8af919`, `"signature": "3f8af919`, "signature.attestation.signature: is 3f8af919"},
		{"length trap", `"utf8_bytes": 24`, `"utf8_bytes": 17`, "unicode_length_trap.uri.utf8_bytes: is 17"},
		{"domain tag", `"link": "contextgraph/attest/1/link"`, `"link": "contextgraph/attest/2/link"`, "domain_tags.link: is"},
		{"a strong key listed as weak", `"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"`, `"ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"`, "verifier_strictness.small_order_public_keys_hex[3]: the Go reference does not refuse"},
		{"a canonical key listed as non-canonical", `"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"`, `"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"`, "verifier_strictness.non_canonical_public_keys_hex[0]: ecff"},
		{"unknown member", `"links_note":`, `"links_notes":`, `unknown field "links_notes"`},
		{"unknown link member", `"uri": "a"`, `"url": "a"`, `links.ascii_minimal: unknown field "url"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadProvenance(mutated(t, ProvenanceVectorsFile, tt.old, tt.new))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test: "+ProvenanceVectorsFile) {
				t.Errorf("error = %v, want one naming the corpus, the file and %q", err, tt.want)
			}
		})
	}
}

func TestReadEnvelopesErrors(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"dot zero dropped", `"score":1.0,`, `"score":1,`, `line 7: the Go reference re-serialises it differently from byte 1315: the line has …the wire.","score":1,"token_cost"`},
		{"member order", `{"type":"shutdown"}`, `{"type":"error","message":"m","code":"c"}`, `line 10: the Go reference re-serialises it differently from byte 17: the line has …{"type":"error","message":"m","code":"c"}…, the Go reference writes …{"type":"error","code":"c","message":"m"}…`},
		{"unknown type", `{"type":"shutdown"}`, `{"type":"goodbye"}`, "line 10: not an envelope"},
		{"duplicate member", `{"type":"shutdown"}`, `{"type":"shutdown","type":"shutdown"}`, "line 10: "},
		{"no final newline", `"a code this revision does not define"}` + "\n", `"a code this revision does not define"}`, "not LF-terminated"},
		{"blank line", `{"type":"shutdown"}` + "\n", `{"type":"shutdown"}` + "\n\n", "line 11: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadEnvelopes(mutated(t, EnvelopeVectorsFile, tt.old, tt.new))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test: "+EnvelopeVectorsFile) {
				t.Errorf("error = %v, want one naming the corpus, the file and %q", err, tt.want)
			}
		})
	}
}

// TestEnvelopesElsewhere runs the envelope checks over upstream's 00377ab
// reference envelopes (contextgraph/1.0-draft), through --vectors.
func TestEnvelopesElsewhere(t *testing.T) {
	dir := sharedtest.Dir(t, "the 00377ab reference envelopes are in ../shared/corpora/cgp/_extra")
	s := loadSuiteWith(t, check.LoadOptions{Flags: check.FlagValues{FlagVectors: filepath.Join(dir, "corpora", "cgp", "_extra", "head-00377ab")}})
	var draft int
	for _, c := range s.Checks {
		if strings.HasPrefix(c.ID, "cgp-vectors/envelope/") && strings.Contains(c.Explain, "contextgraph/1.0-draft") {
			draft++
		}
	}
	if draft != 6 || !strings.Contains(s.Corpus, "head-00377ab") {
		t.Errorf("%d envelope checks of the draft's lines (want 6: 3 lines x 2), corpus %s", draft, s.Corpus)
	}
	run := checktest.RunSuite(t, s, reference(t, ""))
	if n := run.Counts(); n.Pass != len(run.Results) {
		t.Errorf("counts = %+v", n)
	}
	for _, r := range checktest.Execute(t, s, reference(t, "drop-dot-zero")).Results {
		if r.ID == "cgp-vectors/envelope/07-frames/round-trip" && r.Status != check.Fail {
			t.Errorf("drop-dot-zero: %s %s", r.ID, r.Status)
		}
	}
}
