package fuzz_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites"
	"github.com/refereehq/referee/suites/crosslink"
)

// TestEmptyCorpus: a run that finds nothing still writes, for every
// fuzzable suite, the suite's files with no vector (each JSON, every list
// a list) and a manifest that pins them and says it found nothing; a later
// --out into it is accepted; and a replay of it is refused as holding no
// check, with a message that says so.
func TestEmptyCorpus(t *testing.T) {
	t.Parallel()
	for _, def := range suites.All() {
		if def.Fuzz == nil {
			continue
		}
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "found")
			o := fuzz.Options{Seed: 1, Count: 20, Out: out, Tool: tool}
			s, err := fuzz.Campaign(t.Context(), def, []fuzz.Impl{{Spec: check.Spec{}}}, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) != 0 {
				t.Fatalf("the reference diverged from itself: %d findings", len(s.Findings))
			}
			if len(s.Written) == 0 || s.Written[len(s.Written)-1] != corpus.ManifestName {
				t.Fatalf("wrote %q: want the suite's files and the manifest, last", s.Written)
			}
			c, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize)
			if err != nil {
				t.Fatalf("the empty corpus does not verify: %v", err)
			}
			if !c.Manifest.FuzzFoundNothing() {
				t.Error("its manifest does not say the run found nothing")
			}
			if got := append(c.Files(), corpus.ManifestName); !slices.Equal(got, s.Written) {
				t.Errorf("the directory holds %q, the summary says %q", got, s.Written)
			}
			for _, f := range c.Files() {
				b, err := c.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				v, err := canon.Parse(b, canon.ReadOptions{})
				if err != nil {
					t.Errorf("%s is not JSON: %v", f, err)
					continue
				}
				v.Walk(func(x *canon.Value) bool {
					if x.Kind == canon.Null {
						t.Errorf("%s holds a null: a list of no vector is written as []:\n%s", f, b)
					}
					return true
				})
			}
			var text bytes.Buffer
			if err := fuzz.WriteText(&text, s, out); err != nil {
				t.Fatal(err)
			}
			want := "\nno divergence\nwrote an empty corpus to " + out + " (" + strings.Join(s.Written, ", ") + "): no vector to replay\n"
			if !strings.Contains(text.String(), want) {
				t.Errorf("the summary lacks %q:\n%s", want, text.String())
			}

			// A replay is refused, before the suite reads it.
			// (A live suite replays its sessions with --sessions DIR.)
			ro, says := run.Options{Corpus: out, Tool: tool}, "corpus "+out+" holds no vector: referee fuzz wrote it and found nothing"
			if def.Live {
				ro, says = run.Options{Flags: check.FlagValues{"sessions": out}, Tool: tool}, "corpus "+out+" holds no session: referee fuzz wrote it and found nothing"
			}
			_, err = run.Prepare(def, check.Spec{}, ro)
			var ue *check.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), says) {
				t.Errorf("replaying the empty corpus: %v; want a usage error saying it holds no vector", err)
			}

			// A later --out into it is accepted, and writes it again.
			if _, err := fuzz.Campaign(t.Context(), def, []fuzz.Impl{{Spec: check.Spec{}}}, o); err != nil {
				t.Fatalf("a second run into the empty corpus: %v", err)
			}
			if _, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize); err != nil {
				t.Errorf("after the second run the corpus does not verify: %v", err)
			}
		})
	}
}

// TestEmptyCorpusReplaces: a run that finds something replaces an empty
// corpus, and one that finds nothing replaces a corpus of findings with an
// empty one: --out holds what the last run found.
func TestEmptyCorpusReplaces(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	honest := []fuzz.Impl{{Spec: check.Spec{}}}
	broken := []fuzz.Impl{{Spec: check.Spec{Mode: "html-escape"}}}
	vectors := func() int {
		c, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize)
		if err != nil {
			t.Fatalf("the corpus does not verify: %v", err)
		}
		for _, m := range c.Manifest.Meta {
			if m.Key == "fuzz" {
				var p fuzz.Provenance
				if err := json.Unmarshal([]byte(m.Value.String()), &p); err != nil {
					t.Fatal(err)
				}
				return len(p.Vectors)
			}
		}
		t.Fatal("no fuzz member in the manifest")
		return 0
	}
	for i, step := range []struct {
		impls []fuzz.Impl
		found bool
	}{{honest, false}, {broken, true}, {honest, false}} {
		o := fuzz.Options{Seed: 3, Count: 300, Out: out, Tool: tool, StopAfter: 2}
		if _, err := fuzz.Campaign(t.Context(), &crosslink.Definition, step.impls, o); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if n := vectors(); (n > 0) != step.found {
			t.Errorf("after run %d the corpus holds %d vectors", i+1, n)
		}
	}
	if entries, err := os.ReadDir(out); err != nil || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".referee-fuzz-") }) {
		t.Errorf("a staging directory is left in --out: %v", entries)
	}
}
