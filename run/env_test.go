package run_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/run"
)

// childVar makes the test binary an adapter (envAdapter) instead of the
// tests.
const childVar = "REFEREE_RUN_TEST_CHILD"

// suiteVar is the variable the env suite sets for its adapter, as cdc sets
// CDC_CORPUS.
const suiteVar = "REFEREE_RUN_TEST_CORPUS"

func TestMain(m *testing.M) {
	if os.Getenv(childVar) == "env" {
		if err := adapter.Serve(context.Background(), envAdapter{}, os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// envAdapter answers getenv {"name": N} with the value of N in its own
// environment.
type envAdapter struct{}

func (envAdapter) Hello() adapter.Hello {
	return adapter.Hello{Name: "env", Version: "1.0.0", Ops: []string{"getenv"}}
}

func (envAdapter) Handle(_ context.Context, _ string, args []byte) (json.RawMessage, *adapter.Error) {
	var a struct{ Name string }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	v, _ := json.Marshal(os.Getenv(a.Name))
	return v, nil
}

// envSuite sets suiteVar=/suite for its adapter and has one check, which
// fails with what the adapter saw of it as its actual value.
var envSuite = check.Definition{
	Name:     "env",
	Summary:  "what the adapter's environment holds",
	Embedded: "one check",
	Load: func(check.LoadOptions) (*check.Loaded, error) {
		suite := &check.Suite{Name: "env", Version: "1.0.0", Corpus: "embedded:env", CorpusDigest: "sha256:00", Checks: []check.Check{{
			ID: "env/corpus", Level: check.Must, Needs: []string{"getenv"},
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				r, err := s.Call(ctx, "getenv", map[string]string{"name": suiteVar})
				if err != nil {
					return check.Broke(err)
				}
				if r.Err != nil || r.OK == nil {
					return check.Failed("getenv failed", "a value", "none")
				}
				return check.Failed("seen", "", r.OK.Str)
			},
		}}}
		return &check.Loaded{Suite: suite, Env: []string{suiteVar + "=/suite"}}, nil
	},
}

// TestUserEnvWins: a variable the user sets with --env wins over the
// suite's own value of it, with or without --clean-env; the suite's value
// wins over referee's inherited environment.
func TestUserEnvWins(t *testing.T) {
	t.Setenv(suiteVar, "/inherited")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	serve := childVar + "=env"
	for _, tt := range []struct {
		name      string
		env, user []string
		want      string
	}{
		{"--env of another variable", append(os.Environ(), serve), []string{serve}, "/suite"},
		{"--env of the suite's variable", append(os.Environ(), serve, suiteVar+"=/mine"), []string{serve, suiteVar + "=/mine"}, "/mine"},
		{"--clean-env --env of the suite's variable", []string{"PATH=" + os.Getenv("PATH"), serve, suiteVar + "=/mine"}, []string{serve, suiteVar + "=/mine"}, "/mine"},
		{"--clean-env", []string{"PATH=" + os.Getenv("PATH"), serve}, []string{serve}, "/suite"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := run.Prepare(&envSuite, check.Spec{Argv: []string{exe}, Env: tt.env, UserEnv: tt.user}, run.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Execute(context.Background())
			if r := res.Execution.Results[0]; r.Reason != "seen" || r.Actual != tt.want {
				t.Errorf("the adapter saw %s=%q (%s: %s), want %q", suiteVar, r.Actual, r.Status, r.Reason, tt.want)
			}
		})
	}
}
