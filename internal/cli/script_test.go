package cli

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/refereehq/referee/adapter/adaptertest"
)

var update = os.Getenv("REFEREE_UPDATE") != ""

func TestMain(m *testing.M) {
	adaptertest.MaybeRunFake()
	testscript.Main(m, map[string]func(){
		"referee": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar. Besides testscript's builtins they
// have `exits CODE ARGS...`, which runs referee ARGS as a child process in the
// script's directory and requires exit status CODE; stdout and stderr are
// then checked as for exec. REFEREE_UPDATE=1 rewrites the cmp targets.
func TestScripts(t *testing.T) {
	shared := os.Getenv("REFEREE_SHARED")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("REFEREE_SHARED", shared)
			e.Setenv("FAKE", os.Args[0])
			if root, err := os.Getwd(); err == nil {
				e.Setenv("REPO", strings.TrimSuffix(root, "/internal/cli"))
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "shared":
				return shared != "", nil
			case "node", "python3":
				_, err := exec.LookPath(cond)
				return err == nil, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exitsCmd,
		},
	})
}

func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: exits CODE [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	cmd := exec.Command("referee", args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	var env []string
	for _, k := range []string{"PATH", "HOME", "REFEREE_SHARED", "FAKE", "REPO", "NO_COLOR"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
	err = cmd.Run()
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("referee %s: exit status %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}
