package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/protocols/cgp/provider"
	"github.com/refereehq/referee/suites/jcs"
)

// TestRunOverHTTP runs the jcs suite against the built-in implementation
// served over HTTP, honest and broken, through Main.
func TestRunOverHTTP(t *testing.T) {
	t.Parallel()
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
		if tt.code == 1 && !strings.Contains(stdout.String(), " --url "+srv.URL+"\n") {
			t.Errorf("mode %q: no repro against the URL:\n%s", tt.mode, stdout.String())
		}
	}
}

// TestRunCgpOverHTTP runs the cgp suite against referee's provider served
// over HTTP: the fresh-connection checks are skipped, the rest pass, and the
// bearer token from --token-env reaches the server without being printed.
func TestRunCgpOverHTTP(t *testing.T) {
	docs := t.TempDir()
	if err := provider.WriteDocs(docs); err != nil {
		t.Fatal(err)
	}
	p, err := provider.New(docs, "")
	if err != nil {
		t.Fatal(err)
	}
	const token = "t0ken-for-the-test"
	var auth []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		p.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("MY_CGP_TOKEN", token)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"run", "cgp", "--format", "native", "--token-env", "MY_CGP_TOKEN", "--url", srv.URL}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var native struct {
		Target string `json:"target"`
		Checks []struct{ Name, Status, Evidence string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &native); err != nil {
		t.Fatalf("native report: %v\n%s", err, stdout.String())
	}
	skipped := 0
	for _, c := range native.Checks {
		if c.Status == "skipped" {
			skipped++
		} else if c.Status != "pass" {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Evidence)
		}
	}
	if len(native.Checks) != 14 || skipped != 3 || native.Target != "http: "+srv.URL {
		t.Errorf("%d checks, %d skipped, target %q", len(native.Checks), skipped, native.Target)
	}
	for _, a := range auth {
		if a != "Bearer "+token {
			t.Fatalf("Authorization %q", a)
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), token) {
		t.Error("the token was printed")
	}
}
