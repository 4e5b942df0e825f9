package cgpvectors

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/protocols/cgp"
)

// planted is the built-in adapter with checkFrame bugs planted: each drop
// reports whether the implementation leaves one of the reference's
// violations unreported.
type planted struct {
	*Handler
	drop []func(frame canon.Value, v cgp.Violation) bool
}

func (p planted) Hello() adapter.Hello {
	h := p.Handler.Hello()
	h.Name = "referee-cgp-vectors+planted"
	return h
}

func (p planted) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if op != OpCheckFrame {
		return p.Handler.Handle(ctx, op, args)
	}
	a, _ := canon.Parse(args, canon.ReadOptions{})
	text, _ := a.Lookup("frame_text")
	frame, err := canon.Parse([]byte(text.Str), canon.ReadOptions{})
	if err != nil {
		return p.Handler.Handle(ctx, op, args)
	}
	vs := slices.DeleteFunc(FrameViolations(frame), func(v cgp.Violation) bool {
		return slices.ContainsFunc(p.drop, func(d func(canon.Value, cgp.Violation) bool) bool { return d(frame, v) })
	})
	return frameReply(vs), nil
}

// The planted bugs: two of F4's grammar (the calendar left unchecked, an
// offset or a lowercase letter accepted) and two blank tests that trim
// ASCII only, one on the title (F2) and one on the citation label (F3).
var (
	calendarUnchecked = func(f canon.Value, v cgp.Violation) bool {
		x, _ := memberAt(f, v.Field)
		return v.Rule == "F4" && stampFacet(x.Str) == "calendar"
	}
	offsetAccepted = func(f canon.Value, v cgp.Violation) bool {
		x, _ := memberAt(f, v.Field)
		return v.Rule == "F4" && stampFacet(x.Str) == "grammar" && timestampOffset.MatchString(x.Str)
	}
	asciiBlank = func(rule, field string) func(canon.Value, cgp.Violation) bool {
		return func(f canon.Value, v cgp.Violation) bool {
			x, ok := f.Lookup(field)
			return v.Rule == rule && ok && x.Kind == canon.String && strings.Trim(x.Str, " \t\n\r\f\v") != ""
		}
	}
)

// failureKey is a finding's failure key: its signature without the
// skeleton of its input.
func failureKey(f *fuzz.Finding) string {
	parts := strings.SplitN(f.Signature, " | ", 7)
	return strings.Join(parts[:6], " | ")
}

// TestFailureKeysKeepBugsApart: two distinct bugs of checkFrame, planted
// together, are kept apart by the failure key (two findings of two keys,
// each naming its class), whether the classes differ in their words (a
// calendar and a grammar bug of F4) or only in a rule's digits (F2 and F3
// blank tests); one bug alone, failing on many inputs, is one failure key.
func TestFailureKeysKeepBugsApart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		drop    []func(canon.Value, cgp.Violation) bool
		classes []string // the findings' classes, sorted
	}{
		{"two grammar bugs", []func(canon.Value, cgp.Violation) bool{calendarUnchecked, offsetAccepted}, []string{"[misses F4 (calendar)]", "[misses F4 (grammar)]"}},
		{"two blank tests", []func(canon.Value, cgp.Violation) bool{asciiBlank("F2", "title"), asciiBlank("F3", "citation_label")}, []string{"[misses F2 (blank)]", "[misses F3 (blank)]"}},
		{"one bug", []func(canon.Value, cgp.Violation) bool{offsetAccepted}, []string{"[misses F4 (grammar)]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := planted{Handler: &Handler{mode: &Mode{}}, drop: tc.drop}
			s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{Handler: h}}}, fuzz.Options{
				Seed: 1, Count: 1500, Targets: []string{"check-frame"}, Tool: fuzzTool, ShrinkBudget: 200,
			})
			if err != nil {
				t.Fatal(err)
			}
			keys, seen := map[string]string{}, 0
			for _, f := range s.Findings {
				class := "(none)"
				if i := strings.Index(f.Reason, " ["); i >= 0 {
					class = f.Reason[i+1:]
				}
				keys[failureKey(f)] = class
				seen += f.Seen
				t.Logf("%s (%d inputs): %s", f.Reason, f.Seen, f.Input)
			}
			var classes []string
			for _, c := range keys {
				classes = append(classes, c)
			}
			sort.Strings(classes)
			if !slices.Equal(classes, tc.classes) {
				t.Errorf("failure keys of %d findings have the classes %q, want one key for each of %q", len(s.Findings), classes, tc.classes)
			}
			if seen < 2*len(tc.classes) {
				t.Errorf("%d inputs failed: too few to show a key holds over many", seen)
			}
		})
	}
}

