package cgplive_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/cgplive"
)

// cancelOn is a trace that cancels the run when referee sends a line
// holding marker: the check that sent it is then in flight.
type cancelOn struct {
	marker []byte
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelOn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(" -> ")) && bytes.Contains(b, c.marker) {
		c.once.Do(c.cancel)
	}
	return len(b), nil
}

// TestNativeOfInterruptedRun: interrupted (SIGINT is a cancelled context)
// while a provider takes its time over shutdown, the run's native report
// marks the check in flight skipped, not fail: it charges the provider with
// nothing the run did not finish judging.
func TestNativeOfInterruptedRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := check.Spec{
		Argv: []string{os.Args[0]},
		Env:  append(os.Environ(), envDocs+"="+docsDir(t), envMode+"=hang-on-shutdown"),
	}
	plan, err := run.Prepare(&cgplive.Definition, spec, run.Options{
		Select: []string{"cgp/handshake", "cgp/shutdown-clean"},
		Trace:  adapter.NewTrace(&cancelOn{marker: []byte(`"type":"shutdown"`), cancel: cancel}),
		Tool:   report.Tool{Name: "referee", Version: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *run.Result, 1)
	go func() { done <- plan.Execute(ctx) }()
	var res *run.Result
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the interrupted run did not end")
	}
	if res.Execution.Complete {
		t.Fatal("an interrupted run is complete")
	}
	doc, ok := res.Native()
	if !ok {
		t.Fatal("no native report")
	}
	got := map[string]string{}
	for _, c := range doc.(cgplive.Native).Checks {
		got[c.Name] = c.Status + ": " + c.Evidence
		if c.Status == "fail" {
			t.Errorf("%s: fail after an interruption: %s", c.Name, c.Evidence)
		}
	}
	if st := got[cgplive.CheckShutdownClean]; len(st) < 8 || st[:8] != "skipped:" {
		t.Errorf("shutdown-clean, in flight when interrupted: %q, want skipped", st)
	}
	if st := got[cgplive.CheckHandshake]; len(st) < 5 || st[:5] != "pass:" {
		t.Errorf("handshake, judged before the interruption: %q, want pass", st)
	}
}

// TestProviderTextCannotForgeLines: a provider whose frame ids and
// provenance URIs hold line breaks, carriage returns and ANSI escapes gets
// its verdicts, and no line of the text report but referee's own.
func TestProviderTextCannotForgeLines(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	spec := check.Spec{
		Argv:   []string{os.Args[0]},
		Env:    append(os.Environ(), envDocs+"="+docsDir(t), envHostile+"=forge-lines"),
		Stderr: &stderr,
	}
	plan, err := run.Prepare(&cgplive.Definition, spec, run.Options{Tool: report.Tool{Name: "referee", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := plan.Execute(ctx)
	var b bytes.Buffer
	if err := report.WriteText(&b, res.Report, report.TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "PASS  cgp/forged-uri") || !strings.Contains(out, "FAIL  cgp/provenance-fixture-consistency") {
		t.Fatalf("provenance did not fail with the forged URIs in its evidence; the test proves nothing:\n%s", out)
	}
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("a raw CR or ESC in the report:\n%q", out)
	}
	ids := map[string]bool{}
	for _, c := range plan.Checks {
		ids[c.ID] = true
	}
	for i, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "PASS") && (len(f) < 2 || !ids[f[1]]):
			t.Errorf("line %d is forged: %q", i+1, line)
		case strings.HasPrefix(line, "CONFORMANT"):
			t.Errorf("line %d is forged: %q", i+1, line)
		}
	}
}
