package cdc

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/fuzz/fuzztest"
	"github.com/refereehq/referee/report"
)

var fuzzTool = report.Tool{Name: "referee", Version: "test"}

// fuzzCount bounds the inputs within which seed 1 must find each broken
// mode of FuzzModes and FuzzModes12.
const fuzzCount = 4000

// TestFuzzFindsEveryMode fuzzes each broken mode the targets can show from
// seed 1 within fuzzCount inputs, requires a finding, and replays the
// corpus written through the run pipeline, as `referee run cdc --corpus
// DIR` does: the mode must fail a check of it and the reference pass them
// all. FuzzModes are fuzzed with the embedded corpus; with the contract's
// checkout in the 1.2 layout (REFEREE_SHARED), FuzzModes and FuzzModes12.
func TestFuzzFindsEveryMode(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, mode := range FuzzModes {
		t.Run("embedded/"+mode, func(t *testing.T) { fuzzFinds(t, "", mode) })
	}
	t.Run("1.2", func(t *testing.T) {
		dir := sharedCorpus(t)
		for _, mode := range append(slices.Clone(FuzzModes), FuzzModes12...) {
			t.Run(mode, func(t *testing.T) { fuzzFinds(t, dir, mode) })
		}
	})
}

// fuzzFinds fuzzes mode with the corpus in dir ("" the embedded one), and
// replays what it found.
func fuzzFinds(t *testing.T, dir, mode string) {
	t.Helper()
	out := t.TempDir()
	s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{Mode: mode}}}, fuzz.Options{
		Seed: 1, Count: fuzzCount, Corpus: dir, Out: out, Tool: fuzzTool, StopAfter: 1, ShrinkBudget: 200,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.RefusedByReference > 0 {
		t.Errorf("the reference failed %d of its own vectors: %v", s.RefusedByReference, s.ReferenceBugs)
	}
	if len(s.Findings) == 0 {
		t.Fatalf("not found in %d inputs (%+v)", s.Inputs, s.Impls[0])
	}
	f := s.Findings[0]
	t.Logf("found at input %d (%s): %s: %s", f.Index, f.Target, f.Check, check.Clip(string(f.Input)))
	if n := fuzztest.Replay(t, &Definition, out, mode, fuzzTool); n.Fail == 0 {
		t.Errorf("mode %s passes the corpus written: %+v", mode, n)
	}
}

// TestFuzzModes: every broken mode is in FuzzModes, in FuzzModes12 or
// among those no target reaches, once.
func TestFuzzModes(t *testing.T) {
	seen := map[string]int{}
	for _, list := range [][]string{FuzzModes, FuzzModes12, fuzzUnreached} {
		for _, m := range list {
			seen[m]++
		}
	}
	for _, m := range Modes {
		if seen[m.Name] != 1 {
			t.Errorf("mode %s is in %d of FuzzModes, FuzzModes12 and fuzzUnreached, want 1", m.Name, seen[m.Name])
		}
		delete(seen, m.Name)
	}
	for m := range seen {
		t.Errorf("%q is no mode", m)
	}
}

// TestFuzzHonest: the reference fuzzed against itself diverges nowhere,
// refuses none of its own vectors, and judges inputs of every target, with
// the embedded corpus and with the contract's 1.2 checkout.
func TestFuzzHonest(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tt := range []struct {
		name, dir string
		targets   []string
	}{
		{"embedded", "", []string{TargetCanonical, TargetNarrow, TargetValidate}},
		{"1.2", "shared", []string{TargetCanonical, TargetNarrow, TargetValidate, TargetSign, TargetRules}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dir != "" {
				tt.dir = sharedCorpus(t)
			}
			s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{}}}, fuzz.Options{Seed: 2, Count: 600, Corpus: tt.dir, Tool: fuzzTool})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) != 0 || s.RefusedByReference != 0 || s.ExitCode() != report.ExitOK {
				t.Errorf("%d findings, %d refused by the reference (%v), exit %d", len(s.Findings), s.RefusedByReference, s.ReferenceBugs, s.ExitCode())
			}
			var names []string
			for _, ts := range s.Targets {
				names = append(names, ts.Name)
				if ts.Judged < ts.Inputs/4 {
					t.Errorf("target %s: %d of %d inputs judged", ts.Name, ts.Judged, ts.Inputs)
				}
			}
			if !slices.Equal(names, tt.targets) {
				t.Errorf("targets %v, want %v", names, tt.targets)
			}
		})
	}
}

// TestFuzzHelpNamesWhatTargetsNeed: the declaration `referee fuzz cdc
// --help` lists has every target, and the docs of those the embedded
// corpus cannot drive say they are left out without --corpus.
func TestFuzzHelpNamesWhatTargetsNeed(t *testing.T) {
	var names []string
	for _, tg := range Definition.Fuzz.Targets {
		names = append(names, tg.Name)
		leftOut := strings.Contains(tg.Doc, "left out without --corpus")
		if want := tg.Name == TargetSign || tg.Name == TargetRules; leftOut != want {
			t.Errorf("target %s: its doc says it is left out without --corpus: %v, want %v", tg.Name, leftOut, want)
		}
	}
	if want := []string{TargetCanonical, TargetNarrow, TargetValidate, TargetSign, TargetRules}; !slices.Equal(names, want) {
		t.Errorf("targets %v, want %v", names, want)
	}
}

