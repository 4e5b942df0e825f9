package cli

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/suites/jcs"
)

// TestRunOverHTTP runs the jcs suite against the built-in implementation
// served over HTTP, honest and broken, through Main.
func TestRunOverHTTP(t *testing.T) {
	for _, tt := range []struct {
		mode string
		code int
		want string
	}{
		{"", 0, " passed, 0 failed, 0 not checked, 0 errors\n"},
		{"escape-slash", 1, "FAIL  jcs/strings/solidus"},
	} {
		h, err := jcs.Reference(tt.mode)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(adapter.ServeHTTP(h))
		var stdout, stderr bytes.Buffer
		code := Main([]string{"run", "jcs", "-q", "--url", srv.URL}, strings.NewReader(""), &stdout, &stderr)
		srv.Close()
		if code != tt.code || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("mode %q: exit %d, want %d; stdout:\n%s\nstderr:\n%s", tt.mode, code, tt.code, stdout.String(), stderr.String())
		}
		if !strings.Contains(stdout.String(), "(http: "+srv.URL+")") {
			t.Errorf("mode %q: the report does not name the URL:\n%s", tt.mode, stdout.String())
		}
		if tt.code == 1 && !strings.Contains(stdout.String(), "repro: curl -sS -H 'Content-Type: application/json' --data-binary") {
			t.Errorf("mode %q: no curl repro:\n%s", tt.mode, stdout.String())
		}
	}
}
