package regularfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
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
	if _, err := Read(open(dir), 5, "it reads"); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr string
	}{
		{"at the limit", path, 6, "hello\n", ""},
		{"default limit", path, 0, "hello\n", ""},
		{"over the limit", path, 5, "", "open " + path + ": 6 bytes, more than the limit of 5 bytes per file (--max-file-size)"},
		{"a directory", dir, 0, "", "open " + dir + ": not a regular file: a directory"},
		{"missing", filepath.Join(dir, "nope"), 0, "", "open " + filepath.Join(dir, "nope") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFile(tc.path, tc.limit)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("err %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("%q, %v", got, err)
			}
		})
	}
	var tl *TooLargeError
	if _, err := ReadFile(path, 5); !errors.As(err, &tl) || tl.Size != 6 || tl.Limit != 5 {
		t.Errorf("over the limit: %#v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "nope"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v is not fs.ErrNotExist", err)
	}
}

// TestGrowsAfterOpen: a file that grows past the limit after the check is
// cut off while it is read, not read whole.
func TestGrowsAfterOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte("1234"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte("123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	var tl *TooLargeError
	if !errors.As(err, &tl) || len(data) > 4 {
		t.Errorf("read %q, %v; want at most 4 bytes and a TooLargeError", data, err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		256 << 20: "268435456 bytes (256 MiB)",
		1 << 30:   "1073741824 bytes (1 GiB)",
		3 << 10:   "3072 bytes (3 KiB)",
		1000:      "1000 bytes",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDirFS(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a.json": "{}", "sub/b.txt": "four", "big.bin": "0123456789"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := DirFS(dir, 8)
	if b, err := fs.ReadFile(fsys, "sub/b.txt"); err != nil || string(b) != "four" {
		t.Errorf("sub/b.txt: %q, %v", b, err)
	}
	_, err := fs.ReadFile(fsys, "big.bin")
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "open big.bin: 10 bytes, more than the limit of 8 bytes per file (--max-file-size)" {
		t.Errorf("big.bin: %v", err)
	}
	if _, err := fsys.Open("../escape"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("../escape: %v", err)
	}
	var walked []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			walked = append(walked, p)
		}
		return err
	})
	if strings.Join(walked, " ") != "a.json big.bin sub/b.txt" {
		t.Errorf("walked %v", walked)
	}
	// Every file but the big one passes fstest's checks of an fs.FS.
	os.Remove(filepath.Join(dir, "big.bin"))
	if err := fstest.TestFS(fsys, "a.json", "sub/b.txt"); err != nil {
		t.Error(err)
	}
}