// TestFoundCorpusRoundTrip: for every target, the checks the engine makes
// of an entry (Files, then Load from memory) are those a replay of the
// corpus written on disk makes, and the reference passes them all; the
// entries of every target written together load as one corpus whose
// checks are the union of theirs.
func TestFoundCorpusRoundTrip(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Run("embedded", func(t *testing.T) { foundRoundTrip(t, "") })
	t.Run("1.2", func(t *testing.T) { foundRoundTrip(t, sharedCorpus(t)) })
}

// foundRoundTrip is TestFoundCorpusRoundTrip with the corpus in dir ("":
// the embedded one) drawn from.
func foundRoundTrip(t *testing.T, dir string) {
	l := loadSuite(t, dir)
	spec := l.Fuzz
	if spec == nil {
		t.Fatal("the suite loaded with a corpus has no fuzz declaration")
	}
	r := fuzzRand(7)
	var all []any
	var want []string
	for _, tg := range spec.Targets {
		made := 0
		for i := 0; made < 12 && i < 200; i++ {
			entry, ok := tg.Vector("fuzz-"+tg.Name+"-"+strconv.Itoa(i), tg.Generate(r))
			if !ok {
				continue
			}
			made++
			cs, err := check.FuzzChecks(&Definition, spec, entry)
			if err != nil {
				t.Fatalf("%s: %v", tg.Name, err)
			}
			disk := loadFound(t, spec, []any{entry})
			if got, w := checkIDs(cs), checkIDs(disk.Suite.Checks); !slices.Equal(got, w) || len(got) == 0 {
				t.Errorf("%s: the engine's checks %v, a replay's %v", tg.Name, got, w)
			}
			all = append(all, entry)
			want = append(want, checkIDs(cs)...)
		}
		if made == 0 {
			t.Errorf("target %s made no vector in 200 inputs", tg.Name)
		}
	}
	together := loadFound(t, spec, all)
	got := checkIDs(together.Suite.Checks)
	if i := slices.IndexFunc(got, func(id string) bool { return strings.HasPrefix(id, supplementPrefix) }); i >= 0 {
		t.Errorf("a found corpus takes the supplement's checks: %s", got[i])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the corpus of every entry has %d checks, its entries %d", len(got), len(want))
	}
	run := checktest.RunSuite(t, together.Suite, reference(t, together, ""))
	if n := run.Counts(); n.Pass != len(got) {
		t.Errorf("the reference on the found corpus: %+v of %d checks", n, len(got))
	}
}

