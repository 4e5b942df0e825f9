//go:build unix

package cgplive_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/refereehq/referee/suites/cgplive"
)

// TestProviderOverAwkwardFolder: file names that need percent-encoding, a
// blank name, a FIFO and symlinks (one out of the folder) are served, or
// left out, so that the honest provider still passes everything.
func TestProviderOverAwkwardFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for name, text := range map[string]string{
		"pA.md": "# A\nplain\n", "p%41.md": "# Percent\nnot pA\n", "sp ace#frag?.md": "# Space\nhash and query\n",
		"\u00a0.txt": "a name that is blank\n", "naïve.md": "# Naïve\nnon-ASCII name\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("do not serve me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pA.md", filepath.Join(dir, "alias.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := cgplive.Check(context.Background(), stdioTarget(dir, ""), nil)
	for _, c := range res.Native.Checks {
		if c.Status != "pass" {
			t.Errorf("%s: %s: %s", c.Name, c.Status, c.Evidence)
		}
	}
	for _, c := range res.Native.Checks {
		if c.Name == budget && (contains(c.Evidence, "7 frame") || !contains(c.Evidence, "6 frame")) {
			t.Errorf("want 6 frames (5 files and the alias; not the FIFO, not the link out): %s", c.Evidence)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
