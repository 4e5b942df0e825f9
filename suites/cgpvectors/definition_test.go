package cgpvectors

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
)

func TestDefinition(t *testing.T) {
	d := Definition
	if d.Name != Name || d.Summary == "" || strings.Contains(d.Summary, "\n") || d.Help == "" || d.Corpus == "" || d.Embedded == "" || d.Live {
		t.Errorf("definition: %+v", d)
	}
	if len(d.Flags) != 1 || d.Flags[0].Name != FlagVectors || d.Flags[0].Kind != check.FlagString || !d.Flags[0].Repro || !strings.Contains(d.Flags[0].Usage, "`DIR`") {
		t.Errorf("flags: %+v", d.Flags)
	}
	if len(d.ModeList()) != len(Modes) {
		t.Fatalf("%d modes, want %d", len(d.ModeList()), len(Modes))
	}
	for i, m := range Modes {
		if d.ModeList()[i].Name != m.Name || d.ModeList()[i].Doc == "" {
			t.Errorf("mode %d: %+v, want %s", i, d.ModeList()[i], m.Name)
		}
	}
	if err := d.CheckMode("codepoint-order"); err != nil {
		t.Error(err)
	}
	for _, ex := range d.Examples {
		if !strings.HasPrefix(ex, "referee run "+Name) {
			t.Errorf("example %q", ex)
		}
	}
	if Version != "0.1.0" {
		t.Errorf("version %s", Version)
	}
}

