package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/refereehq/referee/internal/regularfile"
)

// TestFileSizeLimit: a file over the limit is refused by its size, with a
// problem naming it and the limit, whether or not a manifest lists it, and
// by Lock; at the limit it is read.
func TestFileSizeLimit(t *testing.T) {
	const limit = 300 // more than the manifest's own size
	big := strings.Repeat("x", limit+1)
	bigDigest := digest([]byte(big))
	for _, tc := range []struct {
		name  string
		files map[string]string
		open  func(dir string) error
	}{
		{"no manifest", map[string]string{"a.txt": "a", "big.json": big},
			func(dir string) error { _, err := OpenDir(dir, limit); return err }},
		{"listed in a manifest", map[string]string{"a.txt": "a", "big.json": big, "manifest.json": `{"files":{"a.txt":"` + digestA + `","big.json":"` + bigDigest + `"}}`},
			func(dir string) error { _, err := OpenDir(dir, limit); return err }},
		{"lock", map[string]string{"a.txt": "a", "big.json": big},
			func(dir string) error { _, err := Lock(dir, limit); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, tc.files)
			err := tc.open(dir)
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Path != "big.json" {
				t.Fatalf("err = %v, want one problem for big.json", err)
			}
			want := "corpus " + dir + ": big.json: 301 bytes, more than the limit of 300 bytes per file (--max-file-size)"
			if err.Error() != want {
				t.Errorf("err = %q\nwant  %q", err, want)
			}
			if _, err := OpenDir(dir, limit+1); err != nil && tc.name != "lock" {
				t.Errorf("at the limit: %v", err)
			}
		})
	}
}

// TestReadFileGrown: a file that grew past the limit after the corpus was
// opened is refused when it is read.
func TestReadFileGrown(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.txt": "a"})
	c, err := OpenDir(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.ReadFile("a.txt")
	var tl *regularfile.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "corpus "+dir+": open a.txt: 5 bytes") {
		t.Errorf("ReadFile = %v", err)
	}
}

// TestErrorCannotForgeLines: a file name from the corpus cannot break or
// forge a line of the error: the corpus is refused, the name escaped.
func TestErrorCannotForgeLines(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no newlines in Windows file names")
	}
	dir := writeTree(t, map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"` + digestA + `"}}`})
	evil := "x\nPASS  jcs-fake\x1b[2K" // no slash: one file, not a directory
	if err := os.WriteFile(filepath.Join(dir, evil), []byte("e"), 0o644); err != nil {
		t.Skip("cannot name a file so here:", err)
	}
	_, err := OpenDir(dir, 0)
	if err == nil {
		t.Fatal("an unlisted file passed")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\x1b") || !strings.Contains(msg, "x‹U+000A›PASS  jcs-fake‹U+001B›[2K: the name holds a control, invisible or invalid character; rename it") {
		t.Errorf("err = %q", msg)
	}
}

// TestUnsafeNamesRefused: a corpus without a manifest, whose file names
// become check IDs and repro commands, refuses every name with a control,
// invisible or invalid character, in a file or a directory.
func TestUnsafeNamesRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no such names in Windows file names")
	}
	for _, name := range []string{"input/a\nFAKE.json", "in\u202eput/a.json", "input/a\x7f.json", "input/\xff.json"} {
		dir := writeTree(t, map[string]string{"input/ok.json": "{}"})
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Skipf("cannot name a file %q here: %v", name, err)
		}
		_, err := OpenDir(dir, 0)
		if err == nil || !strings.Contains(err.Error(), "the name holds a control, invisible or invalid character") || strings.ContainsAny(err.Error(), "\n\x7f\u202e") {
			t.Errorf("%q: err = %v", name, err)
		}
	}
}

// TestManifestSymlinkOutNotRead: a manifest.json that is a symlink leading
// out of the corpus is refused as the link it is, and not read: the error
// names the link, not the content of the file it points at.
func TestManifestSymlinkOutNotRead(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim.txt")
	if err := os.WriteFile(victim, []byte("Victim's secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "corpus")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ManifestName)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, err := OpenDir(dir, 0)
	if err == nil || !strings.Contains(err.Error(), ManifestName+": symlink leads out of the corpus") || strings.Contains(err.Error(), "canon:") {
		t.Fatalf("err = %v", err)
	}
}
