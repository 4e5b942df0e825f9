package ecmaregexp

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

// corpusPattern is a pattern a schema of a corpus holds, with strings to
// match it against.
type corpusPattern struct {
	pattern string
	where   string // a file that holds it
	inputs  []string
}

// embeddedCorpus is the CDC corpus built into referee.
const embeddedCorpus = "../../suites/cdc/corpus"

// corpusPatterns gathers the patterns (pattern and patternProperties) of
// the schemas of every CDC corpus: the embedded one, and those under
// $REFEREE_SHARED/corpora/cdc when it is set. Each gets the strings of its
// corpus's fixtures and conformance files (each also with a newline added
// and with its last code point taken off), and generated strings, as
// inputs. With shared set, it fails when no shared corpus is found.
func corpusPatterns(t testing.TB) []corpusPattern {
	t.Helper()
	roots := sharedtest.CDCCorpora(t, embeddedCorpus)
	byPattern := map[string]*corpusPattern{}
	for _, root := range roots {
		var strs []string
		patterns := map[string]bool{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v, err := canon.Parse(raw, canon.ReadOptions{Duplicates: canon.LastWins})
			if err != nil {
				return nil // not every .json of a corpus need parse; the corpus tests hold them to that
			}
			if strings.HasSuffix(p, ".schema.json") {
				for _, pat := range schemaPatterns(v) {
					if byPattern[pat] == nil {
						byPattern[pat] = &corpusPattern{pattern: pat, where: p}
					}
					patterns[pat] = true
				}
				return nil
			}
			for _, s := range appendStrings(nil, v) {
				// and two near misses: a final newline, one code point fewer
				last := 0 // where the last code point starts (a lone surrogate is one, of 3 bytes)
				for i := 0; i < len(s); {
					last = i
					_, size := canon.DecodeRune(s[i:])
					i += size
				}
				strs = append(strs, s, s+"\n", s[:last])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(strs)
		strs = slices.Compact(strs)
		for pat := range patterns {
			byPattern[pat].inputs = append(byPattern[pat].inputs, strs...)
		}
	}
	var out []corpusPattern
	for _, cp := range byPattern {
		slices.Sort(cp.inputs)
		cp.inputs = append(slices.Compact(cp.inputs), generated(cp.pattern, 300)...)
		out = append(out, *cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pattern < out[j].pattern })
	return out
}

// schemaPatterns returns the values of pattern and the names in
// patternProperties, anywhere in v.
func schemaPatterns(v canon.Value) []string {
	var out []string
	for _, m := range v.Members {
		switch {
		case m.Key == "pattern" && m.Value.Kind == canon.String:
			out = append(out, m.Value.Str)
		case m.Key == "patternProperties" && m.Value.Kind == canon.Object:
			for _, pp := range m.Value.Members {
				out = append(out, pp.Key)
			}
		}
		out = append(out, schemaPatterns(m.Value)...)
	}
	for _, e := range v.Elems {
		out = append(out, schemaPatterns(e)...)
	}
	return out
}

// appendStrings appends every string and member name in v.
func appendStrings(out []string, v canon.Value) []string {
	if v.Kind == canon.String {
		out = append(out, v.Str)
	}
	for _, m := range v.Members {
		out = appendStrings(append(out, m.Key), m.Value)
	}
	for _, e := range v.Elems {
		out = appendStrings(out, e)
	}
	return out
}

// generated returns n strings made of the pattern's own characters and
// some that patterns treat specially: line terminators, non-ASCII letters
// and digits, an astral character, a lone surrogate. The same pattern
// always gets the same strings.
func generated(pattern string, n int) []string {
	alphabet := []string{"a", "Z", "0", "9", "-", "_", ".", "/", ":", " ", "\n", "\r", "\u2028", "é", "٣", "😀", loneD83D}
	for _, r := range pattern {
		alphabet = append(alphabet, string(r))
	}
	seed := uint64(len(pattern))
	for _, b := range []byte(pattern) {
		seed = seed*31 + uint64(b)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		out[i] = b.String()
	}
	return out
}

// TestLegitimateCasesStayFarBelowTheBudget: no pattern of the CDC corpora
// and, when JSON_SCHEMA_TEST_SUITE names a checkout, of the official
// draft-07 suite comes within a hundredth of StepLimit on their strings.
func TestLegitimateCasesStayFarBelowTheBudget(t *testing.T) {
	cases := corpusPatterns(t)
	if dir := os.Getenv("JSON_SCHEMA_TEST_SUITE"); dir != "" {
		cases = append(cases, suitePatterns(t, filepath.Join(dir, "tests", "draft7"))...)
	} else {
		t.Log("JSON_SCHEMA_TEST_SUITE not set: the CDC corpora only; set it to a checkout of github.com/json-schema-org/JSON-Schema-Test-Suite for its draft-07 patterns too")
	}
	most, where := 0, ""
	for _, cp := range cases {
		re, err := Compile(cp.pattern)
		if err != nil {
			t.Errorf("%s: %v", cp.where, err)
			continue
		}
		for _, s := range cp.inputs {
			_, steps, err := re.match(codePoints(s), StepLimit)
			if err != nil {
				t.Fatalf("%q on %q: %v", cp.pattern, s, err)
			}
			if steps > most {
				most, where = steps, fmt.Sprintf("%q on %.60q", cp.pattern, s)
			}
		}
	}
	t.Logf("%d patterns; the most steps a match took: %d (%s)", len(cases), most, where)
	if most > StepLimit/100 {
		t.Errorf("%s took %d steps, within a hundredth of the budget %d", where, most, StepLimit)
	}
}

// suitePatterns gathers the patterns of the official suite's draft-07
// schemas under dir, with the strings of their tests' data.
func suitePatterns(t testing.TB, dir string) []corpusPattern {
	var out []corpusPattern
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		groups, err := canon.Parse(raw, canon.ReadOptions{Duplicates: canon.LastWins})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, g := range groups.Elems {
			schema, _ := g.Lookup("schema")
			tests, _ := g.Lookup("tests")
			var strs []string
			for _, tc := range tests.Elems {
				data, _ := tc.Lookup("data")
				strs = appendStrings(strs, data)
			}
			for _, pat := range schemaPatterns(schema) {
				out = append(out, corpusPattern{pattern: pat, where: p, inputs: strs})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no patterns in %s", dir)
	}
	return out
}
