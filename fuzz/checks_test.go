package fuzz

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/suites"
)

// TestChecksTogetherAsAlone: the vectors of generated inputs read back as
// one corpus (checksOf, what the engine does) make, for each vector, the
// checks it makes read back alone (FuzzSpec.Checks): the same IDs, levels
// and clauses, with the same verdicts on the reference and on a broken
// mode. Two inputs alike in a batch, and a name no check carries, are
// taken too.
func TestChecksTogetherAsAlone(t *testing.T) {
	t.Parallel()
	for _, def := range suites.All() {
		if def.Fuzz == nil || def.Live {
			continue // a live suite's sessions are judged one by one (liveVector)
		}
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			loaded, err := def.Load(check.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			spec := def.Fuzz
			if loaded.Fuzz != nil {
				spec = loaded.Fuzz
			}
			clients := map[string]*adapter.Client{}
			modes := []string{""}
			if ms := def.ModeList(); len(ms) > 0 {
				modes = append(modes, ms[len(ms)/2].Name)
			}
			for _, m := range modes {
				h, err := loaded.Reference(m)
				if err != nil {
					t.Fatal(err)
				}
				c, err := adapter.Dial(t.Context(), adapter.InProcess(h), def.Name, adapter.Options{HelloArgs: loaded.Hello})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				clients[m] = c
			}
			for ti := range spec.Targets {
				tg := &spec.Targets[ti]
				if tg.Name == "frame-size" {
					continue // megabytes an input; its vectors are as small as the others
				}
				var names []string
				var entries []any
				for i := range 48 {
					r := rand.New(rand.NewPCG(1, uint64(i)))
					in := tg.Generate(r)
					if tg.Input != check.FuzzValue && r.IntN(4) == 0 {
						in = Mutate(r, in, tg.Input == check.FuzzText)
					}
					name := vectorName(tg, in)
					if e, ok := tg.Vector(name, in); ok {
						names, entries = append(names, name), append(entries, e)
					}
				}
				if len(entries) < 2 {
					t.Fatalf("%s: %d vectors of 48 inputs", tg.Name, len(entries))
				}
				names, entries = distinct(names, entries)
				if _, ok := together(def, spec, names, entries); !ok {
					t.Errorf("%s: %d vectors could not be read together", tg.Name, len(entries))
				}
				// A name twice cannot be read together: halves, then alone.
				dup := checksOf(def, spec, []string{names[0], names[1], names[0]}, []any{entries[0], entries[1], entries[0]})
				if got, want := describe(t, clients, dup[2]), describe(t, clients, dup[0]); got != want || len(dup[2]) == 0 {
					t.Errorf("%s: a vector twice: %s\nand\n%s", tg.Name, got, want)
				}
				together := checksOf(def, spec, names, entries)
				for i, e := range entries {
					alone, err := check.FuzzChecks(def, spec, e)
					if err != nil {
						alone = nil
					}
					if got, want := describe(t, clients, together[i]), describe(t, clients, alone); got != want {
						t.Errorf("%s: vector %s read with others:\n%s\nread alone:\n%s", tg.Name, names[i], got, want)
					}
				}
			}
		})
	}
}

// describe renders checks and their verdicts on each client.
func describe(t *testing.T, clients map[string]*adapter.Client, cs []check.Check) string {
	s := ""
	for _, c := range cs {
		s += fmt.Sprintf("%s %s %q %v\n", c.ID, c.LevelOf(), c.Clause, c.Needs)
	}
	for _, m := range slices.Sorted(maps.Keys(clients)) {
		run := check.Execute(t.Context(), clients[m], cs, check.Options{})
		for _, r := range run.Results {
			s += fmt.Sprintf("  %s: %s %s %s\n", m, r.ID, r.Status, r.Reason)
		}
	}
	return s
}

// distinct keeps the first vector of each name.
func distinct(names []string, entries []any) ([]string, []any) {
	seen := map[string]bool{}
	var n []string
	var e []any
	for i := range names {
		if !seen[names[i]] {
			seen[names[i]] = true
			n, e = append(n, names[i]), append(e, entries[i])
		}
	}
	return n, e
}
