// Package adaptertest provides misbehaving and well-behaved fake adapters,
// run as real child processes, for testing code that drives adapters.
//
// The fake is the test binary itself: a package's TestMain calls
// MaybeRunFake first, and Process returns a ProcessConfig that starts the
// test binary in fake mode.
package adaptertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
)

const modeVar = "REFEREE_FAKE_ADAPTER"

// OpsVar names extra ops (comma-separated) the fake offers and treats as
// echo, so a suite's real ops can meet each misbehaviour.
const OpsVar = "REFEREE_FAKE_ADAPTER_OPS"

// The fake's modes. Each answers hello correctly (unless its name says
// otherwise) with ops "echo", "fail" and "slow", then behaves as named when
// it receives "echo".
const (
	Good            = "good"              // echo returns its args; fail answers err; slow sleeps 200ms
	Hang            = "hang"              // never answers echo
	CrashMidReply   = "crash-mid-reply"   // writes half a reply to echo and exits 3
	Garbage         = "garbage"           // answers echo with a line that is not JSON
	Noise           = "noise"             // writes a log line to stdout before the echo reply
	HugeLine        = "huge-line"         // answers echo with a 17 MiB line
	WrongID         = "wrong-id"          // answers echo with another id
	Neither         = "neither"           // answers echo with neither ok nor err
	ExitBeforeHello = "exit-before-hello" // writes "boom" to stderr and exits 1 at once
	Banner          = "banner"            // prints a banner line before anything else
	CrashOnce       = "crash-once"        // the first process exits on echo; later ones behave (needs the state file)
	Stubborn        = "stubborn"          // ignores stdin closing and keeps running
	Concurrent      = "concurrent"        // concurrency 4; echo replies out of order
	ExitAfterReply  = "exit-after-reply"  // answers echo, then exits 0 at once
	NewHello        = "new-hello"         // like crash-once, but says another name after the restart (needs the state file)
	NoRead          = "no-read"           // answers hello, then never reads stdin again
	ExitEvery5      = "exit-every-5"      // answers echo, and exits 0 after every fifth echo reply
	HangOnce        = "hang-once"         // the first process never answers echo; later ones behave (needs the state file)
	BigGarbage      = "big-garbage"       // answers echo with a 1 MiB line that is not JSON
	ExitOnEcho      = "exit-on-echo"      // exits 0 on echo, without a reply
	DuplicateOK     = "duplicate-ok"      // answers echo with a line that starts as a reply but has ok twice
	StrayAfterReply = "stray-after-reply" // answers echo, then, in the same write, a reply to no request
)

// MaybeRunFake runs the fake adapter and exits if this process was started
// as one; call it first in TestMain.
func MaybeRunFake() {
	mode := os.Getenv(modeVar)
	if mode == "" {
		return
	}
	var extra []string
	if ops := os.Getenv(OpsVar); ops != "" {
		extra = strings.Split(ops, ",")
	}
	if mode == Jitter {
		os.Exit(runJitter())
	}
	os.Exit(runFake(mode, os.Getenv(modeVar+"_STATE"), extra))
}

// Process returns a config that starts a fake adapter in mode, with a state
// file of its own (REFEREE_FAKE_ADAPTER_STATE: the "once" modes keep there
// that the first process has been).
func Process(tb testing.TB, mode string) adapter.ProcessConfig {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	// GORACE: a race-enabled fake would otherwise linger a second after it exits.
	env := append(os.Environ(), modeVar+"="+mode, modeVar+"_STATE="+tb.TempDir()+"/state", "GORACE=atexit_sleep_ms=0")
	return adapter.ProcessConfig{Argv: []string{exe, "-test.run=^$"}, Env: env, Grace: 2 * time.Second}
}

