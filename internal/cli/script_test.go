package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/refereehq/referee/adapter/adaptertest"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/internal/sharedtest"
)

// sameChecksCmd compares two JSON reports check by check: the same IDs,
// statuses, levels and outcomes, in the same order.
func sameChecksCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samechecks A.json B.json")
	}
	type chk struct{ ID, Status, Level, Outcome string }
	read := func(name string) []chk {
		var r struct{ Checks []chk }
		if err := json.Unmarshal([]byte(ts.ReadFile(name)), &r); err != nil {
			ts.Fatalf("%s: %v", name, err)
		}
		return r.Checks
	}
	a, b := read(args[0]), read(args[1])
	if len(a) != len(b) {
		ts.Fatalf("%s has %d checks, %s %d", args[0], len(a), args[1], len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			ts.Fatalf("check %d: %s has %+v, %s %+v", i, args[0], a[i], args[1], b[i])
		}
	}
}

func TestMain(m *testing.M) {
	adaptertest.MaybeRunFake()
	// Started by a suite as referee itself (child.SelfPath: cgp's built-in
	// provider, cgp-host's relays), the test binary is referee; running the
	// tests again there would start more of them, without end.
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") && strings.HasSuffix(strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"), ".test") {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	child.StandIn = true
	testscript.Main(m, map[string]func(){
		"referee":         func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"hostile-adapter": hostileAdapter,
		"interrupter":     interrupter,
	})
}

// TestScripts runs testdata/script/*.txtar. Besides testscript's builtins they
// have `exits CODE ARGS...`, which runs referee ARGS as a child process in the
// script's directory and requires exit status CODE; stdout and stderr are
// then checked as for exec. go test -update rewrites the cmp targets.
func TestScripts(t *testing.T) {
	t.Parallel()
	// A relative REFEREE_SHARED is read from the module root, as every
	// other test reads it; the scripts run in directories of their own.
	shared, _ := sharedtest.Lookup()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       golden.Update(),
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
			case "fifo":
				return canMkfifo, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":      exitsCmd,
			"mkfifo":     mkfifoCmd,
			"samechecks": sameChecksCmd,
		},
	})
}

// exitsLimit bounds one referee run of a script, far beyond what any takes
// under -race on two busy cores.
const exitsLimit = 3 * time.Minute

func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: exits CODE [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	// No referee run may hang: one still running after exitsLimit fails the
	// script rather than the whole test binary.
	ctx, cancel := context.WithTimeout(context.Background(), exitsLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "referee", args[1:]...)
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
	if ctx.Err() != nil {
		ts.Fatalf("referee %s: still running after %v", strings.Join(args[1:], " "), exitsLimit)
	}
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

// forge is what the hostile adapter puts in every text it controls: a line
// break, a carriage return and ANSI escapes that would forge or hide a line
// of referee's output on a terminal.
const forge = "\nPASS  jcs/fake/check\r\x1b[2KCONFORMANT"

// hostileAdapter is a referee-adapter/1 adapter whose hello name and
// version, replies and stderr try to forge referee's lines; with
// HOSTILE_ADAPTER=refuse it refuses the hello with such a message.
func hostileAdapter() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	text := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	fmt.Fprint(os.Stderr, "log\rPASS  jcs/forged/stderr\n\x1b[1A\x1b[2KCONFORMANT\n")
	for in.Scan() {
		var req struct {
			ID int64  `json:"id"`
			Op string `json:"op"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		switch {
		case req.Op == "hello" && os.Getenv("HOSTILE_ADAPTER") == "refuse":
			fmt.Printf(`{"id":%d,"err":{"code":"refused","message":%s}}`+"\n", req.ID, text("no"+forge))
			os.Exit(0)
		case req.Op == "hello":
			fmt.Printf(`{"id":%d,"ok":{"name":%s,"version":%s,"ops":["canonicalJson"]}}`+"\n", req.ID, text("evil"+forge), text("1.0"+forge))
		default:
			fmt.Printf(`{"id":%d,"ok":%s}`+"\n", req.ID, text("wrong"+forge))
		}
	}
	os.Exit(0)
}