// TestAdversarialSignatures: the verify target's constructions are what
// they claim, against the reference and crypto/ed25519, and each new
// broken mode gets the one it is about wrong.
func TestAdversarialSignatures(t *testing.T) {
	s := newSigner([]byte("referee/cgp-vectors/test-seed/32"))
	msg := []byte("a commitment's 32 raw bytes....!")
	verdict := func(mode string, sig, key []byte) string {
		h, err := Reference(mode)
		if err != nil {
			t.Fatal(err)
		}
		c := cgp.Hash(msg)
		return h.verifyProvenance(cgp.ProvenanceAttestation{SignedCommitment: c.String(), Algorithm: "ed25519", Signature: hex.EncodeToString(sig)}, c, hex.EncodeToString(key))
	}
	if got, want := hex.EncodeToString(func() []byte { b, _ := s.signAs(s.pub, msg); return b }()), hex.EncodeToString(ed25519.Sign(s.priv, msg)); got != want {
		t.Errorf("signAs under its own key = %s, Ed25519 gives %s", got, want)
	}
	for _, tc := range []struct {
		name      string
		key, sig  []byte
		goVerify  bool   // crypto/ed25519 accepts it
		reference string // the reference's verdict
		mode      string // a mode that gets it wrong
		modeSays  string
	}{
		{"R identity, S = k·a", s.pub, s.withR(identityR, msg), true, cgp.VerdictBadSignature, "no-r-check", cgp.VerdictValid},
		{"S + L", s.pub, sPlus(ed25519.Sign(s.priv, msg), 1), false, cgp.VerdictBadSignature, "s-unreduced", cgp.VerdictValid},
		{"S + 15L", s.pub, sPlus(ed25519.Sign(s.priv, msg), 15), false, cgp.VerdictBadSignature, "s-unreduced", cgp.VerdictValid},
		{"R y = p + 1", s.pub, s.withR(nonCanonicalY(1, false), msg), false, cgp.VerdictBadSignature, "", ""},
	} {
		if got := ed25519.Verify(tc.key, msg, tc.sig); got != tc.goVerify {
			t.Errorf("%s: crypto/ed25519 says %t", tc.name, got)
		}
		if got := verdict("", tc.sig, tc.key); got != tc.reference {
			t.Errorf("%s: the reference says %s, want %s", tc.name, got, tc.reference)
		}
		if tc.mode != "" {
			if got := verdict(tc.mode, tc.sig, tc.key); got != tc.modeSays {
				t.Errorf("%s: %s says %s, want %s", tc.name, tc.mode, got, tc.modeSays)
			}
		}
	}
	if got := hex.EncodeToString(nonCanonicalY(3, false)); got != nonCanonicalLarge {
		t.Errorf("nonCanonicalY(3) = %s, want y = p + 3, %s", got, nonCanonicalLarge)
	}
	// Adding the point of order 4 twice adds the point of order 2.
	if a, b := mixedKey(mixedKey(s.pub, 4), 4), mixedKey(s.pub, 2); !slices.Equal(a, b) {
		t.Errorf("pub + 2·T4 = %x, pub + T2 = %x", a, b)
	}
	if !edPrimeOrder(s.pub) {
		t.Error("a seed's public key is not of prime order")
	}
	for _, n := range []int{2, 4} {
		var msgs [][]byte
		for i := range 16 {
			msgs = append(msgs, []byte(strings.Repeat(string(rune('a'+i)), 32)))
		}
		mc, m, ok := mixedCase(s, n, msgs)
		if !ok {
			t.Fatalf("no message of 16 clears a torsion of order %d", n)
		}
		if cgp.WeakPublicKey(mc.key) || edPrimeOrder(mc.key) {
			t.Errorf("order %d: the mixed key is weak (%t) or of prime order (%t)", n, cgp.WeakPublicKey(mc.key), edPrimeOrder(mc.key))
		}
		msg = m
		if got := verdict("", mc.sig, mc.key); got != cgp.VerdictValid {
			t.Errorf("order %d: the reference says %s of a signature under a mixed-order key", n, got)
		}
		if got := verdict("prime-order-keys", mc.sig, mc.key); got != cgp.VerdictMalformedKey {
			t.Errorf("order %d: prime-order-keys says %s", n, got)
		}
		msg = []byte("a commitment's 32 raw bytes....!")
	}
}

