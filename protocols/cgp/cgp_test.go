package cgp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

func meta(t *testing.T, text string) []canon.Member {
	t.Helper()
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []canon.Member
	for _, m := range v.Members {
		if m.Key != "files" {
			out = append(out, m)
		}
	}
	return out
}

func TestCheckProfileManifest(t *testing.T) {
	tests := []struct {
		name, manifest, want string // want: a fragment of the one problem, or "" for none
	}{
		{"draft", `{"protocol_version":"contextgraph/1.0-draft","fixture_profile_version":"1.1.0","generation_command":"cargo test","files":{}}`, ""},
		{"1.0", `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1.0","generation_command":"x","files":{}}`, ""},
		{"other family", `{"protocol_version":"contextgraph/2.0","fixture_profile_version":"1.1.0","generation_command":"x","files":{}}`, "not in the contextgraph/1 family"},
		{"no family", `{"protocol_version":"mcp/1.0","fixture_profile_version":"1.1.0","generation_command":"x","files":{}}`, "not in the contextgraph/1 family"},
		{"unknown member", `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1.0","generation_command":"x","extra":1,"files":{}}`, `unknown member "extra"`},
		{"missing command", `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1.0","files":{}}`, "missing member generation_command"},
		{"bad profile version", `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1","generation_command":"x","files":{}}`, "not MAJOR.MINOR.PATCH"},
		{"number version", `{"protocol_version":1,"fixture_profile_version":"1.1.0","generation_command":"x","files":{}}`, "protocol_version is number, not a string"},
	}
	for _, tt := range tests {
		got := CheckProfileManifest(meta(t, tt.manifest))
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("%s: problems %v", tt.name, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%s: problems %v, want one with %q", tt.name, got, tt.want)
		}
	}
}

// TestRealProfiles checks both published profiles' manifests.
func TestRealProfiles(t *testing.T) {
	dir := sharedtest.Dir(t, "the CGP fixture profiles live in ../shared/corpora/cgp")
	for _, p := range []string{"contextgraph-1.0-draft", "contextgraph-1.0"} {
		raw, err := os.ReadFile(filepath.Join(dir, "corpora", "cgp", p, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		m := meta(t, string(raw))
		if !IsProfileManifest(m) {
			t.Errorf("%s: not recognised as a profile manifest", p)
		}
		if problems := CheckProfileManifest(m); len(problems) > 0 {
			t.Errorf("%s: %v", p, problems)
		}
	}
}
