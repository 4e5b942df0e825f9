package cgp

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

func mustParse(t testing.TB, text string) canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNormalizeQueryExample(t *testing.T) {
	v := mustParse(t, `{"goal":"Find retry guidance for the café service","max_frames":8,"max_tokens":2048}`)
	n, err := NormalizeQuery(v)
	if err != nil {
		t.Fatal(err)
	}
	text, err := Canonical(n)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"anchors":[],"goal":"Find retry guidance for the café service","kinds":[],"max_frames":8,"max_tokens":2048}`; string(text) != want {
		t.Errorf("jcs = %s", text)
	}
	if d := DigestOf(text); d != "sha256:08f2db49252b77c5930844d3b4726fe0f370b59a458887c894adf40c4b853906" {
		t.Errorf("digest = %s", d)
	}
}

func TestNormalizeKeepsOrderAndAbsence(t *testing.T) {
	v := mustParse(t, `{"id":"a","score":1.0,"embedding":{"fingerprint":"f"},"relations":[{"rel":"b","target_uri":"x"},{"rel":"a","target_uri":"y"}]}`)
	n, err := NormalizeFrame(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.String(), `{"id":"a","score":1.0,"embedding":{"fingerprint":"f"},"relations":[{"rel":"b","target_uri":"x"},{"rel":"a","target_uri":"y"}],"provenance":[]}`; got != want {
		t.Errorf("normalized = %s\nwant         %s", got, want)
	}
	if n, _ := NormalizeFrameWith(v, Options{NullOptionals: true}); !strings.Contains(n.String(), `"uri":null`) || !strings.Contains(n.String(), `"vector":null`) {
		t.Errorf("null-optionals = %s", n.String())
	}
}

func TestStrictPaths(t *testing.T) {
	tests := []struct{ target, in, path string }{
		{"frame", `{"id":"a","future_field":true}`, "frame.future_field"},
		{"frame", `{"content_digest":"sha256:00"}`, "frame.content_digest"},
		{"frame", `{"provenance":[{"type":"file","future_field":true}]}`, "frame.provenance[0].future_field"},
		{"frame", `{"provenance":[{"type":"file"},{"x":1}]}`, "frame.provenance[1].x"},
		{"frame", `{"embedding":{"fingerprint":"f","future_field":true}}`, "frame.embedding.future_field"},
		{"frame", `{"relations":[{"rel":"r","target_uri":"t","future_field":true}]}`, "frame.relations[0].future_field"},
		{"frame", `{"relations":[{"zz":1}],"aa":1}`, "frame.relations[0].zz"},
		{"query", `{"goal":"g","future_field":true}`, "query.future_field"},
		{"query", `{"goal":"g","representation_preferences":[]}`, "query.representation_preferences"},
	}
	for _, tt := range tests {
		var err error
		if tt.target == "frame" {
			_, err = ParseFrame([]byte(tt.in))
		} else {
			_, err = ParseQuery([]byte(tt.in))
		}
		e, ok := err.(*Error)
		if !ok || e.Code != CodeUnknownField || e.Path != tt.path || e.Error() != "unknown field "+tt.path {
			t.Errorf("%s: err = %v, want unknown field %s", tt.in, err, tt.path)
		}
	}
	// content_ref and transform are not checked.
	if _, err := ParseFrame([]byte(`{"content_ref":{"x":1},"transform":{"y":2}}`)); err != nil {
		t.Errorf("content_ref/transform: %v", err)
	}
	if _, err := ParseFrame([]byte(`{"provenance":{}}`)); err == nil || err.(*Error).Code != CodeInvalidShape {
		t.Errorf("provenance object: %v", err)
	}
	if _, err := ParseFrame([]byte(`{"id":"a","id":"b"}`)); err == nil || err.(*Error).Code != CodeInvalidJSON {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestIsBlank(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, " \t ": true, "\u00a0": true, "\t \n": true, "\u3000\u2003\u0085\u2028": true,
		"a": false, " a ": false, "\u200b": false, "\ufeff": false,
	} {
		if IsBlank(s) != want {
			t.Errorf("IsBlank(%q) = %v", s, !want)
		}
	}
}

// TestSharedProfiles runs the reference over the upstream fixture profiles.
func TestSharedProfiles(t *testing.T) {
	dir := sharedtest.Dir(t, "the CGP fixture profiles live in ../shared/corpora/cgp")
	for _, profile := range []string{"contextgraph-1.0-draft", "contextgraph-1.0"} {
		root := filepath.Join(dir, "corpora", "cgp", profile)
		for file, norm := range map[string]func(canon.Value) (canon.Value, error){
			"context-frame.valid.json": NormalizeFrame, "context-query.valid.json": NormalizeQuery,
		} {
			raw, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				t.Fatal(err)
			}
			doc := mustParse(t, string(raw))
			for _, c := range doc.Members[0].Value.Elems {
				get := func(k string) canon.Value {
					for _, m := range c.Members {
						if m.Key == k {
							return m.Value
						}
					}
					t.Fatalf("%s: no %s", file, k)
					return canon.Value{}
				}
				n, err := norm(get("source"))
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				got, _ := Canonical(n)
				want, _ := Canonical(get("expected_normalized"))
				if string(got) != string(want) || string(got) != get("expected_jcs_utf8").Str {
					t.Errorf("%s %s: jcs = %s", profile, file, got)
				}
				if d, _ := Digest(n); d != get("sha256").Str {
					t.Errorf("%s %s: digest = %s", profile, file, d)
				}
			}
		}
		var strict struct {
			Cases []struct {
				Name        string          `json:"name"`
				Target      string          `json:"target"`
				Input       json.RawMessage `json:"input"`
				UnknownPath string          `json:"unknown_path"`
			} `json:"cases"`
		}
		raw, _ := os.ReadFile(filepath.Join(root, "strict-validation.invalid.json"))
		if err := json.Unmarshal(raw, &strict); err != nil || len(strict.Cases) != 5 {
			t.Fatalf("strict: %v", err)
		}
		for _, c := range strict.Cases {
			parse := ParseFrame
			if c.Target == "query" {
				parse = ParseQuery
			}
			_, err := parse(c.Input)
			if err == nil || err.Error() != "unknown field "+c.UnknownPath {
				t.Errorf("%s %s: err = %v, want unknown field %s", profile, c.Name, err, c.UnknownPath)
			}
		}
	}
}

// FuzzStrictFrame: the strict parser never panics, and an accepted frame's
// normalise-then-canonicalise is idempotent.
func FuzzStrictFrame(f *testing.F) {
	f.Add([]byte(`{"id":"a","provenance":[{"type":"file"}],"embedding":{"fingerprint":"f","vector":[1.0,-0]}}`))
	f.Add([]byte(`{"relations":[{"rel":"r","target_uri":"t","x":1}]}`))
	f.Add([]byte(`{"\ud83d\ude00":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseFrame(data)
		if err != nil {
			return
		}
		n, err := NormalizeFrame(v)
		if err != nil {
			t.Fatalf("accepted frame did not normalise: %v", err)
		}
		text, err := Canonical(n)
		if err != nil {
			return // e.g. a lone surrogate or a number beyond double range
		}
		again, err := ParseFrame(text)
		if err != nil {
			t.Fatalf("canonical text %s does not parse strictly: %v", text, err)
		}
		n2, err := NormalizeFrame(again)
		if err != nil {
			t.Fatal(err)
		}
		text2, err := Canonical(n2)
		if err != nil || string(text2) != string(text) {
			t.Fatalf("not idempotent: %s then %s (%v)", text, text2, err)
		}
	})
}

