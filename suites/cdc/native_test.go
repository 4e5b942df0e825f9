package cdc

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// TestNativeOfRunThatGaveUp: an adapter that answers its hello and then
// only garbage makes the run give up after three faults; the native report
// of that run must not say that a hook was checked (canonicalChecked and
// the 1.2 flags), since none of those checks ran.
func TestNativeOfRunThatGaveUp(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh for the adapter:", err)
	}
	l, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range l.Suite.Checks {
		for _, op := range c.Needs {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	opsJSON, _ := json.Marshal(ops)
	// A real child: hello (replayed after each restart), then garbage.
	script := `read line; printf '%s\n' '{"id":0,"ok":{"name":"gives-up","version":"1","ops":` + string(opsJSON) + `}}'; while read line; do echo 'not a reply'; done`
	plan, err := run.Prepare(&Definition, check.Spec{Argv: []string{sh, "-c", script}, Timeout: 20 * time.Second}, run.Options{Tool: report.Tool{Name: "referee", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := plan.Execute(ctx)
	if res.Execution.Complete {
		t.Fatal("the run did not give up")
	}
	ran := 0
	for _, r := range res.Execution.Results {
		if !strings.HasPrefix(r.Reason, "not run: ") {
			ran++
			if family(r.ID) == "canonical" {
				t.Fatalf("%s ran before the run gave up; the test needs the canonical checks after the first faults", r.ID)
			}
		}
	}
	if ran == 0 || ran > 3 {
		t.Errorf("%d checks ran before the run gave up, want 1 to 3", ran)
	}
	doc, _ := res.Native()
	n := doc.(*NativeReport)
	if n.CanonicalChecked {
		t.Error("canonicalChecked: true, though no canonical check ran")
	}
	for name, flag := range map[string]*bool{"narrowingChecked": n.NarrowingChecked, "signaturesChecked": n.SignaturesChecked, "rulesChecked": n.RulesChecked, "errorPathsChecked": n.ErrorPathsChecked} {
		if flag != nil && *flag {
			t.Errorf("%s: true, though none of its checks ran", name)
		}
	}
	if len(n.Failures) == 0 {
		t.Error("the native report of a run that gave up lists no failure")
	}
}
