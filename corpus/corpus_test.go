package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// writeTree writes files (path -> content) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	digestA = "sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" // "a"
	digestB = "sha256:3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" // "b"
)

func TestOpenDirProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []Problem // by path, with a fragment of the message
	}{
		{
			name:  "ok",
			files: map[string]string{"a.txt": "a", "sub/b.txt": "b", "manifest.json": `{"version":1,"files":{"a.txt":"` + digestA + `","sub/b.txt":"` + digestB + `"}}`},
		},
		{
			name:  "digest mismatch",
			files: map[string]string{"a.txt": "A", "manifest.json": `{"files":{"a.txt":"` + digestA + `"}}`},
			want:  []Problem{{"a.txt", "digest mismatch"}},
		},
		{
			name:  "missing file",
			files: map[string]string{"manifest.json": `{"files":{"a.txt":"` + digestA + `"}}`},
			want:  []Problem{{"a.txt", "missing"}},
		},
		{
			name:  "unlisted file",
			files: map[string]string{"a.txt": "a", "extra.json": "{}", "manifest.json": `{"files":{"a.txt":"` + digestA + `"}}`},
			want:  []Problem{{"extra.json", "not listed"}},
		},
		{
			name:  "escaping path",
			files: map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"` + digestA + `","../x":"` + digestA + `","/etc/passwd":"` + digestA + `","./a.txt":"` + digestA + `"}}`},
			want:  []Problem{{"../x", "escapes"}, {"./a.txt", "escapes"}, {"/etc/passwd", "escapes"}},
		},
		{
			name:  "bad digest",
			files: map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"SHA256:CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB"}}`},
			want:  []Problem{{"a.txt", "not sha256:<64 lowercase hex>"}},
		},
		{
			name:  "manifest not JSON",
			files: map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"x",}}`},
			want:  []Problem{{"manifest.json", "canon:"}},
		},
		{
			name:  "manifest duplicate key",
			files: map[string]string{"a.txt": "a", "manifest.json": `{"files":{"a.txt":"` + digestA + `","a.txt":"` + digestA + `"}}`},
			want:  []Problem{{"manifest.json", "duplicate key"}},
		},
		{
			name:  "manifest without files",
			files: map[string]string{"manifest.json": `{"version":1}`},
			want:  []Problem{{"manifest.json", `no "files"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			c, err := OpenDir(dir, 0)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if c.Manifest == nil || !strings.HasPrefix(c.Digest, "sha256:") || len(c.Files()) != len(tt.files)-1 {
					t.Fatalf("corpus = %+v", c)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *corpus.Error", err)
			}
			if len(ce.Problems) != len(tt.want) {
				t.Fatalf("problems = %+v, want %d", ce.Problems, len(tt.want))
			}
			for i, w := range tt.want {
				if p := ce.Problems[i]; p.Path != w.Path || !strings.Contains(p.Msg, w.Msg) {
					t.Errorf("problem %d = %+v, want %s: ...%s...", i, p, w.Path, w.Msg)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the corpus", err)
			}
		})
	}
}

func TestSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := writeTree(t, map[string]string{"secret.txt": "s"})
	dir := writeTree(t, map[string]string{"a.txt": "a"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "in.txt")); err != nil {
		t.Fatal(err)
	}
	_, err := OpenDir(dir, 0)
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Path != "out.txt" || !strings.Contains(ce.Problems[0].Msg, "leads out of the corpus") {
		t.Fatalf("err = %v, want one problem for out.txt", err)
	}
	if _, err := Lock(dir, 0); err == nil {
		t.Fatal("Lock followed a symlink out of the corpus")
	}
	os.Remove(filepath.Join(dir, "out.txt"))
	c, err := OpenDir(dir, 0)
	if err != nil || !c.Has("in.txt") {
		t.Fatalf("a symlink inside the corpus: %v, %v", c, err)
	}
}

func TestLockThenVerify(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.txt":         "a",
		"sub/b.txt":     "b",
		"manifest.json": `{"protocol_version":"x/1","files":{}}`,
	})
	m, err := Lock(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Files["a.txt"] != digestA || m.Files["sub/b.txt"] != digestB || len(m.Files) != 2 {
		t.Fatalf("files = %v", m.Files)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	want := "{\n  \"protocol_version\": \"x/1\",\n  \"files\": {\n    \"a.txt\": \"" + digestA + "\",\n    \"sub/b.txt\": \"" + digestB + "\"\n  }\n}\n"
	if string(raw) != want {
		t.Errorf("manifest =\n%s\nwant\n%s", raw, want)
	}
	c, err := OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Manifest.Meta) != 1 || c.Manifest.Meta[0].Key != "protocol_version" {
		t.Errorf("meta = %+v", c.Manifest.Meta)
	}
	// Editing a file after locking is caught.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed"), 0o644)
	if _, err := OpenDir(dir, 0); err == nil || !strings.Contains(err.Error(), "a.txt: digest mismatch") {
		t.Errorf("after an edit: %v", err)
	}
}

