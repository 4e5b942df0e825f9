package suites_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/suites"
)

// TestEveryCheckHasALevelAndAClause: every check of every suite, as it runs
// with no flag, states how strongly it is required and the text it rests on.
func TestEveryCheckHasALevelAndAClause(t *testing.T) {
	for _, def := range suites.All() {
		t.Run(def.Name, func(t *testing.T) {
			loaded, err := def.Load(check.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(loaded.Suite.Checks) == 0 {
				t.Fatal("no checks")
			}
			for _, c := range loaded.Suite.Checks {
				switch c.LevelOf() {
				case check.Must, check.Should, check.May:
				default:
					t.Errorf("%s: level %q", c.ID, c.Level)
				}
				if c.Clause == "" {
					t.Errorf("%s has no clause", c.ID)
				}
			}
		})
	}
}

// TestReferenceOnly: what referee serve loads (ReferenceOnly) gives every
// suite with a built-in implementation the same implementation a run has:
// it answers hello alike. jcs and cgp-vectors, whose implementations read
// no corpus, read none of the embedded one; a corpus named is still read,
// so one that is not there is still an error.
func TestReferenceOnly(t *testing.T) {
	for _, def := range suites.All() {
		if def.Live {
			continue
		}
		t.Run(def.Name, func(t *testing.T) {
			full, err := def.Load(check.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			only, err := def.Load(check.LoadOptions{ReferenceOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			want, err := full.Reference("")
			if err != nil {
				t.Fatal(err)
			}
			got, err := only.Reference("")
			if err != nil {
				t.Fatal(err)
			}
			if g, w := got.Hello(), want.Hello(); !reflect.DeepEqual(g, w) {
				t.Errorf("hello: %+v, want %+v", g, w)
			}
			if def.Name == "jcs" || def.Name == "cgp-vectors" {
				if only.Suite != nil {
					t.Error("ReferenceOnly read the embedded corpus")
				}
				if _, err := def.Load(check.LoadOptions{ReferenceOnly: true, Corpus: filepath.Join(t.TempDir(), "none")}); err == nil {
					t.Error("ReferenceOnly with a corpus that is not there: no error")
				}
			}
		})
	}
}
