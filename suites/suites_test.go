package suites_test

import (
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
