package check

import (
	"slices"
	"testing"
)

func TestChildEnv(t *testing.T) {
	t.Setenv("REFEREE_CHILDENV_TEST", "inherited")
	t.Setenv("CDC_CORPUS", "/from-the-shell")
	suite := &Loaded{Env: []string{"CDC_CORPUS=/c"}}
	// Referee's own environment, with the suite's added after it: a child
	// that needs HOME or PATH still has them, and the suite's value wins
	// over one referee inherited.
	got := suite.ChildEnv(nil, nil)
	if !slices.Contains(got, "REFEREE_CHILDENV_TEST=inherited") || got[len(got)-1] != "CDC_CORPUS=/c" {
		t.Errorf("ChildEnv(nil) = %q, want referee's environment then CDC_CORPUS", got)
	}
	// A given environment (--clean-env, --env) gets the suite's added, and
	// the caller's slice is left alone.
	given := make([]string, 1, 4)
	given[0] = "PATH=/bin"
	got = suite.ChildEnv(given, nil)
	if !slices.Equal(got, []string{"PATH=/bin", "CDC_CORPUS=/c"}) || len(given[:cap(given)][1]) != 0 {
		t.Errorf("ChildEnv(given) = %q (given's spare capacity %q)", got, given[:cap(given)])
	}
	// A variable the user set (--env) wins: the suite's is not added, with
	// or without --clean-env, and other --env variables do not stop it.
	for _, tt := range []struct {
		name      string
		env, user []string
		want      []string
	}{
		{"--env CDC_CORPUS", []string{"PATH=/bin", "CDC_CORPUS=/mine"}, []string{"CDC_CORPUS=/mine"}, []string{"PATH=/bin", "CDC_CORPUS=/mine"}},
		{"--env CDC_CORPUS=", []string{"PATH=/bin", "CDC_CORPUS="}, []string{"CDC_CORPUS="}, []string{"PATH=/bin", "CDC_CORPUS="}},
		{"another --env", []string{"PATH=/bin", "X=1"}, []string{"X=1"}, []string{"PATH=/bin", "X=1", "CDC_CORPUS=/c"}},
		{"a prefix of the name", []string{"CDC=1"}, []string{"CDC=1"}, []string{"CDC=1", "CDC_CORPUS=/c"}},
	} {
		if got := suite.ChildEnv(tt.env, tt.user); !slices.Equal(got, tt.want) {
			t.Errorf("%s: ChildEnv = %q, want %q", tt.name, got, tt.want)
		}
	}
	// A suite that adds nothing leaves the environment as given: nil still
	// inherits.
	if got := (&Loaded{}).ChildEnv(nil, nil); got != nil {
		t.Errorf("a suite without Env: ChildEnv(nil) = %q, want nil", got)
	}
}
