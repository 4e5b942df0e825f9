package term

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsANSIFalse(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	closed, err := os.Create(filepath.Join(t.TempDir(), "closed"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()

	for _, tc := range []struct {
		name string
		f    *os.File
	}{
		{"nil", nil},
		{"pipe write end", w},
		{"pipe read end", r},
		{"regular file", file},
		{os.DevNull + " (a character device, not a terminal)", null},
		{"closed file", closed},
	} {
		if IsANSI(tc.f) {
			t.Errorf("IsANSI(%s) = true, want false", tc.name)
		}
	}
}
