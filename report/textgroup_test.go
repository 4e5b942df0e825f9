package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
)

// TestTextGroupsAndCollapses: checks that ended the same way for the same
// reason are one entry (their IDs listed, or counted with -q), the run is
// summed per group, a repro is the short rerun command, and no line is
// longer than textMaxLine.
func TestTextGroupsAndCollapses(t *testing.T) {
	long := "x/b/" + strings.Repeat("z", 3000)
	run := &check.Execution{Complete: true}
	add := func(id string, st check.Status, lvl check.Level, reason string) {
		run.Results = append(run.Results, check.Result{ID: id, Status: st, Level: lvl, Reason: reason,
			Evidence: check.Evidence{Repro: "printf '%s\\n' '" + strings.Repeat("{}", 6000) + "' | node a.mjs"}})
	}
	add("x/a/1", check.Pass, check.Must, "")
	add("x/a/2", check.NotChecked, check.Must, "adapter offers no bytesOp")
	add("x/a/3", check.Fail, check.Must, "canonical text differs at byte 2")
	add("x/b/1", check.NotChecked, check.Must, "adapter offers no bytesOp")
	add("x/b/2", check.Fail, check.Must, "canonical text differs at byte 2")
	add("x/b/3", check.Fail, check.Should, "canonical text differs at byte 2") // another level: apart
	add("x/c/1", check.Fail, check.Must, "canonical text differs at byte 9")
	add(long, check.NotChecked, check.Must, "adapter offers no bytesOp")
	r := New(Tool{Name: "referee"}, Suite{Name: "x"}, Implementation{Command: []string{"node", "a.mjs"}}, run, false)
	r.Rerun = []string{"referee", "run", "x", "--", "node", "a.mjs"}

	var whole, quiet bytes.Buffer
	if err := WriteText(&whole, r, TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&quiet, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"whole": whole.String(), "-q": quiet.String()} {
		for _, want := range []string{
			"\nNOT CHECKED x/a/2 and 2 more  adapter offers no bytesOp\n",
			"\nFAIL  x/a/3 and 1 more  canonical text differs at byte 2\n",
			"\nWARN  x/b/3  canonical text differs at byte 2\n",
			"\nFAIL  x/c/1  canonical text differs at byte 9\n",
			"\n      repro: referee run x --run x/a/3 -- node a.mjs\n",
			"\nby group (passed of checks):\n",
			"\n  b 0/4, 1 failed, 1 warning, 2 not checked\n",
			"\n  c 0/1, 1 failed\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "NOT CHECKED x/b/1") || strings.Contains(out, "FAIL  x/b/2") {
			t.Errorf("%s: a check with the same status and reason has an entry of its own:\n%s", name, out)
		}
		for i, l := range strings.Split(out, "\n") {
			if len(l) > textMaxLine {
				t.Errorf("%s: line %d is %d bytes, over %d", name, i+1, len(l), textMaxLine)
			}
		}
	}
	if !strings.Contains(whole.String(), "\n      also x/b/1\n      also x/b/zzz") || !strings.Contains(whole.String(), "\n      also x/b/2\n") {
		t.Errorf("whole: the others' IDs are not listed:\n%s", whole.String())
	}
	if strings.Contains(quiet.String(), "also ") {
		t.Errorf("-q lists the others' IDs:\n%s", quiet.String())
	}
	// -q lists only the groups where something did not pass.
	if !strings.Contains(whole.String(), "\n  a 1/3, 1 failed, 1 not checked\n") || !strings.Contains(quiet.String(), "\n  a 1/3,") {
		t.Errorf("group a missing:\n%s\n%s", whole.String(), quiet.String())
	}
}

// TestTextNoGroupsWhenAllPass: a conformant run has no per-group block.
func TestTextNoGroupsWhenAllPass(t *testing.T) {
	run := &check.Execution{Complete: true, Results: []check.Result{{ID: "x/a/1", Status: check.Pass, Level: check.Must}, {ID: "x/b/1", Status: check.Pass, Level: check.Must}}}
	var b bytes.Buffer
	if err := WriteText(&b, New(Tool{Name: "referee"}, Suite{Name: "x"}, Implementation{}, run, false), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "by group") {
		t.Errorf("a run where everything passed has a group block:\n%s", b.String())
	}
}

// TestTextNoGroupsOfOne: a suite whose every group is one check (cgp,
// cgp-host) has no per-group block: it would repeat the check lines.
func TestTextNoGroupsOfOne(t *testing.T) {
	run := &check.Execution{Complete: true, Results: []check.Result{{ID: "x/a", Status: check.Pass, Level: check.Must}, {ID: "x/b", Status: check.Fail, Level: check.Must, Reason: "no"}}}
	var b bytes.Buffer
	if err := WriteText(&b, New(Tool{Name: "referee"}, Suite{Name: "x"}, Implementation{}, run, false), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "by group") {
		t.Errorf("a group per check has a group block:\n%s", b.String())
	}
}
