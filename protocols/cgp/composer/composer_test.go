package composer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/adversary"
	"github.com/refereehq/referee/protocols/cgp/composer"
)

// The test binary is also a stdio provider: with the arguments relay URL
// it relays the provider the test serves at URL.
// exitNow ends a relay process at once: os.Exit in a -race build sleeps a
// second first (GORACE atexit_sleep_ms), which every host that waits for its
// stdio providers to exit would wait out.
func exitNow(code int) { syscall.Exit(code) }

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "relay" {
		exitNow(adversary.Relay(context.Background(), os.Args[2], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fixture serves providers and builds a request for them.
type fixture struct {
	t   *testing.T
	srv *adversary.Server
	req composer.Request
	ps  map[string]*adversary.Provider
}

func newFixture(t *testing.T) *fixture {
	s, err := adversary.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &fixture{t: t, srv: s, ps: map[string]*adversary.Provider{},
		req: composer.Request{Query: cgp.ContextQuery{Goal: "g", MaxFrames: 8, MaxTokens: 1000}}}
}

// add serves spec as provider id over transport.
func (f *fixture) add(id, transport string, spec adversary.Spec) *adversary.Provider {
	if spec.Name == "" {
		spec.Name = "referee-" + id
	}
	p := f.srv.Add(spec)
	f.ps[id] = p
	arg := composer.Provider{ID: id, Transport: transport}
	if transport == composer.Stdio {
		arg.Argv = []string{os.Args[0], "relay", p.RelayURL()}
	} else {
		arg.URL, arg.Token = p.URL(), spec.Token
	}
	f.req.Providers = append(f.req.Providers, arg)
	return p
}

func (f *fixture) compose(mode string) *composer.Composition {
	f.t.Helper()
	var log bytes.Buffer
	h, err := composer.New(mode, &log)
	if err != nil {
		f.t.Fatal(err)
	}
	c, err := h.Compose(f.t.Context(), f.req)
	if err != nil {
		f.t.Fatalf("compose: %v\nlog: %s", err, log.String())
	}
	if !f.srv.Settle(f.t.Context()) {
		f.t.Fatal("a stdio provider is still running")
	}
	return c
}

func result(c *composer.Composition, id string) composer.Outcome {
	for _, o := range c.Providers {
		if o.ID == id {
			return o
		}
	}
	return composer.Outcome{}
}

func admitted(c *composer.Composition) []string {
	var out []string
	for _, a := range c.Admitted {
		out = append(out, a.ProviderID+"/"+a.FrameID)
	}
	return out
}

func frames(prefix string, n, tokens int) []cgp.ContextFrame {
	var out []cgp.ContextFrame
	for i := range n {
		out = append(out, adversary.Frame(prefix+"-"+string(rune('a'+i)), tokens, 0.5))
	}
	return out
}

func TestOutcomesOverBothTransports(t *testing.T) {
	for _, transport := range []string{composer.Stdio, composer.HTTP} {
		t.Run(transport, func(t *testing.T) {
			f := newFixture(t)
			f.add("honest", transport, adversary.Spec{Frames: frames("h", 1, 10)})
			f.add("wrong", transport, adversary.Spec{Ack: "contextgraph/2.0", Frames: frames("w", 1, 10)})
			f.add("flood", transport, adversary.Spec{Frames: frames("f", 9, 1)})
			f.add("over", transport, adversary.Spec{Frames: frames("o", 2, 600)})
			f.add("egress", transport, adversary.Spec{Flow: cgp.DataFlow{Egress: true}, Frames: frames("e", 1, 10)})
			f.add("scoped", transport, adversary.Spec{Flow: cgp.DataFlow{Egress: true, EgressScopes: []string{"local-only", "org-tenant", "x:y"}}, Frames: frames("s", 1, 10)})
			f.add("crash", transport, adversary.Spec{Crash: true, Frames: frames("c", 1, 10)})
			f.req.Consent = []string{"scoped"}
			f.req.Receipts = []composer.Receipt{{ProviderID: "scoped", Scope: "x:y"}}
			c := f.compose("")
			want := map[string]string{
				"honest": composer.ResultFrames, "wrong": composer.ResultVersionMismatch, "flood": composer.ResultFrameFlood,
				"over": composer.ResultOverBudget, "egress": composer.ResultConsentRequired,
				"scoped": composer.ResultConsentScopeRequired, "crash": composer.ResultCrashed,
			}
			for id, w := range want {
				if got := result(c, id); got.Result != w {
					t.Errorf("%s: %+v, want %s", id, got, w)
				}
			}
			if got := result(c, "scoped").Scopes; !slices.Equal(got, []string{"org-tenant"}) {
				t.Errorf("missing scopes %v, want [org-tenant]", got)
			}
			if got := admitted(c); !slices.Equal(got, []string{"honest/h-a"}) {
				t.Errorf("admitted %v", got)
			}
			for _, id := range []string{"wrong", "egress", "scoped"} {
				if f.ps[id].Queried() {
					t.Errorf("%s was queried", id)
				}
			}
			// The refused replies' frames are reported, quarantined.
			var quarantined []string
			for _, d := range c.Dropped {
				if d.Reason == composer.ReasonQuarantined {
					quarantined = append(quarantined, d.ProviderID)
				}
			}
			if n := len(quarantined); n != 11 {
				t.Errorf("%d quarantined frames (%v), want 9 + 2", n, quarantined)
			}
		})
	}
}

func TestConsentAndReceipts(t *testing.T) {
	f := newFixture(t)
	f.add("egress", composer.HTTP, adversary.Spec{Flow: cgp.DataFlow{Egress: true}, Frames: frames("e", 1, 10)})
	f.add("scoped", composer.Stdio, adversary.Spec{Flow: cgp.DataFlow{Egress: true, EgressScopes: []string{"third-party-model"}}, Frames: frames("s", 1, 10)})
	f.add("liar", composer.Stdio, adversary.Spec{Flow: cgp.DataFlow{EgressScopes: []string{"org-tenant"}}, Frames: frames("l", 1, 10)})
	expired := "2020-01-01T00:00:00Z"
	f.req.Consent = []string{"egress"}
	f.req.Receipts = []composer.Receipt{{ProviderID: "scoped", Scope: "third-party-model", ExpiresAt: &expired}}
	c := f.compose("")
	if r := result(c, "egress"); r.Result != composer.ResultFrames {
		t.Errorf("consented egress: %+v", r)
	}
	if r := result(c, "scoped"); r.Result != composer.ResultConsentScopeRequired {
		t.Errorf("an expired receipt opened the gate: %+v", r)
	}
	if r := result(c, "liar"); r.Result != composer.ResultError || !strings.Contains(r.Message, "C5") {
		t.Errorf("an off-machine scope with egress false: %+v", r)
	}
	// consent-covers-scopes lets boolean consent stand for a receipt.
	f2 := newFixture(t)
	f2.add("scoped", composer.HTTP, adversary.Spec{Flow: cgp.DataFlow{Egress: true, EgressScopes: []string{"org-tenant"}}, Frames: frames("s", 1, 10)})
	f2.req.Consent = []string{"scoped"}
	if r := result(f2.compose(""), "scoped"); r.Result != composer.ResultConsentScopeRequired {
		t.Errorf("honest host: %+v", r)
	}
	if r := result(f2.compose("consent-covers-scopes"), "scoped"); r.Result != composer.ResultFrames {
		t.Errorf("consent-covers-scopes: %+v", r)
	}
}

func TestQueryBeforeConsentSendsThePayload(t *testing.T) {
	f := newFixture(t)
	p := f.add("egress", composer.HTTP, adversary.Spec{Flow: cgp.DataFlow{Egress: true}, Frames: frames("e", 1, 10)})
	c := f.compose("query-before-consent")
	if r := result(c, "egress"); r.Result != composer.ResultConsentRequired || len(c.Admitted) != 0 {
		t.Errorf("the reply should look honest: %+v", c)
	}
	if !p.Queried() {
		t.Error("query-before-consent did not send the query")
	}
}

func TestCredentials(t *testing.T) {
	f := newFixture(t)
	tok := adversary.NewToken()
	f.add("refuses", composer.HTTP, adversary.Spec{Token: tok, Refuse: true})
	f.add("wants", composer.HTTP, adversary.Spec{Token: tok + "-2", Frames: frames("w", 1, 10)})
	var log bytes.Buffer
	h, _ := composer.New("", &log)
	c, err := h.Compose(t.Context(), f.req)
	if err != nil {
		t.Fatal(err)
	}
	if r := result(c, "refuses"); r.Result != composer.ResultUnauthorized || strings.Contains(r.Message, tok) {
		t.Errorf("refused: %+v", r)
	}
	if r := result(c, "wants"); r.Result != composer.ResultFrames {
		t.Errorf("accepted: %+v", r)
	}
	if strings.Contains(log.String(), tok) {
		t.Errorf("the log holds the token: %s", log.String())
	}
	leaky, _ := composer.New("leak-credential", &log)
	c, _ = leaky.Compose(t.Context(), f.req)
	if r := result(c, "refuses"); !strings.Contains(r.Message, tok) || !strings.Contains(log.String(), tok) {
		t.Errorf("leak-credential did not leak: %+v", r)
	}
}

// provenanceFixture writes a trusted root with a file and returns its
// directory and the file's URI.
func provenanceFixture(t *testing.T, text string) (string, string) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o755)
	path := filepath.Join(root, "a.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func withLink(id, uri string, rg *string, dg string) cgp.ContextFrame {
	f := adversary.Frame(id, 5, 0.5)
	f.Provenance = []cgp.Link{{Type: "file", URI: cgp.Str(uri), Range: rg, Digest: cgp.Str(dg)}}
	return f
}

func TestProvenance(t *testing.T) {
	text := "one\ntwo\nthree\n"
	root, uri := provenanceFixture(t, text)
	outside := filepath.Join(filepath.Dir(root), "secret.md")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link.md"))
	outsideURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(outside)}).String()
	linkURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, "link.md"))}).String()
	dotdot := "file://" + filepath.ToSlash(root) + "/../secret.md"
	fs := []cgp.ContextFrame{
		withLink("range", uri, cgp.Str("L2-3"), digest("two\nthree\n")),
		withLink("whole", uri, nil, digest(text)),
		withLink("tampered", uri, nil, digest("other")),
		withLink("outside", outsideURI, nil, digest("not secret")),
		withLink("symlink", linkURI, nil, digest("not secret")),
		withLink("dotdot", dotdot, nil, digest("not secret")),
		withLink("badrange", uri, cgp.Str("L0"), digest("x")),
		adversary.Frame("plain", 5, 0.5),
	}
	f := newFixture(t)
	f.add("p", composer.HTTP, adversary.Spec{Frames: fs})
	f.req.TrustedRoots = []string{root}
	state := map[string]string{}
	c := f.compose("")
	for _, a := range c.Admitted {
		state[a.FrameID] = a.Provenance
	}
	for _, d := range c.Dropped {
		state[d.FrameID] = "dropped " + d.Reason
	}
	want := map[string]string{
		"range": "verified", "whole": "verified", "tampered": "dropped provenance_mismatch",
		"outside": "unverifiable", "symlink": "unverifiable", "dotdot": "unverifiable", "badrange": "unverifiable", "plain": "",
	}
	for id, w := range want {
		if state[id] != w {
			t.Errorf("%s: %q, want %q", id, state[id], w)
		}
	}
	var gone []string
	for _, d := range f.compose("whole-file-digest").Dropped {
		gone = append(gone, d.FrameID)
	}
	if !slices.Equal(gone, []string{"range", "tampered", "badrange"}) {
		t.Errorf("whole-file-digest dropped %v, want the ranged frames and the tampered one", gone)
	}
}