func TestOpenFS(t *testing.T) {
	fsys := fstest.MapFS{
		"input/x.json":  {Data: []byte("[1]")},
		"output/x.json": {Data: []byte("[1]")},
	}
	c, err := Open(fsys, "embedded:test")
	if err != nil {
		t.Fatal(err)
	}
	if c.Manifest != nil || !c.Has("input/x.json") || c.Has("input") || len(c.Files()) != 2 {
		t.Errorf("corpus = %+v", c)
	}
	// Without a manifest the digest still pins the content.
	fsys["output/x.json"] = &fstest.MapFile{Data: []byte("[2]")}
	c2, err := Open(fsys, "embedded:test")
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest == c2.Digest {
		t.Error("the digest of a manifest-less corpus ignores file content")
	}
	if _, err := c.ReadFile("nope.json"); err == nil || !strings.Contains(err.Error(), "embedded:test") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

// TestFilesAppend: appending to Files leaves the corpus's own list alone,
// whatever its capacity, so that callers sharing a corpus (concurrent
// loads of an embedded one) never write into each other's slice.
func TestFilesAppend(t *testing.T) {
	for n := 1; n <= 9; n++ {
		fsys := fstest.MapFS{}
		for i := range n {
			fsys[fmt.Sprintf("f%d.json", i)] = &fstest.MapFile{Data: []byte("[1]")}
		}
		c, err := Open(fsys, "embedded:test")
		if err != nil {
			t.Fatal(err)
		}
		a := append(c.Files(), "a")
		b := append(c.Files(), "b")
		if a[n] != "a" || b[n] != "b" || len(c.Files()) != n {
			t.Errorf("%d files: appending to Files wrote into the corpus's list: %q, %q", n, a, b)
		}
	}
}

func TestOpenDirErrors(t *testing.T) {
	if _, err := OpenDir(filepath.Join(t.TempDir(), "absent"), 0); err == nil {
		t.Error("OpenDir of a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := OpenDir(f, 0); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("OpenDir of a file: %v", err)
	}
}

func TestDecodeJSON(t *testing.T) {
	var v struct{ A int }
	for _, tt := range []struct {
		in      string
		wantErr bool
	}{
		{`{"A":1}`, false},
		{`{"A":1,"A":2}`, true},
		{`{"A":1,"B":2}`, true},
		{`{"A":1} x`, true},
	} {
		if err := DecodeJSON([]byte(tt.in), &v); (err != nil) != tt.wantErr {
			t.Errorf("DecodeJSON(%s) = %v", tt.in, err)
		}
	}
}

// TestDecodeJSONLoneSurrogates: a lone surrogate escape where Go's decoder
// would read U+FFFD is an error naming where; in a json.RawMessage, which
// keeps the bytes, it is left to the suite.
func TestDecodeJSONLoneSurrogates(t *testing.T) {
	type vector struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
		Text  *string         `json:"input_text"`
		Tags  []string        `json:"tags"`
		Meta  map[string]any  `json:"meta"`
		Any   any             `json:"any"`
	}
	type doc struct {
		Vectors []vector `json:"vectors"`
	}
	for _, tc := range []struct {
		in, want string // want: "" for no error, else the pointer the error names
	}{
		{`{"vectors":[{"name":"a","input":["\ud800"]}]}`, ""},
		{`{"vectors":[{"name":"a","input_text":"\"\ud83d\ude00\""}]}`, ""},
		{`{"vectors":[{"name":"a"},{"name":"b","input_text":"\"\ud800\""}]}`, "/vectors/1/input_text"},
		{`{"vectors":[{"name":"\udc00"}]}`, "/vectors/0/name"},
		{`{"vectors":[{"name":"a","tags":["x","\ud800"]}]}`, "/vectors/0/tags/1"},
		{`{"vectors":[{"name":"a","meta":{"\ud800":1}}]}`, "/vectors/0/meta/\xed\xa0\x80"},
		{`{"vectors":[{"name":"a","meta":{"k":["\ud800"]}}]}`, "/vectors/0/meta/k"},
		{`{"vectors":[{"name":"a","any":{"k":"\ud800"}}]}`, "/vectors/0/any"},
		{`{"vectors":[{"NAME":"\ud800"}]}`, "/vectors/0/NAME"},
	} {
		var d doc
		err := DecodeJSON([]byte(tc.in), &d)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "at "+tc.want+":")):
			t.Errorf("%s: err %v, want one at %s", tc.in, err, tc.want)
		}
	}
}