// loadFound writes entries as a found corpus on disk, with the manifest
// fuzz writes, and loads it as `referee run cdc --corpus DIR` does.
func loadFound(t *testing.T, spec *check.FuzzSpec, entries []any) *check.Loaded {
	t.Helper()
	files, err := spec.Files(entries)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := corpus.FoundFS(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, f := range fsys {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return loadSuite(t, dir)
}

func checkIDs(cs []check.Check) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// TestWellFormedManifest: the narrowing generator's pairs keep schema set
// 1.2's rules, and a shrunk manifest that breaks one is no vector.
func TestWellFormedManifest(t *testing.T) {
	r := fuzzRand(3)
	for i := range 200 {
		var pair struct{ Declared, Parent json.RawMessage }
		if err := json.Unmarshal(newFuzzMaterial(&Corpus{}).narrowInput(r), &pair); err != nil {
			t.Fatal(err)
		}
		for _, m := range []json.RawMessage{pair.Declared, pair.Parent} {
			v, err := canon.Parse(m, canon.ReadOptions{})
			if err != nil || !wellFormedManifest(v) {
				t.Fatalf("pair %d: %s is not well formed (%v)", i, m, err)
			}
		}
	}
	good := `{"schema_version":"1.0","agent":{"name":"w","kind":"native","runtime_agent":"cdf-native"},"intent":{"purpose":"p"},` +
		`"allow":{"tools":["t"],"read_paths":["src/**"],"write_paths":[],"hosts":["*.example.com"],"commands":["git"]},` +
		`"deny":{"commands":[],"paths":["~/.ssh/**"],"hosts":[]},"budget":{"depth":2,"cost_usd":2.5},"approvals":[]}`
	for _, tt := range []struct {
		name, from, to string
		want           bool
	}{
		{"as generated", "", "", true},
		{"no approvals", `,"approvals":[]`, ``, false},
		{"an escaping allow path", `"src/**"`, `"../x"`, false},
		{"a home-relative allow path", `"src/**"`, `"~/x"`, false},
		{"a deny path with ..", `"~/.ssh/**"`, `"a/../b"`, false},
		{"an upper-case host", `"*.example.com"`, `"API.example.com"`, false},
		{"a tool *", `["t"]`, `["*"]`, false},
		{"an empty purpose", `"purpose":"p"`, `"purpose":""`, false},
		{"a fractional depth", `"depth":2`, `"depth":2.5`, false},
		{"depth above 16", `"depth":2`, `"depth":17`, false},
		{"an unknown kind", `"native"`, `"robot"`, false},
		// Lengths in code points, as the schema's maxLength counts them: a
		// lone surrogate escape is one, not the three bytes it is held in.
		{"a name of 120 lone surrogates", `"name":"w"`, `"name":"` + strings.Repeat(`\ud800`, 120) + `"`, true},
		{"a name of 121 lone surrogates", `"name":"w"`, `"name":"` + strings.Repeat(`\ud800`, 121) + `"`, false},
		{"a purpose of 500 lone surrogates", `"purpose":"p"`, `"purpose":"` + strings.Repeat(`\udc00`, 500) + `"`, true},
		{"a purpose of 501 characters", `"purpose":"p"`, `"purpose":"` + strings.Repeat("é", 501) + `"`, false},
	} {
		text := good
		if tt.from != "" || tt.to != "" {
			text = strings.Replace(good, tt.from, tt.to, 1)
		}
		v, err := canon.Parse([]byte(text), canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := wellFormedManifest(v); got != tt.want {
			t.Errorf("%s: well formed %v, want %v", tt.name, got, tt.want)
		}
	}
}

// fuzzRand is a generator from a fixed seed.
func fuzzRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// TestGeneratedManifestsValidate holds the narrowing generator to the 1.2
// schemas themselves, not only to wellFormedManifest's copy of their rules.
func TestGeneratedManifestsValidate(t *testing.T) {
	v, err := readDir(t, sharedCorpus(t)).validator()
	if err != nil {
		t.Fatal(err)
	}
	r := fuzzRand(3)
	for i := range 200 {
		var pair struct{ Declared, Parent json.RawMessage }
		if err := json.Unmarshal(newFuzzMaterial(&Corpus{}).narrowInput(r), &pair); err != nil {
			t.Fatal(err)
		}
		for _, m := range []json.RawMessage{pair.Declared, pair.Parent} {
			val, err := canon.Parse(m, canon.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ok, errs, err := v.Validate("agent-lease-manifest", val); err != nil || !ok {
				t.Fatalf("pair %d: %s breaks the 1.2 schema: %v %v", i, m, errs, err)
			}
		}
	}
}

// TestTampering: a tampering makes one change, and a signature vector
// whose tampering does not apply to its lease is refused, naming it.
func TestTampering(t *testing.T) {
	lease, err := canon.Parse([]byte(`{"a":"x","n":10,"o":{"b":1,"c":2},"signature":"ab"}`), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		t    Tampering
		want string
	}{
		{Tampering{At: "/signature", Upper: true}, `{"a":"x","n":10,"o":{"b":1,"c":2},"signature":"AB"}`},
		{Tampering{At: "/signature", Append: ptr("0")}, `{"a":"x","n":10,"o":{"b":1,"c":2},"signature":"ab0"}`},
		{Tampering{At: "/n", Set: json.RawMessage(`1e1`)}, `{"a":"x","n":1e1,"o":{"b":1,"c":2},"signature":"ab"}`},
		{Tampering{At: "/o/b", Remove: true}, `{"a":"x","n":10,"o":{"c":2},"signature":"ab"}`},
		{Tampering{At: "/a", Remove: true}, `{"n":10,"o":{"b":1,"c":2},"signature":"ab"}`},
		{Tampering{At: "/added", Set: json.RawMessage(`"v"`)}, `{"a":"x","n":10,"o":{"b":1,"c":2},"signature":"ab","added":"v"}`},
		{Tampering{At: "/missing", Remove: true}, ""},
		{Tampering{At: "/n", Upper: true}, ""},
		{Tampering{At: "/a", Upper: true, Remove: true}, ""},
		{Tampering{At: "", Set: json.RawMessage(`{}`)}, ""},
	} {
		got, ok := tt.t.apply(lease)
		if ok != (tt.want != "") || ok && got.String() != tt.want {
			t.Errorf("%+v: %s, %v; want %s", tt.t, got.String(), ok, tt.want)
		}
	}

	files := map[string][]byte{
		"conformance/test-key.txt":  []byte("f26727a6f3ac3817c4ea31fd126ed165a8e5e3cda28cdfe6900c26ea54a98df3\n"),
		"conformance/lease.json":    []byte(`{"signature":"ab"}`),
		"conformance/declared.json": []byte(`{}`),
		"conformance/signature-vectors.json": []byte(`{"key":"conformance/test-key.txt","vectors":[{"name":"v","lease":"conformance/lease.json",` +
			`"declared":"conformance/declared.json","tampered":[{"why":"w","at":"/nothing","remove":true,"verifies":false}]}]}`),
		"schemas/agent-lease.schema.json": []byte(`{}`),
	}
	fsys, err := corpus.FoundFS(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Definition.Load(check.LoadOptions{FS: fsys})
	if err == nil || !strings.Contains(err.Error(), "vector v: tampered 1") {
		t.Errorf("err = %v, want one naming vector v's tampering 1", err)
	}
}
