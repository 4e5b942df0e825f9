//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFONeverBlocks: a FIFO with no writer, named directly, through a
// symlink or inside a DirFS, is refused at once; open(2) would wait for a
// writer forever.
func TestFIFONeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"ReadFile":         func() error { _, err := ReadFile(fifo, 0); return err },
		"ReadFile symlink": func() error { _, err := ReadFile(link, 0); return err },
		"Open":             func() error { _, err := Open(fifo, 0); return err },
		"DirFS":            func() error { _, err := fs.ReadFile(DirFS(dir, 0), "pipe.json"); return err },
		"DirFS Open":       func() error { _, err := DirFS(dir, 0).Open("link.json"); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe (FIFO)") {
				t.Errorf("%s: %v, want not a regular file: a named pipe", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still blocked after 10s", name)
		}
	}
	if _, err := ReadFile("/dev/null", 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a device") {
		t.Errorf("/dev/null: %v", err)
	}
}
