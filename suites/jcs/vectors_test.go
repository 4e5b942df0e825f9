package jcs

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
)

// TestPackedClass: the class a vector's index keeps gives back the whole
// class classify decides, for every embedded vector.
func TestPackedClass(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.ReadFile(VectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc vectorsDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[kind]bool{}
	for _, v := range doc.Vectors {
		d, err := dataOf(&v)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		cl := classify(groupOf(v.Name), d.input, v.Reject, d.lenient)
		if got := cl.pack().unpack(d.lenient); !reflect.DeepEqual(got, cl) {
			t.Errorf("%s: class %+v unpacks as %+v", v.Name, cl, got)
		}
		kinds[cl.kind] = true
	}
	if len(kinds) != 5 {
		t.Errorf("the embedded vectors have %d kinds of class, want all 5", len(kinds))
	}
}

// TestReadJSON: reading an input once strictly, and again last-wins only
// after a duplicate name, gives what reading it both ways always gives.
func TestReadJSON(t *testing.T) {
	inputs := []string{`{"a":1,"a":2}`, `{"a":1,"a":[1,`, `{"a":{"b":1,"b":2},"c":x}`, `[1,]`, `{"a":1,"b":2}`, "[\"\xff\"]", `{"a":1,"a":2,"a":3}`, ``, `[1e400]`}
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := c.ReadFile(VectorsFile)
	var doc vectorsDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Vectors {
		d, _ := dataOf(&v)
		inputs = append(inputs, string(d.input))
	}
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, in := range inputs {
		r := readJSON([]byte(in))
		v, err := canon.Parse([]byte(in), canon.ReadOptions{Duplicates: canon.LastWins})
		_, strict := canon.Parse([]byte(in), canon.ReadOptions{})
		if !reflect.DeepEqual(r.v, v) || errText(r.err) != errText(err) || errText(r.strict) != errText(strict) {
			t.Errorf("%.60q: read %v / %v, want %v / %v", in, r.err, r.strict, err, strict)
		}
	}
}

// writeCorpus writes a vectors.json of body into a new directory.
func writeCorpus(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, VectorsFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestVectorsReadBack: a corpus on disk is indexed, not held; its checks
// read their vectors back through the file's bounded reads, and a vector
// the file no longer holds as it was loaded is an error naming the corpus,
// the file and the vector, never a verdict on the implementation.
func TestVectorsReadBack(t *testing.T) {
	body := `{"format": "referee-jcs/1", "vectors": [
	{"name": "a/one", "doc": "d", "input": "{\"b\": 1, \"a\": [1.0, \"\\u00e9\"]}", "output": "{\"a\":[1,\"é\"],\"b\":1}"},
	{"name": "a/two", "doc": "d", "input": "[1,", "reject": true},
	{"name": "a/three", "doc": "d", "input_hex": "5b22ff225d", "reject": true}
]}`
	dir := writeCorpus(t, body)
	l, err := Definition.Load(check.LoadOptions{Corpus: dir, MaxFileSize: int64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Reference("")
	run := runSuite(t, l.Suite, adapter.InProcess(h))
	if n := run.Counts(); n.Pass != 3 {
		t.Fatalf("counts %+v: %+v", n, run.Results)
	}
	if e := l.Suite.Checks[0].Explanation(); !strings.Contains(e, `expects: {"a":[1,"é"],"b":1}`) || !strings.Contains(e, `\"a\": [1.0, \"\\u00e9\"]`) {
		t.Errorf("explanation read back:\n%s", e)
	}
	// The same bytes at the same place, one of them changed.
	changed := strings.Replace(body, `"b\":1}"}`, `"c\":1}"}`, 1)
	if err := os.WriteFile(filepath.Join(dir, VectorsFile), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	run = runSuite(t, l.Suite, adapter.InProcess(h))
	r := run.Results[0]
	if r.Status != check.Error || !strings.Contains(r.Reason, "corpus "+dir+": vectors.json: vector 0: the file changed") {
		t.Errorf("a changed vector: %s %q", r.Status, r.Reason)
	}
	if !strings.Contains(l.Suite.Checks[0].Explanation(), "the file changed") {
		t.Errorf("a changed vector explained: %q", l.Suite.Checks[0].Explanation())
	}
	if r := run.Results[1]; r.Status != check.Pass {
		t.Errorf("an unchanged vector: %s %q", r.Status, r.Reason)
	}
}

// TestStreamAsWhole: a vectors.json is read as a stream only when it reads
// exactly as it does whole. Any problem is told as the whole reading tells
// it (its first one, with line and column for a syntax error), and files
// laid out unusually load all the same.
func TestStreamAsWhole(t *testing.T) {
	const one = `{"name":"a","doc":"d","input":"1","output":"1"}`
	for _, tt := range []struct {
		name, body, want string
	}{
		{"syntax error in a later vector", "{\"format\":\"referee-jcs/1\",\"vectors\":[\n" + one + ",\n{\"name\":\"b\" \"doc\":\"d\"}]}", "vectors.json: line 3:"},
		{"syntax error after a vector's own problem", `{"format":"referee-jcs/1","vectors":[{"name":"A"},` + "\n" + `{"name":"b",}]}`, "vectors.json: line 2:"},
		{"duplicate member in a vector", `{"format":"referee-jcs/1","vectors":[{"name":"a","name":"b","input":"1","output":"1"}]}`, "duplicate"},
		{"duplicate top-level member", `{"format":"referee-jcs/1","format":"referee-jcs/1","vectors":[` + one + `]}`, "duplicate"},
		{"unknown member in a vector", `{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1","x":1}]}`, "unknown field"},
		{"trailing data", `{"format":"referee-jcs/1","vectors":[` + one + `]} {}`, "vectors.json: line 1:"},
		{"vectors first, bad format", `{"vectors":[` + one + `],"format":"other/1"}`, `format "other/1"`},
		{"no format", `{"vectors":[` + one + `]}`, `format ""`},
		{"vectors not an array", `{"format":"referee-jcs/1","vectors":{}}`, "vectors.json"},
		{"a vector's own problem", `{"format":"referee-jcs/1","vectors":[` + one + `,{"name":"a","input":"2","output":"2"}]}`, `vector 1 ("a"): duplicate name`},
		{"invalid UTF-8 in a doc", "{\"format\":\"referee-jcs/1\",\"vectors\":[{\"name\":\"a\",\"doc\":\"\xff\",\"input\":\"1\",\"output\":\"1\"}]}", "vectors.json: line 1:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Open(fstest.MapFS{VectorsFile: {Data: []byte(tt.body)}}, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = suiteOf(c)
			whole := vectorsProblem("test", []byte(tt.body))
			if err == nil || whole == nil || err.Error() != whole.Error() || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "corpus test: ") {
				t.Errorf("error = %v\nread whole: %v\nwant one naming %q", err, whole, tt.want)
			}
		})
	}
	for _, body := range []string{
		`{"vectors":[` + one + `],"format":"referee-jcs/1"}`,
		"\t{ \"\\u0066ormat\" : \"referee-jcs/1\" ,\r\n \"vectors\" :\n[ " + one + " , {\"name\":\"b\",\"doc\":\"<&>\",\"input\":\"[]\",\"output\":\"[]\"} ]\n}\n\n",
	} {
		c, err := corpus.Open(fstest.MapFS{VectorsFile: {Data: []byte(body)}}, "test")
		if err != nil {
			t.Fatal(err)
		}
		checks, ok := indexVectors("test", strings.NewReader(body), strings.NewReader(body))
		s, err := suiteOf(c)
		if !ok || err != nil || len(s.Checks) != len(checks) || len(checks) == 0 {
			t.Errorf("%q: streamed %v, loaded %v", body, ok, err)
			continue
		}
		h, _ := Reference("")
		if n := runSuite(t, s, adapter.InProcess(h)).Counts(); n.Pass != len(checks) {
			t.Errorf("%q: %+v", body, n)
		}
	}
}

// noReadAt is a corpus whose files cannot be read at offsets.
type noReadAt struct{ fstest.MapFS }

type readOnly struct{ fs.File }

func (n noReadAt) Open(name string) (fs.File, error) {
	f, err := n.MapFS.Open(name)
	if err != nil || name == "." {
		return f, err
	}
	return readOnly{f}, nil
}

// TestVectorsWithoutReadAt: a corpus whose files cannot be read at offsets
// is read whole and indexed in memory, with the same checks.
func TestVectorsWithoutReadAt(t *testing.T) {
	body := `{"format":"referee-jcs/1","vectors":[{"name":"a","doc":"d","input":"[1.0]","output":"[1]"},{"name":"b","doc":"d","input":"[1 2]","reject":true}]}`
	c, err := corpus.Open(noReadAt{fstest.MapFS{VectorsFile: {Data: []byte(body)}}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := suiteOf(c)
	if err != nil || len(s.Checks) != 2 || s.Checks[1].Doc != "rejects: d" {
		t.Fatalf("%v %+v", err, s)
	}
	h, _ := Reference("")
	run := runSuite(t, s, adapter.InProcess(h))
	if n := run.Counts(); n.Pass != 2 {
		t.Errorf("%+v", run.Results)
	}
}

// TestDecodeVector: a vector read back in one pass is what json.Unmarshal
// makes of it, for every embedded vector and for vectors laid out as
// referee never writes them; a vector the one pass does not take is
// decoded by json.Unmarshal.
func TestDecodeVector(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := c.ReadFile(VectorsFile)
	var doc struct{ Vectors []json.RawMessage }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	raws := []string{
		` { "doc" : "d" , "name":"x",` + "\n" + `"output": "[1,\"\\u00e9\\/\\ud83d\\ude00\\b\\f\\n\\r\\t\"]", "input" : "[1, \"\\ud800\\udc00\\udc00\\ud800x\\ud800\\u0041\"]", "reject": false } `,
		`{"name":"x","input_hex":"5b22ff225d","reject":true,"output":null}`,
		`{"name":"x","Input":"[1]","output":"[1]"}`,
		`{"name":"x","input":"[1]","INPUT":"[2]","output":"[2]"}`,
		`{"name":"x","input":"[1 2]","reject":true,"lenient_outputs":["[12]","[1]"]}`,
		`{}`,
		`{"input":""}`,
	}
	for _, r := range doc.Vectors {
		raws = append(raws, string(r))
	}
	plain := 0
	for _, r := range raws {
		var v vector
		if err := json.Unmarshal([]byte(r), &v); err != nil {
			t.Fatalf("%.80s: %v", r, err)
		}
		want, err := dataOf(&v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeVector([]byte(r))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%.80s:\ngot  %q %q %q %v\nwant %q %q %q", r, got.input, got.want, got.lenient, err, want.input, want.want, want.lenient)
		}
		if _, ok := plainVector([]byte(r)); ok {
			plain++
		}
	}
	if plain < len(doc.Vectors)*9/10 {
		t.Errorf("only %d of %d vectors read in one pass", plain, len(raws))
	}
}

// FuzzUnquoted: a JSON string token of valid JSON (valid UTF-8, as a vector
// is when it loads) spells what json.Unmarshal says it spells.
func FuzzUnquoted(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u20AC"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"é😀"`, `"\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tok []byte) {
		var want any
		if !utf8.Valid(tok) || json.Unmarshal(tok, &want) != nil {
			return
		}
		s, isString := want.(string)
		if !isString {
			return
		}
		got, ok := unquoted(bytes.TrimSpace(tok))
		if !ok || string(got) != s {
			t.Errorf("unquoted(%q) = %q, %v; json.Unmarshal says %q", tok, got, ok, s)
		}
	})
}

// FuzzDecodeVector: any object a vector may be when it loads (valid JSON
// to canon, decoded without error as a vector) reads back as json.Unmarshal
// reads it.
func FuzzDecodeVector(f *testing.F) {
	for _, s := range []string{`{"name":"a","input":"[1]","output":"[1]"}`, ` {"input_hex" : "ff", "reject":true}`, `{"Name":"a","input":"\"x\\u0041\""}`, `{"input":null,"output":"[\"\\ud800\"]","lenient_outputs":null}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v vector
		if _, err := canon.Parse(raw, canon.ReadOptions{}); err != nil || json.Unmarshal(raw, &v) != nil {
			return
		}
		want, err := dataOf(&v)
		if err != nil {
			return
		}
		got, err := decodeVector(raw)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q %q %q, %v; want %q %q %q", raw, got.input, got.want, got.lenient, err, want.input, want.want, want.lenient)
		}
	})
}

// TestClausesListsEveryClause: every clause constant of the package is in
// clauses, which a packed class indexes (one missing would pack as index
// 255 and fail only when its check ran).
func TestClausesListsEveryClause(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if !strings.HasPrefix(name.Name, "clause") {
						continue
					}
					n++
					obj := name.Obj.Decl.(*ast.ValueSpec)
					lit, ok := obj.Values[slices.Index(obj.Names, name)].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s is not a string literal", name.Name)
					}
					text, _ := strconv.Unquote(lit.Value)
					if !slices.Contains(clauses, text) {
						t.Errorf("%s is not in clauses", name.Name)
					}
				}
			}
		}
	}
	if n != len(clauses)-1 {
		t.Errorf("%d clause constants, %d in clauses (and \"\")", n, len(clauses)-1)
	}
}
