package cgp

import (
	"encoding/hex"
	"slices"
	"testing"
)

func validFrame() ContextFrame {
	content := "hello\n"
	return ContextFrame{
		ID: "f", Kind: "doc", Title: "Hello", Content: &content, ContentDigest: Str(DigestOf([]byte(content))),
		Score: 0.5, TokenCost: 2, ValidFrom: Str("2026-01-01T00:00:00Z"), ValidTo: Str("2026-02-01T00:00:00.5Z"),
		CitationLabel: Str("hello.md L1"),
		Provenance:    []Link{{Type: "file", URI: Str("file:///hello.md"), Digest: Str(DigestOf([]byte(content)))}, {Type: "derivation"}},
		Relations:     []Relation{{Rel: "doc.documents", TargetURI: "symbol:///hello", DisplayName: Str("hello")}},
	}
}

func TestValidateFrame(t *testing.T) {
	if v := ValidateFrame(&ContextFrame{}); len(v) == 0 {
		t.Error("an empty frame is valid")
	}
	f := validFrame()
	if v := ValidateFrame(&f); len(v) > 0 {
		t.Fatalf("a valid frame: %v", v)
	}
	for _, tc := range []struct {
		name   string
		mutate func(f *ContextFrame)
		rule   string
	}{
		{"score above 1", func(f *ContextFrame) { f.Score = 1.01 }, "F1"},
		{"score below 0", func(f *ContextFrame) { f.Score = -0.1 }, "F1"},
		{"blank title", func(f *ContextFrame) { f.Title = "\u00a0" }, "F2"},
		{"no citation", func(f *ContextFrame) { f.CitationLabel = nil }, "F3"},
		{"blank citation", func(f *ContextFrame) { f.CitationLabel = Str(" \t") }, "F3"},
		{"full without content", func(f *ContextFrame) { f.Content = nil; f.ContentDigest = nil }, "P1"},
		{"compact without transform", func(f *ContextFrame) { f.Representation = Str("compact") }, "P2"},
		{"reference with content", func(f *ContextFrame) {
			f.Representation = Str("reference")
			f.ContentRef = &ContentRef{ProviderID: "p", URI: "u"}
			f.CanonicalContentHash = f.ContentDigest
		}, "P3"},
		{"reference that costs", func(f *ContextFrame) {
			f.Representation = Str("reference")
			f.ContentRef = &ContentRef{ProviderID: "p", URI: "u"}
			f.CanonicalContentHash, f.Content, f.ContentDigest = f.ContentDigest, nil, nil
		}, "P4"},
		{"unknown representation", func(f *ContextFrame) { f.Representation = Str("summary") }, "P1"},
		{"timestamp with offset", func(f *ContextFrame) { f.ValidFrom = Str("2026-01-01T00:00:00+00:00") }, "F4"},
		{"lowercase z", func(f *ContextFrame) { f.RecordedAt = Str("2026-01-01T00:00:00z") }, "F4"},
		{"February 30", func(f *ContextFrame) { f.ValidTo = Str("2026-02-30T00:00:00Z") }, "F4"},
		{"empty window", func(f *ContextFrame) { f.ValidTo = f.ValidFrom }, "Q2"},
		{"uppercase digest", func(f *ContextFrame) { f.ContentDigest = Str("sha256:" + "AB"[0:1] + (*f.ContentDigest)[8:]) }, "D1"},
		{"digest of other bytes", func(f *ContextFrame) { f.ContentDigest = Str(DigestOf([]byte("other"))) }, "D1"},
		{"file link without digest", func(f *ContextFrame) { f.Provenance[0].Digest = nil }, "F5"},
		{"unlabelled relation", func(f *ContextFrame) { f.Relations[0].DisplayName = Str("") }, "G1"},
		{"untargeted relation", func(f *ContextFrame) { f.Relations[0].TargetURI = " " }, "G2"},
		{"own attestation", func(f *ContextFrame) { f.Attestation = []byte(`{"signature":"x"}`) }, "F6"},
	} {
		f := validFrame()
		f.Provenance = slices.Clone(f.Provenance)
		f.Relations = slices.Clone(f.Relations)
		tc.mutate(&f)
		var rules []string
		for _, v := range ValidateFrame(&f) {
			rules = append(rules, v.Rule)
		}
		if !slices.Contains(rules, tc.rule) {
			t.Errorf("%s: violations %v, want %s", tc.name, rules, tc.rule)
		}
	}
	leap := validFrame()
	leap.ValidFrom, leap.ValidTo = Str("2016-12-31T23:59:59Z"), Str("2016-12-31T23:59:60Z")
	if v := ValidateFrame(&leap); len(v) > 0 {
		t.Errorf("a window ending on a leap second: %v", v)
	}
	if c := CanonicalTokenCost(&ContextFrame{Content: Str("héllo")}); c != 2 {
		t.Errorf("cost of 6 UTF-8 bytes: %d, want 2", c)
	}
}

func TestCompareTimestamps(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z", -1},
		{"2017-01-01T00:00:00Z", "2016-12-31T23:59:60.5Z", 1},
		{"2016-12-31T23:59:59.999Z", "2016-12-31T23:59:60Z", -1},
		{"2026-01-01T12:30:60Z", "2026-01-01T12:31:00Z", -1},
		{"2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.50Z", 0},
		{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", 0},
		{"2026-01-01T00:00:00.1234567891Z", "2026-01-01T00:00:00.123456789Z", 1},
		{"2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z", -1},
	} {
		if got, err := CompareTimestamps(tt.a, tt.b); err != nil || got != tt.want {
			t.Errorf("CompareTimestamps(%s, %s) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := CompareTimestamps("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00Z"); err == nil {
		t.Error("an offset compared")
	}
}

func TestWeakPublicKeyEncodings(t *testing.T) {
	for k, weak := range map[string]bool{
		"0100000000000000000000000000000000000000000000000000000000000080": true,  // x = 0, sign bit: the identity
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff": true,  // x = 0, sign bit: order 2
		"f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f": true,  // y = p + 3, large order once reduced
		"0200000000000000000000000000000000000000000000000000000000000000": true,  // y = 2: off the curve
		"0300000000000000000000000000000000000000000000000000000000000000": false, // y = 3: a point of large order
		"ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c": false, // upstream's published key
	} {
		b, _ := hex.DecodeString(k)
		if got := WeakPublicKey(b); got != weak {
			t.Errorf("WeakPublicKey(%s) = %v, want %v", k, got, weak)
		}
	}
}
