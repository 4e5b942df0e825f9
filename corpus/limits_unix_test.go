//go:build unix

package corpus

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFONeverBlocks: a FIFO anywhere in a corpus (listed in its manifest
// or not, the manifest itself, or met by Lock) is a problem found at once;
// open(2) on it would wait for a writer forever.
func TestFIFONeverBlocks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		fifo  string
		open  func(dir string) error
	}{
		{"no manifest", map[string]string{"a.txt": "a"}, "vectors.json",
			func(dir string) error { _, err := OpenDir(dir, 0); return err }},
		{"listed in the manifest", map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"` + digestA + `","vectors.json":"` + digestB + `"}}`}, "vectors.json",
			func(dir string) error { _, err := OpenDir(dir, 0); return err }},
		{"the manifest", map[string]string{"a.txt": "a"}, "manifest.json",
			func(dir string) error { _, err := OpenDir(dir, 0); return err }},
		{"lock", map[string]string{"a.txt": "a"}, "vectors.json",
			func(dir string) error { _, err := Lock(dir, 0); return err }},
		{"lock over the manifest", map[string]string{"a.txt": "a"}, "manifest.json",
			func(dir string) error { _, err := Lock(dir, 0); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, tc.files)
			if err := syscall.Mkfifo(filepath.Join(dir, tc.fifo), 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			done := make(chan error, 1)
			go func() { done <- tc.open(dir) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("still blocked on the FIFO after 10s")
			}
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Path != tc.fifo || !strings.Contains(ce.Problems[0].Msg, "not a regular file: a named pipe (FIFO)") {
				t.Errorf("err = %v, want one problem: %s is a FIFO", err, tc.fifo)
			}
		})
	}
}
