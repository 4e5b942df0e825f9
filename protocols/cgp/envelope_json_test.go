package cgp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/refereehq/referee/internal/sharedtest"
)

func TestFormatF32(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want string
	}{
		{1, "1.0"}, {0.875, "0.875"}, {0.8, "0.8"}, {0.7, "0.7"}, {0.1, "0.1"}, {-0.25, "-0.25"},
		{0, "0.0"}, {float32(math.Copysign(0, -1)), "-0.0"}, {12, "12.0"}, {12.5, "12.5"},
		{123456789, "123456790.0"}, {1e12, "1000000000000.0"}, {9999999e6, "9999999000000.0"},
		{1e13, "1e13"}, {1.5e13, "1.5e13"}, {1e-5, "0.00001"}, {1e-6, "0.000001"},
		{1.25e-6, "0.00000125"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {math.MaxFloat32, "3.4028235e38"},
		{math.SmallestNonzeroFloat32, "1e-45"}, {16777217, "16777216.0"},
		{float32(math.Inf(1)), "null"}, {float32(math.NaN()), "null"},
	} {
		if got := FormatF32(tc.f); got != tc.want {
			t.Errorf("FormatF32(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestSerdeString(t *testing.T) {
	got := string(AppendSerdeString(nil, "a\"\\\b\f\n\r\t\x01\x1f\x7f/\u2028é😀"))
	if want := `"a\"\\\b\f\n\r\t\u0001\u001f` + "\x7f/\u2028é😀\""; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// The reference envelopes with an f32 of each shape, pinned so the test runs
// without ../shared.
var pinnedEnvelopes = []string{
	`{"type":"handshake_ack","protocol_version":"contextgraph/1.0","provider":{"name":"minimal-provider","version":"0.1.0","data_flow":{"reads":false,"writes":false,"egress":false}},"capabilities":{"query":{"kinds":[]},"correlation":false,"graph":false,"verify":false,"resolve":false}}`,
	`{"type":"query","id":"req-1","query":{"goal":"explain the retry policy","query_text":"retry backoff","embedding":[0.1,-0.25,0.5],"kinds":["doc","snippet"],"anchors":["file:///repo/src/retry.rs"],"max_frames":8,"max_tokens":4096,"as_of":"2026-07-21T12:34:56Z","representation_preferences":["compact","full"]}}`,
	`{"type":"frames","result":{"frames":[],"truncated":false}}`,
	`{"type":"frames","id":"req-1","result":{"frames":[{"id":"frame:minimal","kind":"fact","title":"Minimal conforming frame","content":"Default arrays are omitted on the wire.","score":1.0,"token_cost":10,"citation_label":"minimal vector"},{"id":"x","kind":"doc","title":"t","score":0.875,"token_cost":0,"embedding":{"fingerprint":"f","vector":[0.125,-0.5,1.0]}}],"truncated":true,"dropped_estimate":12}}`,
	`{"type":"error","code":"quota_exhausted","message":"a code this revision does not define"}`,
}

func TestEncodeReferencePinned(t *testing.T) {
	for _, line := range pinnedEnvelopes {
		env, err := DecodeEnvelope([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalReference(env)
		if err != nil || string(got) != line {
			t.Errorf("re-serialised\n got %s (%v)\nwant %s", got, err, line)
		}
	}
}

// TestEncodeReferenceVectors round-trips every line of upstream's
// schema/reference-vectors.ndjson, at 00377ab and in the newer index.
func TestEncodeReferenceVectors(t *testing.T) {
	dir := sharedtest.Dir(t, "upstream's reference envelopes")
	for _, rev := range []string{"head-00377ab", "index-newer"} {
		data, err := os.ReadFile(filepath.Join(dir, "corpora/cgp/_extra", rev, "schema/reference-vectors.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		if len(lines) != 13 {
			t.Errorf("%s: %d lines, want 13", rev, len(lines))
		}
		for i, line := range lines {
			env, err := DecodeEnvelope(line)
			if err != nil {
				t.Fatalf("%s line %d: %v", rev, i+1, err)
			}
			got, err := MarshalReference(env)
			if err != nil || !bytes.Equal(got, line) {
				t.Errorf("%s line %d re-serialised\n got %s (%v)\nwant %s", rev, i+1, got, err, line)
			}
		}
	}
}
