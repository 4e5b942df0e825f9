package check

import (
	"slices"
	"testing"
)

func TestChildEnv(t *testing.T) {
	t.Setenv("REFEREE_CHILDENV_TEST", "inherited")
	suite := &Loaded{Env: []string{"CDC_CORPUS=/c"}}
	// Referee's own environment, with the suite's added: a child that
	// needs HOME or PATH still has them.
	got := suite.ChildEnv(nil)
	if !slices.Contains(got, "REFEREE_CHILDENV_TEST=inherited") || got[len(got)-1] != "CDC_CORPUS=/c" {
		t.Errorf("ChildEnv(nil) = %q, want referee's environment then CDC_CORPUS", got)
	}
	// A given environment (--clean-env, --env) gets the suite's added, and
	// the caller's slice is left alone.
	given := make([]string, 1, 4)
	given[0] = "PATH=/bin"
	got = suite.ChildEnv(given)
	if !slices.Equal(got, []string{"PATH=/bin", "CDC_CORPUS=/c"}) || len(given[:cap(given)][1]) != 0 {
		t.Errorf("ChildEnv(given) = %q (given's spare capacity %q)", got, given[:cap(given)])
	}
	// A suite that adds nothing leaves the environment as given: nil still
	// inherits.
	if got := (&Loaded{}).ChildEnv(nil); got != nil {
		t.Errorf("a suite without Env: ChildEnv(nil) = %q, want nil", got)
	}
}