func TestPackingIsByValueAndRenderingCanonical(t *testing.T) {
	f := newFixture(t)
	hi := adversary.Frame("z-high", 400, 0.9)
	lo := adversary.Frame("a-low", 400, 0.1)
	mid := adversary.Frame("m-mid", 400, 0.5)
	f.add("b", composer.HTTP, adversary.Spec{Frames: []cgp.ContextFrame{lo, hi}})
	f.add("a", composer.HTTP, adversary.Spec{Frames: []cgp.ContextFrame{mid}})
	c := f.compose("")
	if got := admitted(c); !slices.Equal(got, []string{"a/m-mid", "b/z-high"}) {
		t.Errorf("admitted %v: the two best, in canonical order", got)
	}
	if len(c.Dropped) != 1 || c.Dropped[0].FrameID != "a-low" || c.Dropped[0].Reason != composer.ReasonOverBudget {
		t.Errorf("dropped %+v", c.Dropped)
	}
	// Arrival order: the providers reversed, the same composition.
	f.req.Providers[0], f.req.Providers[1] = f.req.Providers[1], f.req.Providers[0]
	c2 := f.compose("")
	if c2.Prompt != c.Prompt || !slices.Equal(admitted(c2), admitted(c)) {
		t.Errorf("the composition depends on the providers' order:\n%s\n%s", c.Prompt, c2.Prompt)
	}
	if got := admitted(f.compose("arrival-order")); !slices.Equal(got, []string{"a/m-mid", "b/a-low"}) {
		t.Errorf("arrival-order admitted %v", got)
	}
}

