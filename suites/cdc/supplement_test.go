package cdc

import (
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// appliesTo lists, per corpus, the supplement's cases that apply: those
// whose fixtures, schema texts, SPEC sentences and vectors that corpus has.
var appliesTo = map[string][]string{
	"1.0.2": {
		"patterns/declared-hash-trailing-newline", "patterns/git-sha-trailing-newline", "patterns/read-path-trailing-newline", "patterns/read-path-line-separator",
		"digits/issued-at-arabic-indic", "digits/timestamp-fullwidth",
		"space/github-repo-no-break-space", "space/github-repo-vertical-tab", "space/github-repo-byte-order-mark", "space/github-repo-information-separator",
		"integers/budget-written-with-fraction",
		"unknown/agent-lease.manifest.agent/tolerated", "unknown/agent-lease.manifest.agent/kept",
		"unknown/agent-lease-manifest.agent.model/tolerated", "unknown/agent-lease-manifest.agent.model/kept",
		"unknown/plugin-marketplace.plugins/tolerated", "unknown/plugin-marketplace.plugins/kept",
		"unknown/cdi-assessment.dimensions/tolerated", "unknown/cdi-assessment.dimensions/kept",
		"canonical/integral-floats", "canonical/exponent-boundaries",
	},
	"1.2.1": {
		"patterns/declared-hash-trailing-newline", "patterns/git-sha-trailing-newline", "patterns/host-trailing-newline",
		"patterns/command-trailing-newline", "patterns/tool-trailing-newline", "patterns/schema-version-trailing-newline",
		"digits/issued-at-arabic-indic", "digits/timestamp-fullwidth", "digits/schema-version-arabic-indic",
		"space/github-repo-no-break-space", "space/github-repo-vertical-tab", "space/github-repo-byte-order-mark", "space/github-repo-information-separator",
		"length/agent-name-120-astral", "length/audit-summary-300-astral",
		"bounds/hook-timeout-zero",
		"integers/budget-written-with-fraction",
		"unknown/agent-lease.manifest.agent/tolerated", "unknown/agent-lease.manifest.agent/kept",
		"unknown/agent-lease-manifest.agent.model/tolerated", "unknown/agent-lease-manifest.agent.model/kept",
		"unknown/plugin-marketplace.plugins/tolerated", "unknown/plugin-marketplace.plugins/kept",
		"unknown/cdi-assessment.dimensions/tolerated", "unknown/cdi-assessment.dimensions/kept",
		"unknown/lease-record.lease.manifest.agent/tolerated", "unknown/lease-record.lease.manifest.agent/kept",
		"signatures/upper-case-signature",
		"narrowing/host-wildcard-under-literal", "narrowing/host-star-under-wildcard", "narrowing/host-wildcard-one-label", "narrowing/tool-name-prefix",
		"narrowing/path-glob-wider-than-parent-glob",
		"narrowing/path-star-star-under-dir", "narrowing/path-sibling-prefix",
		"canonical/integral-floats", "canonical/exponent-boundaries",
	},
}

// TestSupplementApplies: each corpus takes the cases whose rules it has,
// and every case applies to one of them at least.
func TestSupplementApplies(t *testing.T) {
	sup, err := EmbeddedSupplement()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for name, dir := range map[string]string{"1.0.2": "", "1.2.1": sharedCorpus(t)} {
		var c *corpus.Corpus
		if dir == "" {
			c, err = Embedded()
		} else {
			c, err = corpus.OpenDir(dir, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		cp, err := ReadCorpus(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sc := range cp.Applicable(sup) {
			got = append(got, sc.Name)
			used[sc.Name] = true
		}
		if !slices.Equal(got, appliesTo[name]) {
			t.Errorf("%s: the cases that apply are\n%q\nwant\n%q", name, got, appliesTo[name])
		}
	}
	for _, sc := range sup.Cases {
		if !used[sc.Name] {
			t.Errorf("case %s applies to neither corpus", sc.Name)
		}
	}
}

// TestSupplementPathsFollowTheLayout: a supplement check takes the level
// its corpus's SPEC gives it. Where a rejection is reported is a rule of
// the 1.2 SPEC (§9, item 5) alone: on the 1.2.1 corpus each case with a
// path has its /path check, a must on that clause; on the embedded 1.0.2,
// whose SPEC has no such rule and whose own fixtures get no path check,
// none is run.
func TestSupplementPathsFollowTheLayout(t *testing.T) {
	sup, err := EmbeddedSupplement()
	if err != nil {
		t.Fatal(err)
	}
	withPath := 0
	for _, sc := range sup.Cases {
		if sc.Path != nil {
			withPath++
		}
	}
	for _, tt := range []struct {
		name, dir string
		paths     bool
	}{{"1.0.2", "", false}, {"1.2.1", sharedCorpus(t), true}} {
		var c *corpus.Corpus
		if tt.dir == "" {
			c, err = Embedded()
		} else {
			c, err = corpus.OpenDir(tt.dir, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		cp, err := ReadCorpus(c, tt.dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ch := range append(cp.Checks(), cp.SupplementChecks(sup)...) {
			if !strings.HasSuffix(ch.ID, "/path") {
				continue
			}
			if !tt.paths {
				t.Errorf("%s: %s is run, but the 1.0 SPEC has no rejection-path rule", tt.name, ch.ID)
				continue
			}
			if strings.HasPrefix(ch.ID, supplementPrefix) {
				n++
				if ch.Level != check.Must || !strings.HasPrefix(ch.Clause, clauses12.path) {
					t.Errorf("%s: %s is %s on %q, want a must on SPEC 1.2 §9, item 5", tt.name, ch.ID, ch.Level, ch.Clause)
				}
			}
		}
		if tt.paths && (n == 0 || n > withPath) {
			t.Errorf("%s: %d supplement path checks of %d cases with a path", tt.name, n, withPath)
		}
	}
}

// TestSupplementSelection: a case is left out where its fixture, schema
// text, SPEC sentence or vectors are missing, or its edit changes nothing.
func TestSupplementSelection(t *testing.T) {
	cp := readTiny(t, tinyFiles())
	cp.spec = check.OneLine("The SPEC says   this,\nover two lines.")
	base := SupplementCase{Name: "x", Doc: "d", Clause: "c", Level: check.Must, Op: OpValidate,
		Base: "provenance.populated.json", Edits: []Edit{set("/s", "y")}, Valid: ptr(false)}
	for _, tt := range []struct {
		name string
		edit func(*SupplementCase)
		want bool
	}{
		{"as it stands", func(*SupplementCase) {}, true},
		{"another fixture", func(c *SupplementCase) { c.Base = "provenance.other.json" }, false},
		{"a missing path", func(c *SupplementCase) { c.Edits = []Edit{set("/nope/s", 1)} }, false},
		{"a member added", func(c *SupplementCase) { c.Edits = []Edit{set("/new", 1)} }, true},
		{"an edit that changes nothing", func(c *SupplementCase) { c.Edits = []Edit{set("/n", 1.0)} }, true}, // 1 is not the lexeme 1.0
		{"the same value", func(c *SupplementCase) { c.Edits = []Edit{{At: "/n", Set: []byte("1.0")}} }, false},
		{"append to a string", func(c *SupplementCase) { c.Edits = []Edit{appendTo("/s", "\n")} }, true},
		{"append to a number", func(c *SupplementCase) { c.Edits = []Edit{appendTo("/n", "\n")} }, false},
		{"the schema text", func(c *SupplementCase) {
			c.Requires.Schemas = []SchemaRule{rule("provenance", "/properties/n/maximum", 100)}
		}, true},
		{"another schema text", func(c *SupplementCase) {
			c.Requires.Schemas = []SchemaRule{rule("provenance", "/properties/n/maximum", 99)}
		}, false},
		{"an open object", func(c *SupplementCase) { c.Requires.Schemas = []SchemaRule{openSchema("provenance", "")} }, true},
		{"a schema of another shape", func(c *SupplementCase) { c.Requires.Schemas = []SchemaRule{openSchema("agent-lease", "")} }, false},
		{"a SPEC sentence", func(c *SupplementCase) { c.Requires.Spec = []string{"says this, over two"} }, true},
		{"a sentence it lacks", func(c *SupplementCase) { c.Requires.Spec = []string{"says that"} }, false},
		{"narrowing vectors", func(c *SupplementCase) { c.Requires.Vectors = "narrowing" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			if err := c.wellFormed(); err != nil {
				t.Fatal(err)
			}
			got := len(cp.Applicable(&Supplement{Cases: []SupplementCase{c}})) == 1
			if got != tt.want {
				t.Errorf("applies %v, want %v", got, tt.want)
			}
		})
	}
}

func TestApplyEdit(t *testing.T) {
	doc, _ := canon.Parse([]byte(`{"a":{"b":["x","y"]},"s":"ab"}`), canon.ReadOptions{})
	for _, tt := range []struct {
		edit Edit
		want string // "" when it does not apply
	}{
		{set("/a/b/1", "z"), `{"a":{"b":["x","z"]},"s":"ab"}`},
		{set("/a/c", 1), `{"a":{"b":["x","y"],"c":1},"s":"ab"}`},
		{Edit{At: "/s", Set: []byte("2.0")}, `{"a":{"b":["x","y"]},"s":2.0}`},
		{appendTo("/s", "\n"), `{"a":{"b":["x","y"]},"s":"ab\n"}`},
		{Edit{At: "/s", Upper: true}, `{"a":{"b":["x","y"]},"s":"AB"}`},
		{set("/a/b/2", "z"), ""},
		{set("/a/b/01", "z"), ""},
		{set("/x/y", 1), ""},
		{appendTo("/a", "!"), ""},
	} {
		got, ok := applyEdit(doc, tt.edit)
		switch {
		case tt.want == "" && ok:
			t.Errorf("%+v applies: %s", tt.edit, got.String())
		case tt.want != "" && (!ok || got.String() != tt.want):
			t.Errorf("%+v: %s (%v), want %s", tt.edit, got.String(), ok, tt.want)
		}
	}
	if doc.String() != `{"a":{"b":["x","y"]},"s":"ab"}` {
		t.Errorf("the base was changed: %s", doc.String())
	}
}

// TestReadSupplementErrors: a malformed supplement is refused, naming the case.
func TestReadSupplementErrors(t *testing.T) {
	good := `{"name":"a/b","doc":"d","level":"must","clause":"c","requires":{},"op":"validate","base":"x.json","edits":[{"at":"/s","append":"\n"}],"valid":false,"path":"/s"}`
	for _, tt := range []struct {
		name, from, to, want string
	}{
		{"an unknown op", `"op":"validate"`, `"op":"parse"`, `op "parse"`},
		{"a missing verdict", `,"valid":false`, ``, "op validate needs valid"},
		{"a member the op does not use", `"path":"/s"`, `"path":"/s","kept":"/s"`, "op validate takes no kept"},
		{"a path for an acceptance", `"valid":false`, `"valid":true`, "a path is only for a rejection"},
		{"a bad level", `"must"`, `"could"`, `level "could"`},
		{"two edits in one", `"append":"\n"`, `"append":"\n","upper":true`, "exactly one of set, append and upper"},
		{"a name ending in /path", `"a/b"`, `"a/path"`, "not ending in /path"},
		{"an unknown member", `"doc":"d"`, `"doc":"d","extra":1`, "unknown field"},
		{"no clause", `"clause":"c"`, `"clause":""`, "needs a doc and a clause"},
		{"an unknown vectors", `"requires":{}`, `"requires":{"vectors":"rules"}`, `vectors "rules"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"format":"referee-cdc-supplement/1","about":[],"cases":[` + strings.Replace(good, tt.from, tt.to, 1) + `]}`
			c, err := corpus.Open(fstest.MapFS{SupplementFile: {Data: []byte(doc)}}, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadSupplement(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	c, _ := corpus.Open(fstest.MapFS{SupplementFile: {Data: []byte(`{"format":"referee-cdc-supplement/1","about":[],"cases":[` + good + `,` + good + `]}`)}}, "test")
	if _, err := ReadSupplement(c); err == nil || !strings.Contains(err.Error(), `case 1 ("a/b"): duplicate name`) {
		t.Errorf("a duplicate name: %v", err)
	}
}

// TestNoSupplement: --no-supplement leaves the supplement out, and the
// native report counts upstream's corpus only, with it or without it: a
// bug only the supplement catches fails the run and leaves upstream's
// report clean.
func TestNoSupplement(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tool := report.Tool{Name: "referee", Version: "test"}
	for _, off := range []bool{false, true} {
		flags := check.FlagValues{}
		if off {
			flags[FlagNoSupplement] = "true"
		}
		plan, err := run.Prepare(&Definition, check.Spec{Mode: "python-re", Flags: flags}, run.Options{Tool: tool, Flags: flags})
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Execute(t.Context())
		n := 0
		for _, r := range res.Execution.Results {
			if strings.HasPrefix(r.ID, supplementPrefix) {
				n++
			}
		}
		doc, _ := res.Native()
		native := doc.(*NativeReport)
		switch {
		case off && (n != 0 || res.ExitCode() != report.ExitOK || len(res.Execution.Results) != 97):
			t.Errorf("--no-supplement: %d supplement checks of %d, exit %d", n, len(res.Execution.Results), res.ExitCode())
		case !off && (n == 0 || res.ExitCode() != report.ExitFailed):
			t.Errorf("with the supplement: %d supplement checks, exit %d", n, res.ExitCode())
		case len(native.Failures) != 0 || native.ValidCount != 20 || native.InvalidCount != 26:
			t.Errorf("native report %+v, want upstream's clean one", native)
		}
	}
}

func TestDialects(t *testing.T) {
	for _, tt := range []struct {
		d          *dialect
		in, want   string
		isDigitCls bool
	}{
		{&pythonRe, `^[0-9a-f]{64}$`, `^[0-9a-f]{64}(?=\n?$)`, false},
		{&pythonRe, `(^|/)\.\.(/|$)`, `(^|/)\.\.(/|(?=\n?$))`, false},
		{&pythonRe, `^[$.]$`, `^[$.](?=\n?$)`, false},
		{&pythonRe, `^.*$`, `^[^\n]*(?=\n?$)`, false},
		{&pythonRe, `^[^/\s]+$`, `^[^/` + pythonRe.space + `]+(?=\n?$)`, false},
		{&pythonRe, `\S`, `[^` + pythonRe.space + `]`, false},
		{&pythonRe, `^\d+\.\d+$`, `^[` + pythonRe.digit.Get() + `]+\.[` + pythonRe.digit.Get() + `]+(?=\n?$)`, true},
		{&re2Classes, `^[^/\s]+/[^/\s]+$`, `^[^/\t\n\f\r ]+/[^/\t\n\f\r ]+$`, false},
		{&re2Classes, `^\d{4}$`, `^\d{4}$`, false},
		{&re2Classes, `a.b`, `a[^\n]b`, false},
		{&re2Classes, `\\s`, `\\s`, false},
	} {
		if got := tt.d.rewrite(tt.in); got != tt.want {
			t.Errorf("rewrite(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, digit := range []string{`\u0030-\u0039`, `\u0660-\u0669`, `\uff10-\uff19`} {
		if !strings.Contains(pythonRe.digit.Get(), digit) {
			t.Errorf("Python's \\d lacks %s", digit)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for _, tt := range []struct {
		f          float64
		repr, ex16 string
	}{
		{1, "1.0", "1"},
		{100, "100.0", "100"},
		{0, "0.0", "0"},
		{math.Copysign(0, -1), "-0.0", "0"},
		{0.5, "0.5", "0.5"},
		{1e16, "1e+16", "1e+16"},
		{1e21, "1e+21", "1e+21"},
		{123456789012345680, "1.2345678901234568e+17", "1.2345678901234568e+17"},
		{1e-4, "0.0001", "0.0001"},
		{1e-5, "1e-5", "1e-5"},
		{1.5e-6, "1.5e-6", "1.5e-6"},
		{1e-7, "1e-7", "1e-7"},
	} {
		if got := pyRepr(tt.f, floatRepr); got != tt.repr {
			t.Errorf("repr %v = %s, want %s", tt.f, got, tt.repr)
		}
		if got := pyRepr(tt.f, floatExponent16); got != tt.ex16 {
			t.Errorf("exponent-16 %v = %s, want %s", tt.f, got, tt.ex16)
		}
	}
	negZero, _ := canon.Parse([]byte(`[-0.0,-0,0,1.0]`), canon.ReadOptions{})
	for form, want := range map[floatForm]string{floatRepr: `[-0.0,-0,0,1.0]`, floatNegativeZero: `[-0,-0,0,1]`, floatExponent16: `[0,-0,0,1]`} {
		if got := writeFloats(negZero, form).String(); got != want {
			t.Errorf("form %d: %s, want %s", form, got, want)
		}
	}
}
