package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
)

// TestTextInterruptedBeforeStart: a run interrupted before its
// implementation started says so once, not once per check, and does not
// say the implementation could not be started.
func TestTextInterruptedBeforeStart(t *testing.T) {
	checks := []check.Check{{ID: "jcs/a"}, {ID: "jcs/b"}, {ID: "jcs/c"}}
	r := New(Tool{Name: "referee"}, Suite{Name: "jcs"}, Implementation{Transport: "stdio", Command: []string{"./a"}}, check.Interrupted(checks), false)
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "ERROR run interrupted; none of the 3 checks ran\n") || strings.Count(out, "ERROR") != 1 || strings.Contains(out, "could not be started") {
		t.Errorf("the report does not say once that the run was interrupted:\n%s", out)
	}
	if !strings.Contains(out, "INCOMPLETE") || r.ExitCode() != ExitIncomplete {
		t.Errorf("exit %d, want %d, and INCOMPLETE:\n%s", r.ExitCode(), ExitIncomplete, out)
	}
}
