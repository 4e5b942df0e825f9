package jcs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	gowebpki "github.com/gowebpki/jcs"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/internal/sharedtest"
)

func embeddedSuite(t *testing.T) *check.Suite {
	t.Helper()
	return loadSuite(t, "")
}

// loadSuite loads the suite through Definition.Load from dir ("" for the
// embedded corpus).
func loadSuite(t *testing.T, dir string) *check.Suite {
	t.Helper()
	l, err := Definition.Load(check.LoadOptions{Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	return l.Suite
}

// sharedDir returns ../shared (from REFEREE_SHARED), or skips.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := sharedtest.Dir(t, "the RFC 8785 test data lives in ../shared/corpora/jcs")
	return dir
}

func runSuite(t *testing.T, s *check.Suite, start adapter.Starter) *check.Execution {
	t.Helper()
	c, err := adapter.Dial(context.Background(), start, Name, adapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return check.Execute(context.Background(), c, s.Checks, check.Options{})
}

func TestReferencePasses(t *testing.T) {
	l, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := l.Reference("")
	if err != nil {
		t.Fatal(err)
	}
	run := checktest.RunSuite(t, l.Suite, adapter.InProcess(h))
	if n := run.Counts(); n.Pass != len(run.Results) || n.Pass < 300 {
		t.Errorf("counts = %+v", n)
	}
	for _, r := range run.Results {
		if r.Level == check.May && r.Outcome != check.ChoseOutput {
			t.Errorf("%s: outcome %q, want the reference to give the output", r.ID, r.Outcome)
		}
	}
}

// TestEveryCheckCanFail runs every broken mode and requires each check to
// fail under at least one (a failed should check counts): a check that
// cannot fail is a defect. Over the RFC 8785 test data, when present, each
// check must fail too, though not every mode fails one there.
func TestEveryCheckCanFail(t *testing.T) {
	broken := map[string]adapter.Starter{}
	for _, m := range Definition.ModeList() {
		h, err := Reference(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		broken[m.Name] = adapter.InProcess(h)
	}
	checktest.EveryCheckCanFail(t, embeddedSuite(t), broken)

	dir, ok := sharedtest.Lookup()
	if !ok {
		return
	}
	s := loadSuite(t, filepath.Join(dir, "corpora", "jcs"))
	failed := map[string]bool{}
	for name, start := range broken {
		run := runSuite(t, s, start)
		if n := run.Counts(); n.Error > 0 || n.NotChecked > 0 {
			t.Errorf("%s: mode %s: %+v (only pass and fail are expected)", s.Corpus, name, n)
		}
		for _, r := range run.Results {
			failed[r.ID] = failed[r.ID] || r.Status == check.Fail
		}
	}
	for _, c := range s.Checks {
		if !failed[c.ID] {
			t.Errorf("%s: %s fails under no broken mode", s.Corpus, c.ID)
		}
	}
}

func TestEmbeddedCorpusLint(t *testing.T) {
	s := embeddedSuite(t)
	if len(s.Checks) < 300 {
		t.Errorf("only %d vectors", len(s.Checks))
	}
	groups := map[string]int{}
	for _, c := range s.Checks {
		if c.Doc == "" {
			t.Errorf("%s has no doc", c.ID)
		}
		groups[strings.Split(c.ID, "/")[1]]++
	}
	for _, g := range []string{"numbers", "strings", "keys", "structure", "nesting", "rejects"} {
		if groups[g] == 0 {
			t.Errorf("no %s vectors", g)
		}
	}
	if !strings.HasPrefix(s.CorpusDigest, "sha256:") || s.Corpus != "embedded:jcs" {
		t.Errorf("corpus %s %s", s.Corpus, s.CorpusDigest)
	}
}

// TestVectorsAgreeWithGowebpki checks every expected output against a second,
// independent RFC 8785 implementation (the first is Node, which made them).
func TestVectorsAgreeWithGowebpki(t *testing.T) {
	c, _ := Embedded()
	raw, _ := c.ReadFile(VectorsFile)
	var doc vectorsDoc
	if err := corpus.DecodeJSON(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Vectors {
		// The canonical texts of lenient readings are their own canonical
		// texts: gowebpki must leave them as they are.
		for _, l := range v.Lenient {
			if got, err := gowebpki.Transform([]byte(l)); err != nil || string(got) != l {
				t.Errorf("%s: lenient output %q: gowebpki gives %q (%v)", v.Name, l, got, err)
			}
		}
		if v.Reject {
			continue
		}
		got, err := gowebpki.Transform([]byte(*v.Input))
		if v.Name == "nesting/arrays-10001" {
			// gowebpki stops at 10,000 levels; RFC 8785 sets no limit. The
			// expected output is plain to construct instead.
			want := strings.Repeat("[", 10001) + `{"a":2,"b":1}` + strings.Repeat("]", 10001)
			if err == nil || *v.Output != want {
				t.Errorf("%s: gowebpki err %v; output matches construction: %v", v.Name, err, *v.Output == want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: gowebpki rejects %.60q: %v", v.Name, *v.Input, err)
			continue
		}
		if string(got) != *v.Output {
			t.Errorf("%s: gowebpki gives %.80q, the corpus says %.80q", v.Name, got, *v.Output)
		}
	}
}

// TestCorpusIsGenerated regenerates the corpus and requires the committed one
// to match, so nobody edits vectors.json by hand. With -update it writes
// corpus/ instead.
func TestCorpusIsGenerated(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if golden.Update() {
			t.Fatal("-update: node not found: it is the oracle that makes the expected outputs")
		}
		t.Skip("node not found: it is the oracle that makes the expected outputs")
	}
	if testing.Short() && !golden.Update() {
		t.Skip("regenerating the corpus runs go run and node")
	}
	out := t.TempDir()
	if golden.Update() {
		out = "corpus"
	}
	cmd := exec.Command("go", "run", "./gen", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	if golden.Update() {
		return
	}
	for _, f := range []string{"vectors.json", "manifest.json"} {
		generated, _ := os.ReadFile(filepath.Join(out, f))
		committed, err := os.ReadFile(filepath.Join("corpus", f))
		if err != nil || !bytes.Equal(committed, generated) {
			t.Errorf("suites/jcs/corpus/%s is not what gen writes (go test ./suites/jcs -run TestCorpusIsGenerated -update rewrites it):\n%s", f, golden.FirstDifference(committed, generated))
		}
	}
}

func TestRFC8785Layout(t *testing.T) {
	s := loadSuite(t, filepath.Join(sharedDir(t), "corpora", "jcs"))
	var ids []string
	for _, c := range s.Checks {
		ids = append(ids, c.ID)
	}
	sort.Strings(ids)
	want := "jcs/rfc8785/arrays jcs/rfc8785/french jcs/rfc8785/structures jcs/rfc8785/unicode jcs/rfc8785/values jcs/rfc8785/weird"
	if strings.Join(ids, " ") != want {
		t.Fatalf("checks = %v", ids)
	}
	h, _ := Reference("")
	if n := runSuite(t, s, adapter.InProcess(h)).Counts(); n.Pass != 6 {
		t.Errorf("reference on the RFC 8785 data: %+v", n)
	}
}

func TestLoadErrors(t *testing.T) {
	vec := func(body string) fstest.MapFS {
		return fstest.MapFS{"vectors.json": {Data: []byte(body)}}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"not a jcs corpus", fstest.MapFS{"x.json": {Data: []byte("{}")}}, "not a jcs corpus"},
		{"bad format", vec(`{"format":"other/1","vectors":[]}`), `format "other/1"`},
		{"no vectors", vec(`{"format":"referee-jcs/1","vectors":[]}`), "no vectors"},
		{"unknown member", vec(`{"format":"referee-jcs/1","vectors":[],"extra":1}`), "unknown field"},
		{"duplicate name", vec(`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"},{"name":"a","input":"2","output":"2"}]}`), `vector 1 ("a"): duplicate name`},
		{"both output and reject", vec(`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1","reject":true}]}`), "exactly one of output and reject"},
		{"neither", vec(`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1"}]}`), "exactly one of output and reject"},
		{"bad name", vec(`{"format":"referee-jcs/1","vectors":[{"name":"A B","input":"1","output":"1"}]}`), "lowercase"},
		{"rfc without output", fstest.MapFS{"input/a.json": {Data: []byte("[]")}}, "no output/a.json or outhex/a.txt"},
		{"rfc disagreeing outputs", fstest.MapFS{
			"input/a.json":  {Data: []byte("[ ]")},
			"output/a.json": {Data: []byte("[]")},
			"outhex/a.txt":  {Data: []byte("5b 5c")},
		}, "disagree"},
		{"rfc bad hex", fstest.MapFS{"input/a.json": {Data: []byte("[]")}, "outhex/a.txt": {Data: []byte("5g")}}, "outhex/a.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Open(tt.fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = suiteOf(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("Load error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

func TestReferenceModes(t *testing.T) {
	if _, err := Reference("no-such-mode"); err == nil || !strings.Contains(err.Error(), "codepoint-order") {
		t.Errorf("unknown mode error = %v", err)
	}
	seen := map[string]bool{}
	for _, m := range Definition.ModeList() {
		if seen[m.Name] || m.Doc == "" {
			t.Errorf("mode %q duplicated or undocumented", m.Name)
		}
		if _, ok := brokenModes.Get()[m.Name]; !ok {
			t.Errorf("mode %q has no behaviour", m.Name)
		}
		seen[m.Name] = true
	}
	for name := range brokenModes.Get() {
		if !seen[name] {
			t.Errorf("behaviour %q is not a declared mode", name)
		}
	}
}

// TestExampleAdapters runs the Node and Python example adapters as real
// child processes over the embedded vectors and, when present, RFC 8785's.
func TestExampleAdapters(t *testing.T) {
	adapters := []struct {
		prog string
		argv []string
	}{
		{"node", []string{"node", "../../examples/adapters/node/jcs.mjs"}},
		{"python3", []string{"python3", "../../examples/adapters/python/jcs.py"}},
	}
	suites := []*check.Suite{embeddedSuite(t)}
	if dir, ok := sharedtest.Lookup(); ok {
		suites = append(suites, loadSuite(t, filepath.Join(dir, "corpora", "jcs")))
	}
	for _, a := range adapters {
		t.Run(a.prog, func(t *testing.T) {
			if _, err := exec.LookPath(a.prog); err != nil {
				t.Skipf("%s not found", a.prog)
			}
			for _, s := range suites {
				cfg := adapter.ProcessConfig{Argv: a.argv}
				start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
				run := runSuite(t, s, start)
				for _, r := range run.Results {
					if r.Status != check.Pass {
						t.Errorf("%s: %s %s: %s", s.Corpus, r.ID, r.Status, r.Reason)
					}
				}
			}
		})
	}
}