type request struct {
	ID   int64           `json:"id"`
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

func runFake(mode, state string, extra []string) int {
	ops, _ := json.Marshal(append([]string{"echo", "fail", "slow"}, extra...))
	name := "fake-" + mode // the same after a crash-once restart
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	switch mode {
	case ExitBeforeHello:
		fmt.Fprintln(os.Stderr, "boom")
		return 1
	case Banner:
		say("fake adapter 1.0 starting up")
	case CrashOnce, NewHello, HangOnce:
		if _, err := os.Stat(state); err != nil {
			os.WriteFile(state, []byte("crashed"), 0o644)
			mode = map[string]string{CrashOnce: CrashOnce, NewHello: CrashOnce, HangOnce: Hang}[mode]
		} else {
			if mode == NewHello {
				name += "-reborn"
			}
			mode = Good
		}
	}
	concurrency := 1
	if mode == Concurrent {
		concurrency = 4
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 32<<20)
	var pending []request
	echoed := 0
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "fake: bad request %q\n", in.Text())
			continue
		}
		if slices.Contains(extra, r.Op) {
			r.Op = "echo"
		}
		fmt.Fprintf(os.Stderr, "fake: got %s\n", r.Op)
		if mode == NoRead && r.Op != "hello" {
			time.Sleep(time.Hour)
		}
		switch {
		case r.Op == "hello":
			say(`{"id":%d,"ok":{"name":%q,"version":"0.0.1","ops":%s,"concurrency":%d}}`, r.ID, name, ops, concurrency)
			if mode == NoRead {
				time.Sleep(time.Hour)
			}
		case r.Op == "fail":
			say(`{"id":%d,"err":{"code":"nope","message":"fails on purpose","extra":[1,2]}}`, r.ID)
		case r.Op == "slow":
			time.Sleep(200 * time.Millisecond)
			say(`{"id":%d,"ok":"slept"}`, r.ID)
		case mode == Good || mode == Stubborn:
			say(`{"id":%d,"ok":%s}`, r.ID, r.Args)
		case mode == Hang:
			// no reply
		case mode == CrashMidReply, mode == CrashOnce:
			fmt.Fprintf(out, `{"id":%d,"ok`, r.ID)
			out.Flush()
			fmt.Fprintln(os.Stderr, "fake: crashing on purpose")
			return 3
		case mode == ExitAfterReply:
			say(`{"id":%d,"ok":%s}`, r.ID, r.Args)
			return 0
		case mode == ExitEvery5:
			say(`{"id":%d,"ok":%s}`, r.ID, r.Args)
			if echoed++; echoed%5 == 0 {
				return 0
			}
		case mode == DuplicateOK:
			say(`{"id":%d,"ok":1,"ok":2}`, r.ID)
		case mode == StrayAfterReply:
			fmt.Fprintf(out, "{\"id\":%d,\"ok\":%s}\n{\"id\":999999,\"ok\":1}\n", r.ID, r.Args)
			out.Flush()
		case mode == ExitOnEcho:
			return 0
		case mode == BigGarbage:
			say("%s", strings.Repeat("not json ", 1<<20/9))
		case mode == Garbage:
			say("this is not json")
		case mode == Noise:
			say("debug: handling echo")
			say(`{"id":%d,"ok":%s}`, r.ID, r.Args)
		case mode == HugeLine:
			say(`{"id":%d,"ok":"%s"}`, r.ID, strings.Repeat("x", 17<<20))
		case mode == WrongID:
			say(`{"id":%d,"ok":%s}`, r.ID+100, r.Args)
		case mode == Neither:
			say(`{"id":%d}`, r.ID)
		case mode == Concurrent:
			pending = append(pending, r)
			if len(pending) == 4 { // answer the batch in reverse order
				for i := len(pending) - 1; i >= 0; i-- {
					say(`{"id":%d,"ok":%s}`, pending[i].ID, pending[i].Args)
				}
				pending = nil
			}
		default:
			say(`{"id":%d,"err":{"code":"unknown_op"}}`, r.ID)
		}
	}
	if mode == Stubborn {
		time.Sleep(time.Hour)
	}
	return 0
}