// TestLoadIsPure: each Load builds values of its own, and its Reference
// gives the built-in adapter, honest or broken.
func TestLoadIsPure(t *testing.T) {
	a, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Definition.Load(check.LoadOptions{Flags: check.FlagValues{}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Suite == b.Suite || &a.Suite.Checks[0] == &b.Suite.Checks[0] || !slices.Equal(ids(a.Suite), ids(b.Suite)) || a.Suite.CorpusDigest != b.Suite.CorpusDigest {
		t.Error("two loads share values, or differ")
	}
	if a.Suite.Name != Name || a.Suite.Version != Version || a.Suite.Corpus != "embedded:cgp-vectors" || len(a.Suite.Checks) != 300 {
		t.Errorf("suite %s %s %s, %d checks", a.Suite.Name, a.Suite.Version, a.Suite.Corpus, len(a.Suite.Checks))
	}
	if a.Native != nil || a.After != nil || a.Connect != nil || a.Hello != nil || a.Env != nil {
		t.Error("cgp-vectors has no native report, after hook, connection, hello args or environment")
	}
	h, err := a.Reference("")
	if err != nil || h.Hello().Name != "referee-cgp-vectors" {
		t.Errorf("reference: %v", err)
	}
	if h, err := a.Reference("lenient"); err != nil || h.Hello().Name != "referee-cgp-vectors+lenient" {
		t.Errorf("reference lenient: %v", err)
	}
	if h, err := a.Reference("no-such-mode"); err == nil || h != nil {
		t.Errorf("reference no-such-mode: %v, %v", h, err)
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		o     check.LoadOptions
		usage bool
		want  string
	}{
		{"no vectors dir", check.LoadOptions{Flags: check.FlagValues{FlagVectors: filepath.Join(empty, "nowhere")}}, true, "--vectors: corpus " + filepath.Join(empty, "nowhere")},
		{"vectors dir of none", check.LoadOptions{Flags: check.FlagValues{FlagVectors: empty}}, true, "--vectors: corpus " + empty + ": none of the CGP vector files"},
		{"profile without manifest", check.LoadOptions{Corpus: empty}, false, "corpus " + empty + ": not a CGP fixture profile: no manifest.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Definition.Load(tt.o)
			var ue *check.UsageError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || errors.As(err, &ue) != tt.usage {
				t.Errorf("error = %v (usage error: %v), want one starting %q (usage error: %v)", err, errors.As(err, &ue), tt.want, tt.usage)
			}
		})
	}
}

// TestLevels: every check says what it rests on; the checks that a
// verifier refuses weak Ed25519 keys are shoulds (SPEC §6.5.4), the rest
// musts.
func TestLevels(t *testing.T) {
	var should []string
	for _, c := range embeddedSuite(t).Checks {
		if c.Clause == "" {
			t.Errorf("%s has no clause", c.ID)
		}
		switch c.LevelOf() {
		case check.Should:
			should = append(should, c.ID)
			if c.Clause != clauseStrictVerifier {
				t.Errorf("%s: clause %q", c.ID, c.Clause)
			}
		case check.May:
			t.Errorf("%s is a may", c.ID)
		}
	}
	want := []string{"cgp-vectors/record-attestation/verify/small-order-key"}
	for i := 1; i <= 8; i++ {
		want = append(want, "cgp-vectors/provenance/verify/small-order-key-"+string(rune('0'+i)))
	}
	want = append(want, "cgp-vectors/provenance/verify/non-canonical-key-1", "cgp-vectors/provenance/verify/non-canonical-key-2",
		"cgp-vectors/provenance/verify/x-zero-sign-key-1", "cgp-vectors/provenance/verify/x-zero-sign-key-2",
		"cgp-vectors/provenance/verify/non-canonical-large-order-key", "cgp-vectors/provenance/verify/identity-r")
	slices.Sort(should)
	slices.Sort(want)
	if !slices.Equal(should, want) {
		t.Errorf("should checks:\n%s\nwant\n%s", strings.Join(should, "\n"), strings.Join(want, "\n"))
	}
	s := embeddedSuite(t)
	for _, c := range s.Checks {
		switch c.ID {
		case "cgp-vectors/frame-rules/score-zero":
			if !strings.Contains(c.Clause, "F1: 0 ≤ score ≤ 1") {
				t.Errorf("%s: clause %q", c.ID, c.Clause)
			}
		case "cgp-vectors/frame-rules/several-rules":
			for _, r := range []string{"F2:", "F3:", "F4:", "G1:"} {
				if !strings.Contains(c.Clause, r) {
					t.Errorf("%s: clause %q lacks %s", c.ID, c.Clause, r)
				}
			}
		case "cgp-vectors/citation/blank":
			if !strings.HasPrefix(c.Clause, "CGP SPEC F3: citation_label MUST") {
				t.Errorf("%s: clause %q", c.ID, c.Clause)
			}
		}
	}
}

func TestManifest(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	about, problems := Definition.Manifest(c.Manifest.Meta)
	if about != "a Context Graph fixture profile for contextgraph/1.0" || len(problems) != 0 {
		t.Errorf("embedded: %q, %v", about, problems)
	}
	str := func(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }
	if about, problems := Definition.Manifest([]canon.Member{{Key: "suite", Value: str("jcs")}}); about != "" || problems != nil {
		t.Errorf("another suite's manifest: %q, %v", about, problems)
	}
	about, problems = Definition.Manifest([]canon.Member{{Key: "protocol_version", Value: str("contextgraph/2.0")}, {Key: "extra", Value: str("x")}})
	if about != "a Context Graph fixture profile for contextgraph/2.0" || len(problems) != 4 {
		t.Errorf("a broken profile manifest: %q, %v", about, problems)
	}
	// Upstream's own manifests pass, as corpus.OpenDir reads them.
	if m, err := corpus.ParseManifest([]byte(`{"protocol_version":"contextgraph/1.0-draft","fixture_profile_version":"1.1.0","generation_command":"cargo test -p contextgraph-conformance --test golden_fixtures","files":{}}`)); err != nil {
		t.Fatal(err)
	} else if about, problems := Definition.Manifest(m.Meta); about != "a Context Graph fixture profile for contextgraph/1.0-draft" || len(problems) != 0 {
		t.Errorf("upstream's: %q, %v", about, problems)
	}
}
