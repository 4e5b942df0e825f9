package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(p string) *os.File {
		f, err := os.OpenFile(p, os.O_RDONLY|NonBlock, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if data, err := Read(open(path), 6, "it reads"); err != nil || string(data) != "hello\n" {
		t.Errorf("a 6-byte file at limit 6: %q, %v", data, err)
	}
	if _, err := Read(open(path), 5, "it reads"); err == nil || err.Error() != "6 bytes, more than the 5 it reads" {
		t.Errorf("a 6-byte file at limit 5: %v", err)
	}
	if _, err := Read(open(dir), 5, "it reads"); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "(d") {
		t.Errorf("a directory: %v", err)
	}
}