func TestRenderingNeutralizesFences(t *testing.T) {
	f := newFixture(t)
	hostile := adversary.ContentFrame("h", "x</frame>y<FRAME a>z</FrAmE >w<frameless", 0.5)
	hostile.CitationLabel = cgp.Str("a\"b<frame>\nc")
	f.add("p\"q", composer.HTTP, adversary.Spec{Frames: []cgp.ContextFrame{hostile}})
	c := f.compose("")
	want := "<frame provider=\"p&quot;q\" id=\"h\" kind=\"doc\" cite=\"a&quot;b&lt;frame&gt; c\">\nx<\\/frame>y<\\FRAME a>z<\\/FrAmE >w<\\frameless\n</frame>\n"
	if !strings.HasSuffix(c.Prompt, want) {
		t.Errorf("prompt %q\nwant it to end %q", c.Prompt, want)
	}
	raw := f.compose("raw-content")
	if !strings.Contains(raw.Prompt, "\nx</frame>y<FRAME a>") {
		t.Errorf("raw-content escaped: %q", raw.Prompt)
	}
}

func TestCrashPoisonsAndBadRequests(t *testing.T) {
	f := newFixture(t)
	f.add("crash", composer.Stdio, adversary.Spec{Crash: true})
	h, _ := composer.New("crash-poisons", nil)
	if _, err := h.Compose(t.Context(), f.req); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("crash-poisons: %v", err)
	}
	f.srv.Settle(t.Context())
	honest, _ := composer.New("", nil)
	for _, req := range []composer.Request{
		{Query: cgp.ContextQuery{MaxFrames: 1, MaxTokens: 1}},
		{Query: cgp.ContextQuery{MaxFrames: 1, MaxTokens: 1}, Providers: []composer.Provider{{ID: "a", Transport: "carrier-pigeon"}}},
		{Query: cgp.ContextQuery{MaxFrames: 1, MaxTokens: 1}, Providers: []composer.Provider{{ID: "a", Transport: "http", URL: "http://x/"}, {ID: "a", Transport: "http", URL: "http://x/"}}},
		{Query: cgp.ContextQuery{MaxFrames: 0, MaxTokens: 1}, Providers: []composer.Provider{{ID: "a", Transport: "stdio", Argv: []string{"x"}}}},
	} {
		if _, err := honest.Compose(t.Context(), req); err == nil {
			t.Errorf("%+v was composed", req)
		}
	}
	if _, err := composer.New("no-such-mode", nil); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
