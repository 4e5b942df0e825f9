package corpus

import (
	"strings"
	"testing"
)

// A found corpus held in memory opens as the one fuzz writes: its manifest
// lists every file with its digest and says it was found by referee fuzz.
func TestFoundFS(t *testing.T) {
	fsys, err := FoundFS(map[string][]byte{"vectors.json": []byte("[]\n"), "sub/a.json": []byte("{}\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(fsys, "in-memory")
	if err != nil {
		t.Fatalf("the found corpus does not open: %v", err)
	}
	if c.Manifest == nil || len(c.Manifest.Files) != 2 {
		t.Fatalf("manifest %+v: want the two files", c.Manifest)
	}
	var format string
	for _, m := range c.Manifest.Meta {
		if f, ok := m.Value.Lookup("format"); m.Key == FuzzProvenanceKey && ok {
			format = f.Str
		}
	}
	if format != FuzzProvenanceFormat {
		t.Errorf("fuzz member's format %q, want %q", format, FuzzProvenanceFormat)
	}
	for _, bad := range []string{ManifestName, "../x.json", "/abs.json"} {
		if _, err := FoundFS(map[string][]byte{bad: nil}, nil); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("file %q: err %v, want one naming it", bad, err)
		}
	}
}
