package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWriteFails: a report that cannot be written leaves no earlier
// run's file of that name, the other reports are written, and the run exits
// 2 naming the flag. It is not parallel: it swaps writeFile, which the
// parallel tests' runs use.
func TestReportWriteFails(t *testing.T) {
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	if err := os.WriteFile(jsonPath, []byte(`{"conformant": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	real := writeFile
	t.Cleanup(func() { writeFile = real })
	writeFile = func(path string, data []byte) error {
		if path == jsonPath {
			return errors.New("no space left on device")
		}
		return real(path, data)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"run", "jcs", "-q", "--run", "jcs/numbers/1e21", "--json", jsonPath, "--junit", junitPath}, strings.NewReader(""), &stdout, &stderr)
	if code != 2 {
		t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(jsonPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier run's %s is still there (%v)", jsonPath, err)
	}
	if b, err := os.ReadFile(junitPath); err != nil || !bytes.Contains(b, []byte("<testsuites")) {
		t.Errorf("the JUnit report was not written: %v", err)
	}
	for _, want := range []string{"--json: removed " + jsonPath, "--json: no space left on device"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "1 passed") {
		t.Errorf("the text report is missing:\n%s", stdout.String())
	}
}

// TestStdoutFailsFilesWritten: a closed stdout does not cost the report
// files.
func TestStdoutFailsFilesWritten(t *testing.T) {
	t.Parallel()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	code := Main([]string{"run", "jcs", "-q", "--run", "jcs/numbers/1e21", "--json", jsonPath}, strings.NewReader(""), failingWriter{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "writing the text report") {
		t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if b, err := os.ReadFile(jsonPath); err != nil || !bytes.Contains(b, []byte(`"conformant": true`)) {
		t.Errorf("the JSON report: %s, %v", b, err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		str  string
	}{
		{"1048576", 1 << 20, "1MiB"},
		{"512MiB", 512 << 20, "512MiB"},
		{"512mib", 512 << 20, "512MiB"},
		{"2G", 2 << 30, "2GiB"},
		{"64k", 64 << 10, "64KiB"},
		{"10MB", 10_000_000, "10000000"},
		{"100", 100, "100"},
		{"7 KiB", 7 << 10, "7KiB"},
	} {
		var s byteSize
		if err := s.Set(tc.in); err != nil || int64(s) != tc.want || s.String() != tc.str {
			t.Errorf("Set(%q): %d %q %v, want %d %q", tc.in, s, s.String(), err, tc.want, tc.str)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5MiB", "lots", "MiB", "9999999999GiB"} {
		var s byteSize
		if err := s.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, s)
		}
	}
}

// TestErrorMessageClipped: a corpus value quoted in an error (a number of
// a million digits, which the corpus's size limit allows) gives a line of
// at most a few kilobytes, saying how long it was; and a message of many
// lines shows the first ones and how many more.
func TestErrorMessageClipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("1", 1_000_000)
	vectors := `{"format":"referee-jcs/1","vectors":[{"name":"a","input":"[` + big + `]","output":"[` + big + `]"}]}`
	if err := os.WriteFile(filepath.Join(dir, "vectors.json"), []byte(vectors), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"run", "jcs", "--corpus", dir}, strings.NewReader(""), &stdout, &stderr)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (a corpus error); stderr %.300q", code, stderr.String())
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if len(l) > maxMessageLineSize+100 {
			t.Errorf("a stderr line of %d bytes: %.200q", len(l), l)
		}
	}
	if !strings.Contains(stderr.String(), "bytes in all)") {
		t.Errorf("the clipped line does not say how long it was: %.300q", stderr.String())
	}

	lines := strings.Repeat("problem\n", maxMessageLines+7)
	got := clipMessage(strings.TrimSuffix(lines, "\n"))
	if n := strings.Count(got, "\n") + 1; n != maxMessageLines+1 || !strings.HasSuffix(got, "\n... and 7 more lines") {
		t.Errorf("%d lines, ending %q", n, got[max(0, len(got)-40):])
	}
}
