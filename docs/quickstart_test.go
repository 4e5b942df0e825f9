package docs_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestQuickstart runs the adapter quickstart.md shows, as the page runs it,
// and holds the page to what referee reports: its summary line and each
// check the page quotes.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the quickstart's adapter is Node.js")
	}
	page, err := os.ReadFile("quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```js\n(.*?)```").FindSubmatch(page)
	if m == nil {
		t.Fatal("quickstart.md has no js block")
	}
	file := filepath.Join(t.TempDir(), "jcs-adapter.mjs")
	if err := os.WriteFile(file, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(t.TempDir(), "report.json")
	out := referee(t, "run", "jcs", "-q", "--json", jsonFile, "--", "node", file)
	if out.code != 1 {
		t.Fatalf("exit %d, want 1 (not conformant)\n%s", out.code, out.stderr)
	}
	var summary string
	for _, l := range strings.Split(out.stdout, "\n") {
		if strings.Contains(l, " passed, ") {
			summary = l
		}
	}
	if !bytes.Contains(page, []byte("\n"+summary+"\n")) {
		t.Errorf("quickstart.md does not show the summary line %q", summary)
	}
	// The failures the page explains, counted from the JSON report: the
	// text report lists checks that failed for the same reason as one.
	raw, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeReport(t, string(raw))
	var fails, warns []string
	for _, c := range r.Checks {
		switch {
		case c.Status == "fail" && c.Level == "should":
			warns = append(warns, c.ID)
		case c.Status == "fail":
			fails = append(fails, c.ID)
		}
	}
	keys, rejects := 0, 0
	for _, id := range fails {
		switch {
		case strings.HasPrefix(id, "jcs/keys/"), strings.HasPrefix(id, "jcs/scale/object-"):
			keys++
		case strings.HasPrefix(id, "jcs/rejects/"), strings.HasPrefix(id, "jcs/surrogates/"):
			rejects++
		default:
			t.Errorf("%s fails, and the page explains no such failure", id)
		}
	}
	for _, claim := range []string{fmt.Sprintf("**%d failures in key order.**", keys), fmt.Sprintf("**%d failures in rejections.**", rejects), fmt.Sprintf("**%d warnings.**", len(warns))} {
		if !bytes.Contains(page, []byte(claim)) {
			t.Errorf("quickstart.md does not say %q", claim)
		}
	}
	if !bytes.Contains(page, []byte("FAIL  jcs/keys/numeric-strings  canonical text differs at byte 8")) || !strings.Contains(out.stdout, "FAIL  jcs/keys/numeric-strings  canonical text differs at byte 8") {
		t.Error("the page's quoted failure of jcs/keys/numeric-strings is not the report's")
	}
}
