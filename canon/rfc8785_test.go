package canon

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/internal/sharedtest"
)

// sharedDir returns the project's shared directory named by REFEREE_SHARED,
// skipping the test when it is unset.
func sharedDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Dir(t, "the RFC 8785 test data lives in ../shared/corpora/jcs")
}

func TestRFC8785TestData(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "corpora", "jcs")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 6 {
		t.Fatalf("found %d input files in %s, want 6", len(inputs), dir)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			hexText, err := os.ReadFile(filepath.Join(dir, "outhex", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			wantHex, err := hex.DecodeString(strings.Join(strings.Fields(string(hexText)), ""))
			if err != nil {
				t.Fatalf("outhex/%s.txt: %v", name, err)
			}
			wantJSON, err := os.ReadFile(filepath.Join(dir, "output", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := JCS.Canonicalize(data, ReadOptions{})
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if string(got) != string(wantHex) {
				t.Errorf("Canonicalize = %q\nwant outhex %q", got, wantHex)
			}
			if string(got) != string(wantJSON) {
				t.Errorf("Canonicalize = %q\nwant output %q", got, wantJSON)
			}
			// Canonical output is a fixed point.
			again, err := JCS.Canonicalize(got, ReadOptions{})
			if err != nil || string(again) != string(got) {
				t.Errorf("Canonicalize of the output = %q, %v", again, err)
			}
		})
	}
}
