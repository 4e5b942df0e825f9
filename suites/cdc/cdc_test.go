package cdc

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/sharedtest"
)

func sharedCorpus(t *testing.T) string {
	t.Helper()
	dir := sharedtest.Dir(t, "the contract's corpus lives in ../shared/corpora/cdc")
	return filepath.Join(dir, "corpora", "cdc")
}

// loadSuite loads the suite on the corpus in dir, as a run does.
func loadSuite(t *testing.T, dir string) *check.Loaded {
	t.Helper()
	l, err := Definition.Load(check.LoadOptions{Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// readDir reads the corpus in dir as data.
func readDir(t *testing.T, dir string) *Corpus {
	t.Helper()
	c, err := corpus.OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ReadCorpus(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func reference(t *testing.T, l *check.Loaded, mode string) adapter.Starter {
	t.Helper()
	h, err := l.Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return adapter.InProcess(h)
}

// honest is the built-in implementation itself.
func honest(t *testing.T, l *check.Loaded) *Handler {
	t.Helper()
	h, err := l.Reference("")
	if err != nil {
		t.Fatal(err)
	}
	return h.(*Handler)
}

func native(l *check.Loaded, run *check.Execution) *NativeReport {
	return l.Native(run, check.Spec{}).(*NativeReport)
}

// without hides ops from a Handler's hello, as an adapter that lacks them.
type without struct {
	*Handler
	ops []string
}

func (w without) Hello() adapter.Hello {
	h := w.Handler.Hello()
	h.Ops = slices.DeleteFunc(slices.Clone(h.Ops), func(op string) bool { return slices.Contains(w.ops, op) })
	return h
}

func TestReferencePasses(t *testing.T) {
	l := loadSuite(t, sharedCorpus(t))
	run := checktest.RunSuite(t, l.Suite, reference(t, l, ""))
	n := native(l, run)
	if n.ValidCount != 40 || n.InvalidCount != 98 || len(n.Failures) != 0 || !n.CanonicalChecked ||
		!*n.NarrowingChecked || !*n.SignaturesChecked || !*n.RulesChecked || !*n.ErrorPathsChecked {
		b, _ := json.Marshal(n)
		t.Errorf("native = %s, want every flag true (narrow included) and no failures", b)
	}
}

// TestUpstreamHookSet gives the built-in the reference adapter's hooks
// (every hook but narrow): the report must be upstream's published run.
func TestUpstreamHookSet(t *testing.T) {
	l := loadSuite(t, sharedCorpus(t))
	run := checktest.Execute(t, l.Suite, adapter.InProcess(without{honest(t, l), []string{OpNarrow}}))
	n := native(l, run)
	b, _ := json.Marshal(n)
	if string(b) != `{"validCount":40,"invalidCount":98,"canonicalChecked":true,"narrowingChecked":false,"signaturesChecked":true,"rulesChecked":true,"errorPathsChecked":true,"failures":[]}` {
		t.Errorf("native = %s", b)
	}
	for _, r := range run.Results {
		if strings.HasPrefix(r.ID, "cdc/narrowing/") && !strings.HasSuffix(r.ID, "/vector") && (r.Status != check.NotChecked || r.Reason != notNarrowing) {
			t.Errorf("%s: %s %q, want not-checked with upstream's line", r.ID, r.Status, r.Reason)
		}
	}
}

// TestNotChecked removes each hook and requires exactly the seed's NOT
// CHECKED line on the checks that need it, and never a pass.
func TestNotChecked(t *testing.T) {
	l := loadSuite(t, sharedCorpus(t))
	s, h := l.Suite, honest(t, l)
	tests := []struct {
		hide   []string
		family string
		reason string
	}{
		{[]string{OpCanonicalise}, "cdc/canonical/", notCanonical},
		{[]string{OpHash}, "cdc/signatures/", notSignatures},
		{[]string{OpVerify}, "cdc/signatures/", notSignatures},
		{[]string{OpRules}, "cdc/rules/", notRules},
	}
	for _, tt := range tests {
		run := checktest.Execute(t, s, adapter.InProcess(without{h, tt.hide}))
		n := 0
		for _, r := range run.Results {
			if !strings.HasPrefix(r.ID, tt.family) || strings.HasSuffix(r.ID, "/lease") || strings.HasSuffix(r.ID, "/schema-valid") {
				continue
			}
			n++
			if r.Status != check.NotChecked || r.Reason != tt.reason {
				t.Errorf("without %v: %s is %s %q", tt.hide, r.ID, r.Status, r.Reason)
			}
		}
		if n == 0 {
			t.Errorf("without %v: no %s checks", tt.hide, tt.family)
		}
	}
	// narrow without canonicalise is a failure, as upstream records it.
	run := checktest.Execute(t, s, adapter.InProcess(without{h, []string{OpCanonicalise}}))
	for _, r := range run.Results {
		if strings.HasPrefix(r.ID, "cdc/narrowing/") && !strings.HasSuffix(r.ID, "/vector") && (r.Status != check.Fail || r.Reason != narrowNeeds) {
			t.Errorf("narrow without canonicalise: %s is %s %q", r.ID, r.Status, r.Reason)
		}
	}
	// A validator that reports no errors leaves every path check not-checked.
	run = checktest.Execute(t, s, reference(t, l, "no-paths"))
	for _, r := range run.Results {
		if strings.HasSuffix(r.ID, "/path") && (r.Status != check.NotChecked || r.Reason != notPaths) {
			t.Errorf("no-paths: %s is %s %q", r.ID, r.Status, r.Reason)
		}
	}
	if n := native(l, run); n.ErrorPathsChecked == nil || *n.ErrorPathsChecked {
		t.Error("errorPathsChecked true without errors")
	}
}

// TestEveryCheckCanFail runs the 1.2.1 corpus, supplement included, under
// every broken mode but two: no-paths makes path checks not-checked (the
// test above covers it), and reject-surrogates is a choice the 1.2 layout
// permits (TestMayChoices). Each check must fail under some mode, each mode
// fail some check, and each case of the supplement fail under a mode that
// fails nothing of upstream's.
func TestEveryCheckCanFail(t *testing.T) {
	l := loadSuite(t, sharedCorpus(t))
	broken := map[string]adapter.Starter{}
	for _, m := range Modes {
		if m.Name != "no-paths" && m.Name != "reject-surrogates" {
			broken[m.Name] = reference(t, l, m.Name)
		}
	}
	supplementCatches(t, l.Suite, checktest.EveryCheckCanFail(t, l.Suite, broken))
}

// modes10 are the broken modes whose bug a corpus of the 1.0 layout, with
// the supplement, can show: the others are of steps the 1.0 runner does not
// have (narrowing, signatures, rules, rejection paths: the supplement's
// are not checked there either) or of rules its schemas do not state
// (lengths).
var modes10 = []string{
	"reject-all", "accept-all", "strip-unknown", "unsorted", "ascii-escape", "codepoint-order",
	"reject-surrogates", "html-escape", "go-float", "nonfinite-null", "python-re", "re2-classes", "integer-lexeme",
	"closed-deep", "strip-deep", "float-repr", "float-exponent-16", "negative-zero",
}

// TestEmbeddedEveryCheckCanFail is TestEveryCheckCanFail for the embedded
// release, 1.0.2.
func TestEmbeddedEveryCheckCanFail(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	l, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]adapter.Starter{}
	for _, m := range modes10 {
		broken[m] = reference(t, l, m)
	}
	supplementCatches(t, l.Suite, checktest.EveryCheckCanFail(t, l.Suite, broken))
}

// supplementCatches requires each case of the supplement in suite (its
// checks share the case's ID) to fail under a mode that fails no check of
// upstream's corpus: a bug only the supplement catches.
func supplementCatches(t *testing.T, suite *check.Suite, failed map[string][]string) {
	t.Helper()
	caughtUpstream := map[string]bool{}
	for id, modes := range failed {
		if !strings.HasPrefix(id, supplementPrefix) {
			for _, m := range modes {
				caughtUpstream[m] = true
			}
		}
	}
	only := map[string][]string{} // case -> modes only the supplement catches
	cases := map[string]bool{}
	for _, c := range suite.Checks {
		name, ok := strings.CutPrefix(c.ID, supplementPrefix)
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "/path") // a rejection's path check is its case's
		cases[name] = true
		for _, m := range failed[c.ID] {
			if !caughtUpstream[m] {
				only[name] = append(only[name], m)
			}
		}
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no supplement checks", suite.Corpus)
	}
	for name := range cases {
		if len(only[name]) == 0 {
			t.Errorf("%s: supplement case %s fails under no mode that upstream's corpus lets through", suite.Corpus, name)
		}
	}
}

// TestRelease10Layout builds a 1.0-style corpus (no .expect.json, no
// lease-record, no narrowing, signature or by-rule vectors) and requires
// their checks to be absent, not failed.
func TestRelease10Layout(t *testing.T) {
	src := sharedCorpus(t)
	dir := t.TempDir()
	copyFile := func(rel string) {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	}
	files, _ := filepath.Glob(filepath.Join(src, "schemas", "*.schema.json"))
	for _, f := range files {
		if !strings.Contains(f, "lease-record") {
			copyFile(filepath.Join("schemas", filepath.Base(f)))
		}
	}
	for _, kind := range []string{"valid", "invalid"} {
		fs, _ := filepath.Glob(filepath.Join(src, "fixtures", kind, "*"))
		for _, f := range fs {
			if !strings.Contains(f, "lease-record") && !strings.HasSuffix(f, ".expect.json") {
				copyFile(filepath.Join("fixtures", kind, filepath.Base(f)))
			}
		}
	}
	copyFile("conformance/canonical-vectors.json")
	cp := readDir(t, dir)
	if cp.Release != Release10 || slices.Contains(cp.Shapes, "lease-record") {
		t.Fatalf("release %s, shapes %v", cp.Release, cp.Shapes)
	}
	l, err := Definition.Load(check.LoadOptions{Corpus: dir, Flags: check.FlagValues{FlagNoSupplement: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.Suite.Checks {
		if strings.HasSuffix(c.ID, "/path") || strings.HasPrefix(c.ID, "cdc/narrowing/") || strings.HasPrefix(c.ID, "cdc/signatures/") || strings.HasPrefix(c.ID, "cdc/rules/") {
			t.Errorf("a 1.0 corpus has check %s", c.ID)
		}
	}
	run := checktest.RunSuite(t, l.Suite, reference(t, l, ""))
	b, _ := json.Marshal(native(l, run))
	if !strings.HasPrefix(string(b), `{"validCount":`) || strings.Contains(string(b), "narrowingChecked") || !strings.HasSuffix(string(b), `"canonicalChecked":true,"failures":[]}`) {
		t.Errorf("1.0 native report = %s", b)
	}
}

func TestCorpusErrors(t *testing.T) {
	src := sharedCorpus(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "schemas"), 0o755)
	os.MkdirAll(filepath.Join(dir, "fixtures", "valid"), 0o755)
	b, _ := os.ReadFile(filepath.Join(src, "schemas", "provenance.schema.json"))
	os.WriteFile(filepath.Join(dir, "schemas", "provenance.schema.json"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "fixtures", "valid", "nonsense.minimal.json"), []byte(`{}`), 0o644)
	if _, err := Definition.Load(check.LoadOptions{Corpus: dir}); err == nil || !strings.Contains(err.Error(), "Fixture valid/nonsense.minimal.json does not name a known shape. Prefix it with one of: provenance.") {
		t.Errorf("unknown prefix: %v", err)
	}
	os.Remove(filepath.Join(dir, "fixtures", "valid", "nonsense.minimal.json"))
	os.WriteFile(filepath.Join(dir, "fixtures", "valid", "provenance.minimal.json"), []byte(`{}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "fixtures", "invalid"), 0o755)
	os.WriteFile(filepath.Join(dir, "fixtures", "invalid", "provenance.x.json"), []byte(`{}`), 0o644)
	if _, err := Definition.Load(check.LoadOptions{Corpus: dir}); err == nil || !strings.Contains(err.Error(), "missing valid/provenance.populated.json") {
		t.Errorf("incomplete corpus: %v", err)
	}
	empty := t.TempDir()
	if _, err := Definition.Load(check.LoadOptions{Corpus: empty}); err == nil || !strings.Contains(err.Error(), "npm install @cognitive-delivery/contract") {
		t.Errorf("not a corpus: %v", err)
	}
}

// TestNodeAdapter runs examples/adapters/node/cdc.mjs (ajv, every hook but
// narrow) and requires upstream's published counts.
func TestNodeAdapter(t *testing.T) {
	dir := sharedCorpus(t)
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	if _, err := os.Stat("../../examples/adapters/node/node_modules/ajv"); err != nil {
		t.Skip("ajv not installed: run npm ci in examples/adapters/node")
	}
	l := loadSuite(t, dir)
	cfg := adapter.ProcessConfig{Argv: []string{"node", "../../examples/adapters/node/cdc.mjs"}, Env: append(os.Environ(), "CDC_CORPUS="+dir)}
	// Compiling the schemas with Ajv takes most of a second, more on a loaded machine.
	run := checktest.Execute(t, l.Suite, func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }, adapter.Options{Timeout: time.Minute})
	b, _ := json.Marshal(native(l, run))
	if string(b) != `{"validCount":40,"invalidCount":98,"canonicalChecked":true,"narrowingChecked":false,"signaturesChecked":true,"rulesChecked":true,"errorPathsChecked":true,"failures":[]}` {
		t.Errorf("native = %s", b)
	}
	// Ajv passes the supplement too: it is ECMA-262's reading throughout.
	for _, r := range run.Results {
		if strings.HasPrefix(r.ID, supplementPrefix) && r.Status != check.Pass && !(r.Status == check.NotChecked && r.Reason == "adapter offers no narrow") {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Reason)
		}
	}
}
