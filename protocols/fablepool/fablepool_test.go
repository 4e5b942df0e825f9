package fablepool

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

var seed02 = mustHex(strings.Repeat("02", 32))

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestCanonicalText(t *testing.T) {
	tests := []struct{ in, want, code string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`, ""},
		{`{"\ud83d\ude02":1,"\ufb33":2,"z":3}`, `{"z":3,"` + "\ufb33" + `":2,"😂":1}`, ""},
		{`["\u000f/\u007f\u2028"]`, `["\u000f/` + "\x7f\u2028" + `"]`, ""},
		{`[-0,9007199254740991]`, `[0,9007199254740991]`, ""},
		{`[9007199254740992]`, "", CodeCanonicalUnsupported},
		{`[1.0]`, "", CodeCanonicalUnsupported},
		{`[1e3]`, "", CodeCanonicalUnsupported},
		{`["\ud800"]`, "", CodeCanonicalUnsupported},
		{`{"a":1,"a":2}`, "", CodeJSONInvalid},
		{`[NaN]`, "", CodeJSONInvalid},
		{`{"a":`, "", CodeJSONInvalid},
	}
	for _, tt := range tests {
		got, err := CanonicalText([]byte(tt.in))
		if code := CodeOf(err); code != tt.code || string(got) != tt.want {
			t.Errorf("CanonicalText(%s) = %s, %v; want %s, %s", tt.in, got, err, tt.want, tt.code)
		}
	}
}

func validBody(t *testing.T) canon.Value {
	t.Helper()
	pub, _ := PublicKey(seed02)
	v, err := canon.Parse([]byte(`{"v":1,"type":"evidence","author":"`+Author(pub)+`","ts":1700000000,"prev":[],"payload":{"source":"conformance","kind":"sample","body":"hello world"}}`), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSignOpMatchesTheDraft(t *testing.T) {
	op, err := SignOp(seed02, validBody(t))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := op.Lookup("id")
	sig, _ := op.Lookup("sig")
	// The values ../shared/corpora/fablepool/draft-recorded.json gives, made
	// independently with Python and OpenSSL.
	if id.Str != "op:061851c1b2c6d169095a800e9ad693104517ed607c7b216c52124c5fd1d73d41" ||
		sig.Str != "bfb25b12732ca9c946c42d3df8b0e914b6310c30974c4a1f2b9b10c571a18208e13d22503e2963f3a34bf64291d22c4e67f0dc33bc0253439e788156aa427e0c" {
		t.Errorf("id %s sig %s", id.Str, sig.Str)
	}
	if err := VerifyOp(op); err != nil {
		t.Errorf("VerifyOp of a fresh op: %v", err)
	}
}

func TestVerifyOpOrder(t *testing.T) {
	op, err := SignOp(seed02, validBody(t))
	if err != nil {
		t.Fatal(err)
	}
	base := op.String()
	edit := func(from, to string) string { return strings.Replace(base, from, to, 1) }
	tests := []struct {
		name, text, code string
	}{
		{"not an object", `[1]`, CodeShape},
		{"missing sig", edit(`,"sig":`, `,"xsig":`), CodeMissingField},
		{"unknown member", strings.TrimSuffix(base, "}") + `,"x":1}`, CodeUnknownField},
		{"v 1.0", edit(`"v":1`, `"v":1.0`), CodeFieldType},
		{"v 2", edit(`"v":1`, `"v":2`), CodeVersionUnsupported},
		{"bad version before bad type", edit(`"v":1,"type":"evidence"`, `"v":2,"type":"E"`), CodeVersionUnsupported},
		{"type uppercase", edit(`"evidence"`, `"Evidence"`), CodeFieldType},
		{"ts negative", edit(`1700000000`, `-1`), CodeFieldType},
		{"prev duplicate", edit(`"prev":[]`, `"prev":["op:`+strings.Repeat("a", 64)+`","op:`+strings.Repeat("a", 64)+`"]`), CodeFieldType},
		{"payload array", edit(`"payload":{"source":"conformance","kind":"sample","body":"hello world"}`, `"payload":[]`), CodeFieldType},
		{"sig uppercase", strings.Replace(base, `"sig":"bfb2`, `"sig":"BFB2`, 1), CodeFieldType},
		{"payload float", edit(`"body":"hello world"`, `"body":0.5`), CodeCanonicalUnsupported},
		{"payload edited", edit(`hello world`, `hello World`), CodeIDMismatch},
		{"ts edited", edit(`1700000000`, `1700000001`), CodeIDMismatch},
	}
	for _, tt := range tests {
		v, err := canon.Parse([]byte(tt.text), canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if code := CodeOf(VerifyOp(v)); code != tt.code {
			t.Errorf("%s: %s, want %s", tt.name, code, tt.code)
		}
	}
}

func TestVerifyNeverPanics(t *testing.T) {
	pub, _ := PublicKey(seed02)
	for _, tt := range []struct{ pub, sig []byte }{{nil, nil}, {pub[:31], make([]byte, 64)}, {pub, make([]byte, 63)}, {make([]byte, 32), make([]byte, 64)}} {
		if Verify(tt.pub, []byte("m"), tt.sig) {
			t.Errorf("Verify(%x, %x) = true", tt.pub, tt.sig)
		}
	}
	if Tamper(nil)[0] != 0 || Tamper([]byte{0x10})[0] != 0x11 {
		t.Error("Tamper")
	}
}

func sharedFile(t *testing.T, parts ...string) []byte {
	t.Helper()
	dir := sharedtest.Dir(t, "the RFC 8032 and Wycheproof vectors live in ../shared/corpora/ed25519")
	b, err := os.ReadFile(filepath.Join(append([]string{dir, "corpora"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRFC8032(t *testing.T) {
	var f struct {
		Vectors []struct{ Name, SecretKey, PublicKey, Message, Signature string } `json:"vectors"`
	}
	raw := sharedFile(t, "ed25519", "rfc8032_7.1_ed25519.json")
	raw = []byte(strings.NewReplacer(`"secret_key"`, `"SecretKey"`, `"public_key"`, `"PublicKey"`).Replace(string(raw)))
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) != 5 {
		t.Fatalf("%d vectors", len(f.Vectors))
	}
	for _, v := range f.Vectors {
		pub, _ := PublicKey(mustHex(v.SecretKey))
		sig, _ := Sign(mustHex(v.SecretKey), mustHex(v.Message))
		if hex.EncodeToString(pub) != v.PublicKey || hex.EncodeToString(sig) != v.Signature || !Verify(pub, mustHex(v.Message), sig) {
			t.Errorf("%s: pub %x sig %x", v.Name, pub, sig)
		}
	}
}

func TestWycheproof(t *testing.T) {
	var f struct {
		TestGroups []struct {
			PublicKey struct{ PK string } `json:"publicKey"`
			Tests     []struct {
				TcID             int `json:"tcId"`
				Msg, Sig, Result string
			} `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(sharedFile(t, "ed25519", "wycheproof_ed25519_test.json"), &f); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range f.TestGroups {
		pub, _ := hex.DecodeString(g.PublicKey.PK)
		for _, tc := range g.Tests {
			n++
			msg, _ := hex.DecodeString(tc.Msg)
			sig, _ := hex.DecodeString(tc.Sig)
			if got := Verify(pub, msg, sig); got != (tc.Result == "valid") {
				t.Errorf("tcId %d (%s): Verify = %v", tc.TcID, tc.Result, got)
			}
		}
	}
	if n != 151 {
		t.Errorf("%d tests, want 151", n)
	}
}

func FuzzVerifyOp(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"t","author":"ed25519:` + strings.Repeat("0", 64) + `","ts":0,"prev":[],"payload":{},"id":"op:` + strings.Repeat("0", 64) + `","sig":"` + strings.Repeat("0", 128) + `"}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`{"v":1.0}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		v, err := canon.Parse(text, canon.ReadOptions{})
		if err != nil {
			return
		}
		if err := VerifyOp(v); err != nil && CodeOf(err) == "" {
			t.Fatalf("VerifyOp error without a profile code: %v", err)
		}
		if b, err := Canonical(v); err == nil {
			if again, err := CanonicalText(b); err != nil || string(again) != string(b) {
				t.Fatalf("canonical form not idempotent: %s -> %s, %v", b, again, err)
			}
		}
	})
}

// TestOpFields holds the signed operation's members, written out as data,
// to the body's and id and sig.
func TestOpFields(t *testing.T) {
	if want := append(slices.Clone(BodyFields), "id", "sig"); !slices.Equal(OpFields, want) {
		t.Errorf("OpFields = %q, want %q", OpFields, want)
	}
}

// TestKeyOf: a key taken from the cache is the key the seed derives, for
// more seeds than the cache holds, each asked twice.
func TestKeyOf(t *testing.T) {
	for round := range 2 {
		for i := range maxKeys + 10 {
			seed := make([]byte, ed25519.SeedSize)
			binary.BigEndian.PutUint32(seed, uint32(i))
			if got, want := keyOf(seed), ed25519.NewKeyFromSeed(seed); !bytes.Equal(got, want) {
				t.Fatalf("round %d, seed %d: %x, want %x", round, i, got, want)
			}
		}
	}
}
