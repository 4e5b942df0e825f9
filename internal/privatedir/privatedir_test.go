//go:build unix

package privatedir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMake(t *testing.T) {
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "b")
	if err := Make(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("a new directory: %v, %v", fi.Mode(), err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := Make(open); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(open); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("a directory writable by others: now %v, %v; want 0755", fi.Mode(), err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Make(file); err == nil {
		t.Error("Make took a file")
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(fresh, link); err != nil {
		t.Fatal(err)
	}
	if err := Make(link); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Make took a symbolic link: %v", err)
	}
	if os.Getuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if err := Make(theirs); err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
			t.Errorf("Make took another user's directory: %v", err)
		}
	}
}

func TestCheckTree(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spoil func(root string) error
		want  string // in the error; "" for none
	}{
		{"private", func(string) error { return nil }, ""},
		{"a file writable by others", func(root string) error { return os.Chmod(filepath.Join(root, "d", "f"), 0o646) }, "d/f: writable by group or others"},
		{"a directory writable by its group", func(root string) error { return os.Chmod(filepath.Join(root, "d"), 0o775) }, "d: writable by group or others"},
		{"the root writable by others", func(root string) error { return os.Chmod(root, 0o757) }, ": writable by group or others"},
		{"a symbolic link", func(root string) error { return os.Symlink("f", filepath.Join(root, "d", "l")) }, "d/l: a symbolic link"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "d", "f"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tt.spoil(root); err != nil {
				t.Fatal(err)
			}
			err := CheckTree(root)
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckTree: %v, want an error holding %q", err, tt.want)
			}
		})
	}
}

func TestUserName(t *testing.T) {
	if got, want := UserName("referee"), "referee-"+strconv.Itoa(os.Getuid()); got != want {
		t.Errorf("UserName = %q, want %q", got, want)
	}
}
