package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteLeavesNoHalfFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := Write(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "missing", "r.json"), []byte("x")); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
	if err := Write(path, []byte("second")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(b) != "second" || len(entries) != 1 {
		t.Errorf("content %q, %d entries (a temporary file left behind?)", b, len(entries))
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
}
