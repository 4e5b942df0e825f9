package cli

import (
	"io"
	"slices"
	"testing"

	"github.com/refereehq/referee/check"
)

// TestUserEnvReachesTheSpec: the --env variables reach the engine as the
// user's (check.Spec.UserEnv), so that they win over a suite's own
// (Loaded.ChildEnv), for run and for fuzz, one implementation or several.
func TestUserEnvReachesTheSpec(t *testing.T) {
	e := &env{stdout: io.Discard, stderr: io.Discard}
	vars := []string{"CDC_CORPUS=/mine"}
	check1 := func(what string, s check.Spec) {
		t.Helper()
		if !slices.Equal(s.UserEnv, vars) || !slices.Contains(s.Env, vars[0]) {
			t.Errorf("%s: env ends %q, user env %q; want %q in both", what, s.Env[max(0, len(s.Env)-2):], s.UserEnv, vars)
		}
	}
	check1("run", (&runOptions{argv: []string{"adapter"}, env: vars}).spec(e, &check.Definition{}))
	check1("run --clean-env", (&runOptions{argv: []string{"adapter"}, env: vars, cleanEnv: true}).spec(e, &check.Definition{}))
	for _, o := range []*fuzzOptions{{argv: []string{"adapter"}, env: vars}, {impls: []string{"a=adapter", "b=adapter"}, env: vars}} {
		impls, err := o.implementations(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range impls {
			check1("fuzz "+im.Name, im.Spec)
		}
	}
}
