// Package golden compares test output with golden files, and rewrites them
// when the test binary runs with -update.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files (testdata, embedded corpora, scripts) instead of comparing")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the file at path; with -update it writes got there
// instead. A mismatch fails t with the first differing line.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test -update to write it)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, FirstDifference(want, got))
	}
}

// FirstDifference describes where two texts first differ, by line.
func FirstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n  golden: %q\n  got:    %q", i+1, clip(wl), clip(gl))
		}
	}
	return "they differ only in line endings"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
