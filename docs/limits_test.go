package docs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// TestLimitsSection holds adapter-protocol.md's "Limits and hostile
// implementations" to the bounds in the code: a bound changed in one place
// and not the other fails here.
func TestLimitsSection(t *testing.T) {
	page, err := os.ReadFile("adapter-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n## Limits and hostile implementations\n")
	if !ok {
		t.Fatal("adapter-protocol.md has no Limits and hostile implementations section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	section = strings.Join(strings.Fields(section), " ") // a phrase may wrap
	mib := func(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
	kib := func(n int64) string { return fmt.Sprintf("%d KiB", n>>10) }
	for _, want := range []string{
		fmt.Sprintf("%d MiB (%s bytes", adapter.MaxLine>>20, thousands(adapter.MaxLine)),
		fmt.Sprintf("%s levels", thousands(adapter.MaxReplyDepth)),
		"the first " + kib(adapter.MaxKept) + " in the fault",
		"| an offending line (`bad-line`, `unknown-id`, a failed `hello`) | " + kib(adapter.MaxKept) + " kept",
		"the last " + kib(child.TailSize) + " of each adapter process",
		mib(regularfile.DefaultLimit) + " by default",
		fmt.Sprintf("more than the limit of %s per file (--max-file-size)", regularfile.Size(regularfile.DefaultLimit)),
		"a line or an HTTP body of at most " + mib(cgp.MaxLine),
		fmt.Sprintf("%v for the handshake, %v for each call, %v to exit after `shutdown`", seconds(host.HandshakeTimeout), seconds(host.CallTimeout), seconds(host.ShutdownGrace)),
		fmt.Sprintf("batches of at most %d", fuzz.BatchSize),
		"the reason (at most " + kib(fuzz.MaxReason) + ")",
		fmt.Sprintf("the first %d bytes shown in the summary", check.ClipLen),
		"SIGINT or SIGTERM ends the run",
		"`INTERRUPTED after N of M inputs`",
		"still written to `--out`",
		"Only the files that corpus's manifest lists at clean relative paths inside the directory",
		"a write that fails leaves the earlier corpus as it was",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the Limits section does not say %q", want)
		}
	}
}

// thousands writes n with commas: 16,777,216.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%g s", d.Seconds()) }
