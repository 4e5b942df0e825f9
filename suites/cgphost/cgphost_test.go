package cgphost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/adversary"
	"github.com/refereehq/referee/protocols/cgp/composer"
	"github.com/refereehq/referee/protocols/cgp/host"
	"github.com/refereehq/referee/suites/cgphost"
)

// The test binary stands in for referee: the suite gives hosts
// `<itself> serve cgp-host --provider URL` as a stdio provider.
// exitNow ends a relay process at once: os.Exit in a -race build sleeps a
// second first (GORACE atexit_sleep_ms), which every host that waits for its
// stdio providers to exit would wait out.
func exitNow(code int) { syscall.Exit(code) }

func TestMain(m *testing.M) {
	if a := os.Args[1:]; len(a) == 4 && a[0] == "serve" && a[1] == cgphost.Name && a[2] == "--provider" {
		exitNow(adversary.Relay(context.Background(), a[3], os.Stdin, os.Stdout, os.Stderr))
	}
	child.StandIn = true // it serves the relays, all the suite starts of itself
	os.Exit(m.Run())
}

func load(t testing.TB, transport string) *check.Loaded {
	t.Helper()
	l, err := cgphost.Definition.Load(check.LoadOptions{Flags: check.FlagValues{"transport": transport}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// statuses runs the suite against h and returns each check's status by
// name ("fail" for a failed should check too), and the run.
func statuses(t *testing.T, transport string, h adapter.Handler) (map[string]check.Status, *check.Execution) {
	t.Helper()
	run := checktest.Execute(t, load(t, transport).Suite, adapter.InProcess(h))
	out := map[string]check.Status{}
	for _, r := range run.Results {
		out[strings.TrimPrefix(r.ID, cgphost.Name+"/")] = r.Status
	}
	return out, run
}

func reference(t testing.TB, mode string) adapter.Handler {
	t.Helper()
	h, err := load(t, "").Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func with(m map[string]check.Status, s check.Status) []string {
	var out []string
	for n, st := range m {
		if st == s {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func TestReferencePassesOverEveryTransport(t *testing.T) {
	for _, c := range []struct {
		transport  string
		notChecked []string
	}{
		{"mixed", []string{cgphost.CheckTLSNonLoopback}},
		{"stdio", []string{cgphost.CheckCredentialHygiene, cgphost.CheckTLSNonLoopback}},
		{"http", []string{cgphost.CheckTLSNonLoopback}},
	} {
		t.Run(c.transport, func(t *testing.T) {
			got, run := statuses(t, c.transport, reference(t, ""))
			for _, r := range run.Results {
				if r.Status == check.Fail || r.Status == check.Error {
					t.Errorf("%s: %s: %s\n%s", r.ID, r.Status, r.Reason, strings.Join(r.Evidence.Notes, "\n"))
				}
			}
			if nc := with(got, check.NotChecked); !slices.Equal(nc, c.notChecked) {
				t.Errorf("not checked %v, want %v", nc, c.notChecked)
			}
			if n := len(with(got, check.Pass)); n != 14-len(c.notChecked) {
				t.Errorf("%d passed", n)
			}
		})
	}
}

// modeFailures is, for each broken mode, the checks it must fail, worked
// out by hand from the rule the mode breaks and what each check's
// providers do: never computed from a run.
var modeFailures = map[string][]string{
	// H3: contextgraph/10.0 passes a prefix test; 1.9 and 1.0-draft fail
	// an exact one. No other check's providers ack another version.
	"prefix-version": {"version-reject"},
	"exact-version":  {"version-reject"},
	// B2: budget-drop's 3 × 400 keeps two frames; quarantine's charlie sends
	// 3 × 400 too, and two of its frames then fit beside bravo's 100.
	"truncate-over-budget": {"budget-drop", "quarantine"},
	// B4: frame-limit's twelve and quarantine's seventeen one-token frames
	// are admitted.
	"no-flood-check": {"frame-limit", "quarantine"},
	// The audit reports, the composition ignores it: every refused reply
	// of budget-drop, frame-limit and quarantine reaches the pack, and some
	// of each fits.
	"compose-raw": {"budget-drop", "frame-limit", "quarantine"},
	// C1/C2: only consent-gate's subject declares egress without scopes;
	// scope-receipt's is held by the scope gate, which stays.
	"no-consent-gate": {"consent-gate"},
	// C2 on the wire: the reply is right, but both consent checks' subjects
	// received the query.
	"query-before-consent": {"consent-gate", "scope-receipt"},
	// C6: scope-receipt's subject has boolean consent and a missing receipt.
	"consent-covers-scopes": {"scope-receipt"},
	// §6.2: only provenance-bytes serves file provenance.
	"trust-provenance":  {"provenance-bytes"},
	"whole-file-digest": {"provenance-bytes"},
	// R3: only content-quoting's content holds a fence token.
	"raw-content": {"content-quoting"},
	// Only crash-isolation has a provider that crashes.
	"crash-poisons": {"crash-isolation"},
	// C8: only credential-hygiene has a provider that refuses a credential.
	"leak-credential": {"credential-hygiene"},
	// The composition's bound: only budget-bound's honest providers overrun
	// together (determinism's 1200 go in whole on both calls, the same).
	"no-budget-bound": {"budget-bound"},
	// Budget drops unreported: budget-bound wants a drop reported, the
	// partition every frame accounted for.
	"silent-drop": {"budget-bound", "total-partition"},
	// Arrival order: determinism's second call reorders; every other check
	// makes one call, or two of the same order.
	"arrival-order": {"determinism"},
}

func TestEveryModeFailsExactlyItsChecks(t *testing.T) {
	var names []string
	for _, m := range composer.Modes {
		names = append(names, m.Name)
		if _, ok := modeFailures[m.Name]; !ok {
			t.Errorf("mode %s has no expected failures in modeFailures", m.Name)
		}
	}
	if len(modeFailures) != len(names) {
		t.Errorf("modeFailures has %d modes, composer.Modes %d", len(modeFailures), len(names))
	}
	failed := map[string]bool{}
	for _, mode := range names {
		t.Run(mode, func(t *testing.T) {
			got, run := statuses(t, "http", reference(t, mode))
			fails := with(got, check.Fail)
			want := slices.Sorted(slices.Values(modeFailures[mode]))
			if !slices.Equal(fails, want) {
				t.Errorf("fails %v, want %v", fails, want)
				for _, r := range run.Results {
					if r.Status == check.Fail && !slices.Contains(want, strings.TrimPrefix(r.ID, cgphost.Name+"/")) {
						t.Logf("%s: %s", r.ID, r.Reason)
					}
				}
			}
			if e := with(got, check.Error); len(e) > 0 {
				t.Errorf("errors %v: a broken mode must answer, not fault", e)
			}
			for _, f := range fails {
				failed[f] = true
			}
		})
	}
	for _, c := range load(t, "").Suite.Checks {
		if n := strings.TrimPrefix(c.ID, cgphost.Name+"/"); !failed[n] && n != cgphost.CheckTLSNonLoopback {
			t.Errorf("%s fails under no broken mode", c.ID)
		}
	}
}

// The stdio transport catches the same modes: C2 judged on what a stdio
// provider read from its stdin, a crash as a process's exit, and the
// arrival order of frames read from pipes.
func TestModesOverStdio(t *testing.T) {
	for _, mode := range []string{"query-before-consent", "crash-poisons", "arrival-order"} {
		t.Run(mode, func(t *testing.T) {
			got, _ := statuses(t, "stdio", reference(t, mode))
			if fails := with(got, check.Fail); !slices.Equal(fails, slices.Sorted(slices.Values(modeFailures[mode]))) {
				t.Errorf("fails %v, want %v", fails, modeFailures[mode])
			}
		})
	}
}

// fakeHost is a host adapter made of a compose function, for hosts that
// are wrong in ways the reference's modes are not.
type fakeHost func(ctx context.Context, args composeRequest) any

type composeRequest struct {
	Query     cgp.ContextQuery `json:"query"`
	Providers []struct {
		ID, Transport, URL, Token string
		Argv                      []string
	} `json:"providers"`
}

func (f fakeHost) Hello() adapter.Hello {
	return adapter.Hello{Name: "fake", Ops: []string{cgphost.OpCompose}, Concurrency: 4}
}

func (f fakeHost) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	var req composeRequest
	if err := json.Unmarshal(args, &req); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	b, _ := json.Marshal(f(ctx, req))
	return b, nil
}

// dropAll reaches no provider and admits nothing.
func dropAll(ctx context.Context, req composeRequest) any {
	var ps []map[string]string
	for _, p := range req.Providers {
		ps = append(ps, map[string]string{"id": p.ID, "result": "error", "message": "this host composes nothing"})
	}
	return map[string]any{"providers": ps, "admitted": []any{}, "dropped": []any{}, "prompt": ""}
}

// admitAll queries every provider, with no gate and no audit, and puts
// every frame it gets into the prompt as it came.
func admitAll(ctx context.Context, req composeRequest) any {
	var ps, admitted []map[string]string
	var prompt strings.Builder
	for _, p := range req.Providers {
		target := host.Target{Argv: p.Argv, URL: p.URL, Token: p.Token}
		result := "frames"
		func() {
			h, err := host.Dial(ctx, target)
			if err != nil {
				result = "error"
				return
			}
			defer h.Close()
			defer h.Shutdown(ctx)
			hs, _ := cgp.Encode(&cgp.Envelope{Type: cgp.TypeHandshake, ProtocolVersion: cgp.ProtocolVersion})
			if _, err := h.Raw(ctx, hs); err != nil {
				result = "error"
				return
			}
			reply, err := h.Query(ctx, req.Query, nil)
			if err != nil {
				result = "error"
				return
			}
			for _, f := range reply.Result.Frames {
				admitted = append(admitted, map[string]string{"provider_id": p.ID, "frame_id": f.ID})
				fmt.Fprintf(&prompt, "<frame id=%q>\n%s\n</frame>\n", f.ID, *f.Content)
			}
		}()
		ps = append(ps, map[string]string{"id": p.ID, "result": result})
	}
	return map[string]any{"providers": ps, "admitted": admitted, "dropped": []any{}, "prompt": prompt.String()}
}

// A host that drops everything, or admits everything, fails: every check
// pairs the provider that tries to break a rule with one the host must
// accept. The admit-all host keeps the partition (it drops nothing, so
// every frame is accounted for) and nothing else.
func TestDropAllAndAdmitAllFail(t *testing.T) {
	all := []string{}
	for _, c := range load(t, "").Suite.Checks {
		if n := strings.TrimPrefix(c.ID, cgphost.Name+"/"); n != cgphost.CheckTLSNonLoopback {
			all = append(all, n)
		}
	}
	sort.Strings(all)
	for _, c := range []struct {
		name string
		host fakeHost
		pass []string
	}{
		{"drop-all", dropAll, nil},
		{"admit-all", admitAll, []string{cgphost.CheckTotalPartition}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, run := statuses(t, "mixed", c.host)
			var want []string
			for _, n := range all {
				if !slices.Contains(c.pass, n) {
					want = append(want, n)
				}
			}
			if fails := with(got, check.Fail); !slices.Equal(fails, want) {
				t.Errorf("fails %v\nwant  %v", fails, want)
				for _, r := range run.Results {
					t.Logf("%s %s: %s", r.ID, r.Status, r.Reason)
				}
			}
		})
	}
}

// A reply that is not the documented shape, or that names frames nobody
// served, fails the check that reads it, saying why.
func TestMalformedRepliesFail(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply func(req composeRequest) any
		want  string
	}{
		{"no prompt", func(composeRequest) any {
			return map[string]any{"providers": []any{}, "admitted": []any{}, "dropped": []any{}}
		}, "the reply has no prompt member"},
		{"phantom", func(req composeRequest) any {
			return map[string]any{"providers": []any{}, "admitted": []any{map[string]string{"provider_id": req.Providers[0].ID, "frame_id": "never-served"}}, "dropped": []any{}, "prompt": ""}
		}, "a frame no provider served the host"},
		{"dropped without a reason", func(req composeRequest) any {
			return map[string]any{"providers": []any{}, "admitted": []any{}, "dropped": []any{map[string]string{"provider_id": "a", "frame_id": "b"}}, "prompt": ""}
		}, "has no reason"},
		{"not an object", func(composeRequest) any { return []int{1} }, "not an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := fakeHost(func(_ context.Context, req composeRequest) any { return c.reply(req) })
			run := checktest.Execute(t, load(t, "http").Suite, adapter.InProcess(h))
			for _, r := range run.Results {
				if strings.HasSuffix(r.ID, cgphost.CheckTLSNonLoopback) {
					continue
				}
				if r.Status != check.Fail || !strings.Contains(r.Actual, c.want) {
					t.Errorf("%s: %s %q, want a failure saying %q", r.ID, r.Status, r.Actual, c.want)
				}
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	modes := cgphost.Definition.ModeList()
	if len(modes) != len(composer.Modes) {
		t.Errorf("%d modes listed, %d in composer.Modes", len(modes), len(composer.Modes))
	}
	for _, c := range load(t, "").Suite.Checks {
		if c.Clause == "" || c.Explanation() == "" || c.Doc == "" || !slices.Equal(c.Needs, []string{cgphost.OpCompose}) {
			t.Errorf("%s: clause, explanation, doc and needs must be set", c.ID)
		}
	}
	if _, err := cgphost.Definition.Load(check.LoadOptions{Flags: check.FlagValues{"transport": "pigeon"}}); err == nil {
		t.Error("--transport pigeon was accepted")
	}
	// An adapter that does not offer compose gets nothing but not-checked.
	h := fakeHost(dropAll)
	run := checktest.Execute(t, load(t, "").Suite, adapter.InProcess(noOps{h}))
	if n := run.Counts(); n.NotChecked != len(run.Results) {
		t.Errorf("an adapter without compose: %+v", n)
	}
}

type noOps struct{ fakeHost }

func (n noOps) Hello() adapter.Hello { return adapter.Hello{Name: "none", Ops: []string{}} }

// recorder is an adapter that keeps every compose args and reply.
type recorder struct {
	adapter.Handler
	mu            sync.Mutex
	args, replies []string
}

func (r *recorder) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	ok, err := r.Handler.Handle(ctx, op, args)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, string(args))
	if err == nil {
		r.replies = append(r.replies, string(ok))
	}
	return ok, err
}

// What referee sends and what the reference host answers, in every check
// and over every transport, validates against the documented schema.
func TestComposeFollowsTheSchema(t *testing.T) {
	argsSchema, replySchema := composeSchema(t, "args"), composeSchema(t, "ok")
	for _, transport := range []string{"mixed", "http"} {
		rec := &recorder{Handler: reference(t, "")}
		statuses(t, transport, rec)
		if len(rec.args) < 13 || len(rec.replies) != len(rec.args) {
			t.Fatalf("%s: %d args, %d replies", transport, len(rec.args), len(rec.replies))
		}
		for what, texts := range map[string][]string{"args": rec.args, "reply": rec.replies} {
			s := argsSchema
			if what == "reply" {
				s = replySchema
			}
			for _, text := range texts {
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Validate(v); err != nil {
					t.Errorf("%s: %s does not follow the schema: %v\n%s", transport, what, err, text)
				}
			}
		}
	}
	// The schema refuses what the docs forbid.
	for _, bad := range []string{
		`{"providers":[],"admitted":[],"dropped":[{"provider_id":"a","frame_id":"b"}],"prompt":""}`,
		`{"providers":[{"id":"a","result":"fine"}],"admitted":[],"dropped":[],"prompt":""}`,
		`{"providers":[],"admitted":[],"dropped":[]}`,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if replySchema.Validate(v) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// The Node example host, written from docs/suites/cgp-host.md, passes every
// check, and every reply it writes follows the schema.
func TestNodeExample(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	var trace syncBuffer
	cfg := adapter.ProcessConfig{Argv: []string{"node", "../../examples/adapters/node/cgp-host.mjs"}, Trace: adapter.NewTrace(&trace)}
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	run := checktest.Execute(t, load(t, "mixed").Suite, start)
	for _, r := range run.Results {
		want := check.Pass
		if strings.HasSuffix(r.ID, "/"+cgphost.CheckTLSNonLoopback) {
			want = check.NotChecked
		}
		if r.Status != want {
			t.Errorf("%s: %s: %s\n%s", r.ID, r.Status, r.Reason, strings.Join(r.Evidence.Notes, "\n"))
		}
	}
	replySchema := composeSchema(t, "ok")
	n := 0
	for _, line := range strings.Split(trace.String(), "\n") {
		_, msg, ok := strings.Cut(line, " <- ")
		if !ok {
			continue
		}
		var r struct {
			ID int             `json:"id"`
			OK json.RawMessage `json:"ok"`
		}
		if json.Unmarshal([]byte(msg), &r) != nil || r.ID == 0 || r.OK == nil {
			continue
		}
		n++
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(r.OK)))
		if err != nil {
			t.Fatal(err)
		}
		if err := replySchema.Validate(v); err != nil {
			t.Errorf("the Node host's reply %d does not follow the schema: %v", r.ID, err)
		}
	}
	if n < 13 {
		t.Errorf("%d compose replies in the trace", n)
	}
}

// syncBuffer is a buffer written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A host that leaves its stdio providers running after it replies is
// waited for (2 s), and the evidence says so.
func TestProvidersLeftRunningAreNoted(t *testing.T) {
	var mu sync.Mutex
	var started []*exec.Cmd
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range started {
			c.Process.Kill()
			c.Wait()
		}
	})
	// It starts each stdio provider, handshakes, and neither queries nor
	// stops it.
	lingering := fakeHost(func(ctx context.Context, req composeRequest) any {
		for _, p := range req.Providers {
			if p.Transport != "stdio" {
				continue
			}
			cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if cmd.Start() != nil {
				continue
			}
			mu.Lock()
			started = append(started, cmd)
			mu.Unlock()
			io.WriteString(in, `{"type":"handshake","protocol_version":"contextgraph/1.0"}`+"\n")
			bufio.NewReader(out).ReadString('\n')
		}
		return dropAll(ctx, req)
	})
	suite := load(t, "stdio").Suite
	suite.Checks = slices.DeleteFunc(suite.Checks, func(c check.Check) bool { return !strings.HasSuffix(c.ID, "/"+cgphost.CheckVersionReject) })
	run := checktest.Execute(t, suite, adapter.InProcess(lingering))
	r := run.Results[0]
	if r.Status != check.Fail || !slices.ContainsFunc(r.Evidence.Notes, func(n string) bool {
		return strings.Contains(n, "4 stdio provider(s) were still running 2s after the host replied")
	}) {
		t.Errorf("%s %s, notes:\n%s", r.Status, r.Reason, strings.Join(r.Evidence.Notes, "\n"))
	}
}