// TestFrameScoresAreSettled: the check-frame target's scores read as the
// same f32 straight and through an f64, and fall where their list says.
func TestFrameScoresAreSettled(t *testing.T) {
	for _, tc := range []struct {
		scores []string
		in     bool
	}{{inRangeScores, true}, {outOfRangeScores, false}} {
		for _, s := range tc.scores {
			if !f32Settled(s) {
				t.Errorf("%s is read apart straight and through an f64", s)
			}
			frame, err := canon.Parse([]byte(`{"id":"a","kind":"doc","title":"t","content":"","token_cost":0,"citation_label":"c","score":`+s+`}`), canon.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := RuleSet(FrameViolations(frame)); slices.Contains(got, "F1") == tc.in {
				t.Errorf("score %s: rules %v, want it in range: %t", s, got, tc.in)
			}
		}
	}
	for _, s := range []string{"1.00000005960464478", "1e39", "-3.5e38"} {
		if f32Settled(s) {
			t.Errorf("%s is settled", s)
		}
	}
	// score-f32-truncated narrows toward zero: the f32 above 1 reads as 1.
	for lex, want := range map[string]float32{"1.0000001": 1, "-1e-45": 0, "0.5": 0.5, "1.00000005": 1} {
		if got := truncatedF32(mustFloat(t, lex)); got != want {
			t.Errorf("truncatedF32(%s) = %v, want %v", lex, got, want)
		}
	}
}

func mustFloat(t *testing.T, lex string) float64 {
	t.Helper()
	var x float64
	if err := json.Unmarshal([]byte(lex), &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestFailureClasses pins the words of the verdict and envelope classes.
func TestFailureClasses(t *testing.T) {
	for _, tc := range []struct{ want, got, class string }{
		{`{"a":1.0,"b":2}`, `{"a":1,"b":2}`, "number spelling"},
		{`{"a":0.1}`, `{"a":0.10000000149011612}`, "f32 digits"},
		{`{"a":0.1}`, `{"a":0.2}`, "number value"},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, "member order"},
		{`{"a":1}`, `{"a":1,"x":true}`, "member kept"},
		{`{"a":1}`, `{"a":1,"x":null}`, "null for absent"},
		{`{"a":1,"b":2}`, `{"a":1}`, "member dropped"},
		{`{"a":[1]}`, `{"a":[1,2]}`, "elements"},
		{`{"a":"x"}`, `{"a":"\u0078"}`, "spacing or escapes"},
		{`{"a":"x"}`, `{"a":1}`, "kind"},
		{`{"a":1}`, `{"a":`, "not JSON"},
	} {
		if got := envelopeClass(tc.want, tc.got); got != tc.class {
			t.Errorf("envelopeClass(%s, %s) = %q, want %q", tc.want, tc.got, got, tc.class)
		}
	}
	pub := hex.EncodeToString(newSigner(make([]byte, 32)).pub)
	for _, tc := range []struct{ key, facet string }{
		{pub, ""},
		{torsionPoints[4], "key small order"},
		{xZeroSign[0], "key x = 0, sign set"},
		{nonCanonicalLarge, "key y ≥ p"},
		{offCurveKey, "key off curve"},
		{strings.ToUpper(pub), "key form"},
		{pub[:62], "key form"},
	} {
		if got := keyFacet(tc.key); got != tc.facet {
			t.Errorf("keyFacet(%s) = %q, want %q", tc.key, got, tc.facet)
		}
	}
	s := newSigner(make([]byte, 32))
	msg := make([]byte, 32)
	for _, tc := range []struct {
		sig   []byte
		facet string
	}{
		{ed25519.Sign(s.priv, msg), "equation"},
		{s.withR(identityR, msg), "R small order"},
		{s.withR(nonCanonicalY(1, false), msg), "R y ≥ p"},
		{sPlus(ed25519.Sign(s.priv, msg), 1), "S ≥ L"},
		{ed25519.Sign(s.priv, msg)[:63], "signature form"},
	} {
		if got := signatureFacet(hex.EncodeToString(tc.sig)); got != tc.facet {
			t.Errorf("signatureFacet = %q, want %q", got, tc.facet)
		}
	}
	if got := mixedFacet(hex.EncodeToString(mixedKey(s.pub, 2))); got != "mixed-order key" {
		t.Errorf("mixedFacet of a mixed-order key = %q", got)
	}
}

// TestForgeShortcut: the verify target searches forgeries under weak keys
// of small order only; under every weak key it draws, that finds exactly
// what the full search finds.
func TestForgeShortcut(t *testing.T) {
	t.Parallel()
	keys := append(append([]string{offCurveKey, nonCanonicalLarge}, torsionPoints...), xZeroSign[:]...)
	for j := range 19 {
		keys = append(keys, hex.EncodeToString(nonCanonicalY(j, false)), hex.EncodeToString(nonCanonicalY(j, true)))
	}
	for _, k := range keys {
		full, fok := forge(k, torsionPoints)
		quick, qok := cachedForge(k)
		if fok != qok || full != quick {
			t.Errorf("%s: forge finds %t (%s), the verify target %t (%s)", k, fok, full.signature, qok, quick.signature)
		}
	}
}