func TestRecordHash(t *testing.T) {
	tests := []struct{ record, preimage string }{
		{`{"b":1,"record_hash":"sha256:x","a":{"record_hash":"kept"}}`, `{"a":{"record_hash":"kept"},"b":1}`},
		{`{"record_hash":null}`, `{}`},
		{`{"z":"\u00e9","a:b":[1.0,2]}`, `{"a:b":[1,2],"z":"é"}`},
	}
	for _, tt := range tests {
		v, err := canon.Parse([]byte(tt.record), canon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := RecordPreimage(v)
		if err != nil || string(got) != tt.preimage {
			t.Errorf("RecordPreimage(%s) = %s, %v; want %s", tt.record, got, err, tt.preimage)
		}
		h, _ := RecordHash(v)
		if h != DigestOf([]byte(tt.preimage)) {
			t.Errorf("RecordHash(%s) = %s", tt.record, h)
		}
	}
	if _, err := RecordHash(canon.Value{Kind: canon.Array}); err == nil {
		t.Error("RecordHash of an array: no error")
	}
}

func TestRecordAttestation(t *testing.T) {
	// The published test key of upstream's record-attestation-key.json.
	seed := []byte("contextgraph-lifecycle-test-key!")
	const hash = "sha256:b45eebfdfe7e6e5056bf25d84864cf9acd731eef120a1f6de129fb788c3b34dc"
	msg, err := RecordAttestationMessage(hash)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(msg); got != "636f6e7465787467726170682f6174746573742f312f7265636f7264b45eebfdfe7e6e5056bf25d84864cf9acd731eef120a1f6de129fb788c3b34dc" {
		t.Errorf("message = %s", got)
	}
	sig, err := SignRecordAttestation(seed, hash)
	if err != nil {
		t.Fatal(err)
	}
	if sig != "8cce3f453510c50d88821eb57dd1767827ba7ab5e29d072b1fadf29583313a04635521228a62b3015399ca8676394087a2bb861a4f893ff4912dea43fdccb905" {
		t.Errorf("signature = %s", sig)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if hex.EncodeToString(pub) != "495b4a0a4a16c5444d8626a7ae0bc6eca613676b51fb947238cb8238baa9fde5" {
		t.Errorf("public key = %x", pub)
	}
	for _, bad := range []string{"b45e", "sha256:B45EEBFDFE7E6E5056BF25D84864CF9ACD731EEF120A1F6DE129FB788C3B34DC", "md5:b45eebfdfe7e6e5056bf25d84864cf9acd731eef120a1f6de129fb788c3b34dc"} {
		if _, err := RecordAttestationMessage(bad); err == nil {
			t.Errorf("RecordAttestationMessage(%q): no error", bad)
		}
	}
}

func TestVerifyRecordAttestation(t *testing.T) {
	seed := []byte("contextgraph-lifecycle-test-key!")
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	record, _ := canon.Parse([]byte(`{"record_id":"r1","record_hash":"sha256:stale"}`), canon.ReadOptions{})
	other, _ := canon.Parse([]byte(`{"record_id":"r2"}`), canon.ReadOptions{})
	h, _ := RecordHash(record)
	oh, _ := RecordHash(other)
	good, _ := SignRecordAttestation(seed, h)
	otherSig, _ := SignRecordAttestation(seed, oh)
	bare := hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), mustHex(t, strings.TrimPrefix(h, "sha256:"))))
	att := func(hash, sig, alg string) canon.Value {
		v, err := canon.Parse([]byte(`{"signed_record_hash":"`+hash+`","key_id":"k","algorithm":"`+alg+`","attester_id":"p","signature":"`+sig+`","issued_at":"2026-07-29T14:00:05Z"}`), canon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name   string
		att    canon.Value
		reason string
	}{
		{"valid", att(h, good, "ed25519"), ""},
		{"commitment first", att(oh, "00", "ed25519"), ReasonCommitmentMismatch},
		{"another record, validly signed", att(oh, otherSig, "ed25519"), ReasonCommitmentMismatch},
		{"bare digest signed", att(h, bare, "ed25519"), ReasonSignatureInvalid},
		{"placeholder", att(h, "3045022100c0ffee02207a1753754b6e334dc7e782562dfe52fb54eb67a66d01ecffe499", "ed25519"), ReasonSignatureInvalid},
		{"other algorithm", att(h, good, "ecdsa-p256"), ReasonMalformed},
	}
	// An identity key with an identity R and S = 0 verifies any message
	// under crypto/ed25519; a strict verifier refuses it.
	weak := mustHex(t, "0100000000000000000000000000000000000000000000000000000000000000")
	forged := "01" + strings.Repeat("00", 63)
	if err := VerifyRecordAttestation(record, att(h, forged, "ed25519"), weak); err == nil {
		t.Error("a small-order key's forged signature verified")
	}
	for _, k := range []string{"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"} {
		if !WeakPublicKey(mustHex(t, k)) {
			t.Errorf("WeakPublicKey(%s) = false", k)
		}
	}
	if WeakPublicKey(pub) {
		t.Error("the published test key is weak")
	}
	for _, tt := range tests {
		err := VerifyRecordAttestation(record, tt.att, pub)
		var ae *AttestationError
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.reason != "" && (!errors.As(err, &ae) || ae.Reason != tt.reason):
			t.Errorf("%s: error %v, want reason %s", tt.name, err, tt.reason)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
