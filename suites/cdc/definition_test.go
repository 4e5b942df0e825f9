package cdc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
)

// writeTiny writes the tiny corpus to a directory and returns it; without
// byRule, with no invalid-by-rule fixtures, so that the built-in passes it.
func writeTiny(t *testing.T, byRule bool) string {
	t.Helper()
	dir := t.TempDir()
	for name, f := range tinyFiles() {
		if !byRule && strings.HasPrefix(name, "fixtures/invalid-by-rule/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDefinition(t *testing.T) {
	d := Definition
	if d.Name != Name || !strings.Contains(d.Embedded, "1.0.2") || d.Load == nil || d.Live || len(d.Flags) != 1 ||
		d.Flags[0].Name != FlagNoSupplement || d.Flags[0].Kind != check.FlagBool || d.Flags[0].Repro {
		t.Errorf("definition: name %q, embedded %q, live %v, %d flags", d.Name, d.Embedded, d.Live, len(d.Flags))
	}
	if !strings.Contains(d.Help, EmbeddedRelease[1:]) {
		t.Errorf("the help does not name the embedded release %s", EmbeddedRelease)
	}
	if !slices.Equal(check.ModeNames(d.ModeList()), func() []string {
		var n []string
		for _, m := range Modes {
			n = append(n, m.Name)
		}
		return n
	}()) {
		t.Errorf("modes %v", check.ModeNames(d.ModeList()))
	}
	for _, m := range d.ModeList() {
		if m.Doc == "" {
			t.Errorf("mode %s has no doc", m.Name)
		}
	}
	if err := d.CheckMode("accept-all"); err != nil {
		t.Error(err)
	}
}

// TestEmbeddedRelease: without --corpus the suite runs the published
// release, whose files on disk (for adapters) match the embedded ones, and
// whose native report is upstream's published run of 1.0.2.
func TestEmbeddedRelease(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	l, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := l.Hello["corpus"]
	if !filepath.IsAbs(dir) || !slices.Contains(l.Env, "CDC_CORPUS="+dir) {
		t.Fatalf("hello %v, env %v", l.Hello, l.Env)
	}
	onDisk, err := corpus.OpenDir(dir, 0)
	if err != nil || onDisk.Digest != l.Suite.CorpusDigest {
		t.Fatalf("the materialised corpus %s: %v (digest %s, want %s)", dir, err, onDisk.Digest, l.Suite.CorpusDigest)
	}
	// A second load reuses the directory.
	if l2, err := Definition.Load(check.LoadOptions{}); err != nil || l2.Hello["corpus"] != dir {
		t.Fatalf("second load: %v, %v", err, l2.Hello)
	}
	// A corrupted copy is left as it is (another run may be reading it) and
	// a new one written beside it.
	if err := os.WriteFile(filepath.Join(dir, "schemas", "agent-lease.schema.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	l3, err := Definition.Load(check.LoadOptions{})
	if err != nil || l3.Hello["corpus"] != dir+"-1" {
		t.Fatalf("third load: %v, %v", err, l3.Hello)
	}
	if d, err := corpus.OpenDir(dir+"-1", 0); err != nil || d.Digest != l.Suite.CorpusDigest {
		t.Errorf("the new copy does not verify: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "schemas", "agent-lease.schema.json")); err != nil || string(b) != "{}" {
		t.Errorf("the corrupted copy was touched: %q, %v", b, err)
	}
	h, err := l.Reference("")
	if err != nil {
		t.Fatal(err)
	}
	run := checktest.Execute(t, l.Suite, adapter.InProcess(h))
	if n := run.Counts(); n.Pass != len(run.Results) {
		t.Errorf("counts %+v", n)
	}
	native := l.Native(run, check.Spec{}).(*NativeReport)
	if native.ValidCount != 20 || native.InvalidCount != 26 || !native.CanonicalChecked || len(native.Failures) != 0 {
		t.Errorf("native %+v, want upstream's published run of 1.0.2: 20 valid, 26 invalid, canonical checked, no failures", native)
	}
	prov, err := embedded.ReadFile("corpus/PROVENANCE.json")
	if err != nil || !strings.Contains(string(prov), `"version": "1.0.2"`) || !strings.Contains(string(prov), "sha512-") {
		t.Errorf("PROVENANCE.json: %v\n%s", err, prov)
	}
	pkg, err := embedded.ReadFile("corpus/package.json")
	if err != nil || !strings.Contains(string(pkg), `"version": "1.0.2"`) || !strings.Contains(string(pkg), `"license": "Apache-2.0"`) {
		t.Errorf("package.json: %v", err)
	}
}

// TestLoad: each load stands alone, with the built-in implementation, the
// native report and the adapter's corpus directory bound to its own corpus,
// whatever is called first.
func TestLoad(t *testing.T) {

	a, b := writeTiny(t, false), writeTiny(t, false)
	la, err := Definition.Load(check.LoadOptions{Corpus: a})
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Definition.Load(check.LoadOptions{Corpus: b})
	if err != nil {
		t.Fatal(err)
	}
	if la.Hello["corpus"] != a || !slices.Equal(la.Env, []string{"CDC_CORPUS=" + a}) || lb.Hello["corpus"] != b {
		t.Errorf("hello %v env %v; hello %v", la.Hello, la.Env, lb.Hello)
	}
	if la.Suite.Name != Name || la.Suite.Version != Version || la.Suite.CorpusDigest == "" {
		t.Errorf("suite %s %s %q", la.Suite.Name, la.Suite.Version, la.Suite.CorpusDigest)
	}

	// The first load's reference, called after the second load, is the
	// first corpus's: break it, and only runs of the first fail.
	if err := os.WriteFile(filepath.Join(a, "schemas", "provenance.schema.json"), []byte(`{"type": "string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*check.Loaded{lb, la} {
		h, err := l.Reference("")
		if err != nil {
			t.Fatal(err)
		}
		run := checktest.Execute(t, l.Suite, adapter.InProcess(h))
		n := l.Native(run, check.Spec{}).(*NativeReport)
		if broken := l == la; broken != (len(n.Failures) > 0) {
			t.Errorf("%s: failures %q", l.Hello["corpus"], n.Failures)
		}
	}
	if _, err := la.Reference("no-such-mode"); err == nil || !strings.Contains(err.Error(), "no broken mode") {
		t.Errorf("unknown mode: %v", err)
	}
}

func exportJSTS(t *testing.T, flags check.FlagValues) (string, error) {
	t.Helper()
	var cmd *check.Command
	for i := range Definition.Commands {
		if c := &Definition.Commands[i]; c.Name == "export" && len(c.Sub) == 1 && c.Sub[0].Name == "jsts" {
			cmd = &c.Sub[0]
		}
	}
	if cmd == nil {
		t.Fatal("no export jsts command")
	}
	var out bytes.Buffer
	err := cmd.Action(context.Background(), &check.Invocation{Flags: flags, Stdout: &out, Stderr: &out})
	return out.String(), err
}

// TestExportCommand runs `export jsts` as the CLI calls it; the testscript
// export_jsts.txtar covers it through the CLI.
func TestExportCommand(t *testing.T) {
	dir := writeTiny(t, true)
	out := filepath.Join(t.TempDir(), "out")
	stdout, err := exportJSTS(t, check.FlagValues{"corpus": dir, "out": out})
	if err != nil || stdout != filepath.Join(out, "provenance.json")+": 1 case, 5 tests\n" {
		t.Fatalf("export: %q, %v", stdout, err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "provenance.json"))
	if !bytes.Contains(b, []byte(`"description": "Tiny provenance (provenance.schema.json, exported by referee from the corpus): every fixture of the conformance corpus"`)) {
		t.Errorf("the default label is not used:\n%s", b)
	}

	// --check: missing from the corpus is stale, a usage error (exit 2).
	stdout, err = exportJSTS(t, check.FlagValues{"corpus": dir, "check": "true"})
	var ue *check.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "conformance/suite/draft7 is stale in 1 of 1 files") ||
		!strings.HasPrefix(stdout, "conformance/suite/draft7/provenance.json: stale: missing from the corpus") {
		t.Errorf("stale: %q, %v", stdout, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, JSTSDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, JSTSDir, "provenance.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, err = exportJSTS(t, check.FlagValues{"corpus": dir, "check": "true"})
	if err != nil || stdout != "conformance/suite/draft7/provenance.json: up to date (1 case, 5 tests)\n" {
		t.Errorf("up to date: %q, %v", stdout, err)
	}

	for _, tt := range []struct {
		flags check.FlagValues
		want  string
	}{
		{check.FlagValues{"out": out}, "export jsts needs --corpus DIR: " + Definition.Corpus},
		{check.FlagValues{"corpus": dir}, "export jsts needs --out OUT"},
		{check.FlagValues{"corpus": dir, "out": out, "label": ""}, "--label is empty"},
	} {
		_, err := exportJSTS(t, tt.flags)
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: %v, want a usage error %q", tt.flags, err, tt.want)
		}
	}
	if _, err := exportJSTS(t, check.FlagValues{"corpus": t.TempDir(), "out": out}); err == nil || !strings.Contains(err.Error(), "no schemas/<shape>.schema.json") {
		t.Errorf("not a corpus: %v", err)
	}
}
