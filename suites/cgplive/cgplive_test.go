package cgplive_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
	"github.com/refereehq/referee/protocols/cgp/provider"
	"github.com/refereehq/referee/suites/cgplive"
)

// The test binary is also the provider: with these variables set it serves
// the documents in REFEREE_TEST_CGP_DOCS on stdio, misbehaving as told.
const (
	envMode    = "REFEREE_TEST_CGP_MODE"
	envDocs    = "REFEREE_TEST_CGP_DOCS"
	envHostile = "REFEREE_TEST_CGP_HOSTILE"
	envMarker  = "REFEREE_TEST_CGP_MARKER" // a directory the hostile lie-once provider makes
)

func TestMain(m *testing.M) {
	if name, ok := os.LookupEnv(envHostile); ok {
		os.Exit(hostile(name, os.Getenv(envDocs)))
	}
	if docs, ok := os.LookupEnv(envDocs); ok {
		p, err := provider.New(docs, os.Getenv(envMode))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func docsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := provider.WriteDocs(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func stdioTarget(docs, mode string) host.Target {
	return host.Target{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envDocs+"="+docs, envMode+"="+mode)}
}

// statuses returns each check's status by name.
func statuses(res *cgplive.Result) map[string]string {
	out := map[string]string{}
	for _, c := range res.Native.Checks {
		out[c.Name] = c.Status
	}
	return out
}

func names(m map[string]string, status string) []string {
	var out []string
	for n, s := range m {
		if s == status {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

const (
	handshake   = cgplive.CheckHandshake
	consent     = cgplive.CheckConsentScope
	validity    = cgplive.CheckFrameValidity
	verify      = cgplive.CheckVerifyHonesty
	budget      = cgplive.CheckBudgetHonesty
	asOf        = cgplive.CheckAsOfTemporal
	kinds       = cgplive.CheckKindsFilter
	anchors     = cgplive.CheckAnchorRelevance
	provenance  = cgplive.CheckProvenance
	shutdown    = cgplive.CheckShutdownClean
	malformed   = cgplive.CheckMalformedInput
	embedding   = cgplive.CheckEmbedding
	correlation = cgplive.CheckCorrelation
	attestation = cgplive.CheckAttestation
)

// modeFailures is, for every misbehaviour mode, exactly the checks it must
// fail: its own, plus those that necessarily follow.
var modeFailures = map[string][]string{
	"lying-costs":           {budget},
	"bad-score":             {validity},
	"empty-citation":        {validity},
	"bad-version":           {handshake, malformed}, // the others cannot run
	"crash-on-query":        {validity, verify, budget, asOf, kinds, anchors, provenance, shutdown, malformed, embedding, correlation, attestation},
	"crash-on-garbage":      {malformed},
	"mislabel-malformed":    {malformed},
	"under-report-cost":     {budget},
	"bad-timestamp":         {validity},
	"malformed-digest":      {validity},
	"stale-digest":          {provenance},
	"flood-frames":          {budget},
	"drop-correlation-id":   {correlation},
	"lying-representation":  {validity},
	"ignore-as-of":          {asOf},
	"ignore-valid-to":       {asOf},
	"accept-bad-embedding":  {embedding},
	"rubber-stamp-verify":   {verify},
	"hollow-verify":         {verify},
	"scope-lie":             {consent},
	"ignore-kinds":          {kinds},
	"ignore-anchors":        {anchors},
	"forge-signature":       {attestation},
	"lift-signature":        {attestation},
	"truncate-chain":        {attestation},
	"swap-content":          {attestation},
	"malformed-attestation": {attestation},
	"banner":                {handshake, malformed},
	"hang-on-shutdown":      {shutdown},
	"other-id":              {correlation},
	// Every check that reads a frames reply, and only those: the reply is
	// refused for the relation's missing rel.
	"misnamed-rel": {validity, verify, budget, asOf, kinds, anchors, provenance, malformed, correlation, attestation},
	// Held out (provider.HeldOut): every live check passes; only the fuzzed
	// sessions of referee fuzz cgp find them (TestFuzzFindsEveryMode).
	"crash-on-astral-goal": {},
	"kinds-single-only":    {},
	"as-of-whole-seconds":  {},
	"min-one-frame":        {},
}

// evidenceWords is a word each mode's failing evidence must contain, so a
// mode fails for its own reason and not another.
var evidenceWords = map[string]string{
	"lying-costs": "§B3", "under-report-cost": "§B3", "flood-frames": "§B4", "bad-score": "§F1",
	"empty-citation": "§F3", "bad-timestamp": "§F4", "malformed-digest": "§F5", "lying-representation": "§P2",
	"stale-digest": "do not match", "forge-signature": "BadSignature", "lift-signature": "frm_configuration): CommitmentMismatch",
	"truncate-chain": "CommitmentMismatch", "swap-content": "CommitmentMismatch", "malformed-attestation": "MalformedCommitment",
	"bad-version": "version mismatch", "banner": "not a CGP envelope", "mislabel-malformed": "not `bad_request`",
	"rubber-stamp-verify": "rubber stamp", "hollow-verify": "not valid", "scope-lie": "§C5", "ignore-kinds": "§Q1",
	"ignore-anchors": "§G4", "ignore-as-of": "valid_from", "ignore-valid-to": "valid_to", "accept-bad-embedding": "§E1",
	"drop-correlation-id": "no id", "other-id": "-x", "hang-on-shutdown": "did not exit", "crash-on-garbage": "crashed",
	"crash-on-query": "crashed", "misnamed-rel": `result.frames[0] (id "frm_`,
}

func TestHonestProviderOverStdio(t *testing.T) {
	t.Parallel()
	res := cgplive.Check(context.Background(), stdioTarget(docsDir(t), ""), nil)
	if !res.Execution.Complete {
		t.Fatal("run incomplete")
	}
	st := statuses(res)
	if len(st) != 14 {
		t.Fatalf("%d checks, want 14", len(st))
	}
	for _, c := range res.Native.Checks {
		if c.Status != "pass" {
			t.Errorf("%s: %s: %s", c.Name, c.Status, c.Evidence)
		}
	}
	if res.Native.Target != "stdio: "+os.Args[0] {
		t.Errorf("target %q", res.Native.Target)
	}
}

func TestHonestProviderOverHTTP(t *testing.T) {
	t.Parallel()
	p, err := provider.New(docsDir(t), "")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	res := cgplive.Check(context.Background(), host.Target{URL: srv.URL + "/contextgraph"}, nil)
	st := statuses(res)
	if got, want := names(st, "skipped"), []string{correlation, embedding, malformed}; !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v (the fresh-connection checks)", got, want)
	}
	if got := names(st, "fail"); len(got) > 0 {
		for _, c := range res.Native.Checks {
			if c.Status == "fail" {
				t.Errorf("%s: %s", c.Name, c.Evidence)
			}
		}
	}
	if n := len(names(st, "pass")); n != 11 {
		t.Errorf("%d passed over HTTP, want 11", n)
	}
}

func TestEveryModeFailsExactlyItsChecks(t *testing.T) {
	docs := docsDir(t)
	for _, m := range provider.Modes {
		want, ok := modeFailures[m.Name]
		if !ok {
			t.Errorf("mode %s: no expected failures listed in this test", m.Name)
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			res := cgplive.Check(context.Background(), stdioTarget(docs, m.Name), nil)
			st := statuses(res)
			got := names(st, "fail")
			w := slices.Clone(want)
			sort.Strings(w)
			if !slices.Equal(got, w) {
				t.Errorf("failed %v, want %v", got, w)
				for _, c := range res.Native.Checks {
					if c.Status == "fail" && !slices.Contains(w, c.Name) {
						t.Logf("  %s: %s", c.Name, c.Evidence)
					}
				}
			}
			if len(want) == 0 {
				if !provider.HeldOut(m.Name) {
					t.Errorf("mode %s fails no live check, but the provider does not say it is held out", m.Name)
				}
				if n := len(names(st, "pass")); n != 14 {
					t.Errorf("a held-out mode passes %d live checks, want all 14", n)
				}
				return
			}
			word, ok := evidenceWords[m.Name]
			if !ok {
				t.Fatalf("mode %s: no evidence word listed in this test", m.Name)
			}
			found := false
			for _, c := range res.Native.Checks {
				if c.Status == "fail" && c.Name == want[0] && strings.Contains(c.Evidence, word) {
					found = true
				}
			}
			if !found {
				t.Errorf("the %s failure does not say %q", want[0], word)
			}
			// Everything that did not fail is a pass, or not-checked because it
			// could not run.
			for _, c := range res.Native.Checks {
				if c.Status == "skipped" && c.Evidence != "handshake failed" && !strings.HasPrefix(c.Evidence, "handshake failed:") {
					t.Errorf("%s skipped for another reason: %s", c.Name, c.Evidence)
				}
			}
		})
	}
	for name := range modeFailures {
		if !slices.ContainsFunc(provider.Modes, func(m provider.Mode) bool { return m.Name == name }) {
			t.Errorf("this test lists mode %s, which the provider does not have", name)
		}
	}
}

func TestSelection(t *testing.T) {
	t.Parallel()
	all := allChecks(t)
	sel, err := check.Select(all, []string{"cgp/attestation", "cgp/budget-honesty"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := cgplive.Check(context.Background(), stdioTarget(docsDir(t), ""), sel)
	if len(res.Execution.Results) != 2 {
		t.Fatalf("%d results, want 2", len(res.Execution.Results))
	}
	for _, r := range res.Execution.Results {
		if r.Status != check.Pass {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Reason)
		}
	}
}

func TestUnstartableProviderIsIncomplete(t *testing.T) {
	t.Parallel()
	res := cgplive.Check(context.Background(), host.Target{Argv: []string{"/nonexistent/referee-test-provider"}}, nil)
	if res.Execution.Complete || !res.Unreachable {
		t.Error("a provider that cannot start gave a complete run")
	}
	for _, r := range res.Execution.Results {
		if r.Status != check.Error || !strings.Contains(r.Reason, "could not be started") {
			t.Errorf("%s: %s %s, want an error: the provider could not be started", r.ID, r.Status, r.Reason)
		}
	}
}

// allChecks returns the suite's checks.
func allChecks(t testing.TB) []check.Check {
	t.Helper()
	l, err := cgplive.Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Suite.Checks
}

func TestRefusesPlainHTTPOffLoopback(t *testing.T) {
	t.Parallel()
	res := cgplive.Check(context.Background(), host.Target{URL: "http://192.0.2.1/contextgraph"}, nil)
	if c := res.Native.Checks[0]; c.Status != "fail" || !strings.Contains(c.Evidence, "insecure transport") {
		t.Errorf("handshake %s: %s", c.Status, c.Evidence)
	}
}

// BenchmarkRunStdio runs the whole suite against referee's provider as a
// child process (four processes per run: the main connection and three fresh).
func BenchmarkRunStdio(b *testing.B) {
	dir := b.TempDir()
	if err := provider.WriteDocs(dir); err != nil {
		b.Fatal(err)
	}
	target := stdioTarget(dir, "")
	for b.Loop() {
		res := cgplive.Check(context.Background(), target, nil)
		if res.Execution.Counts().Pass != 14 {
			b.Fatalf("%+v", res.Execution.Counts())
		}
	}
}

// BenchmarkRunHTTP runs the suite against the provider over HTTP.
func BenchmarkRunHTTP(b *testing.B) {
	dir := b.TempDir()
	if err := provider.WriteDocs(dir); err != nil {
		b.Fatal(err)
	}
	p, err := provider.New(dir, "")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	for b.Loop() {
		res := cgplive.Check(context.Background(), host.Target{URL: srv.URL}, nil)
		if res.Execution.Counts().Pass != 11 {
			b.Fatalf("%+v", res.Execution.Counts())
		}
	}
}

// TestNoFramesIsNotAPass: a provider with nothing to serve cannot pass the
// checks that judge frames.
func TestNoFramesIsNotAPass(t *testing.T) {
	t.Parallel()
	res := cgplive.Check(context.Background(), stdioTarget(t.TempDir(), ""), nil)
	st := statuses(res)
	for _, n := range []string{validity, verify, budget, asOf, kinds, anchors, provenance} {
		if st[n] != "skipped" {
			t.Errorf("%s: %s with no frames, want skipped", n, st[n])
		}
	}
	if got := names(st, "fail"); len(got) > 0 {
		t.Errorf("failed %v", got)
	}
}

// hostile runs referee's honest provider behind a filter that rewrites its
// replies the way a hostile or broken provider would.
func hostile(name, docs string) int {
	p, err := provider.New(docs, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { p.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	go func() {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(nil, 1<<20)
		for in.Scan() {
			line := in.Bytes()
			if name == "refuse-unknown" && bytes.Contains(line, []byte(`"frame_id":"referee-unknown-`)) {
				// A verify naming a frame never served is refused whole.
				fmt.Println(`{"type":"error","code":"bad_request","message":"unknown frame"}`)
				continue
			}
			if name == "garbage-frames-crash" && !json.Valid(line) {
				fmt.Println(`{"type":"frames","result":{"frames":[],"truncated":false}}`)
				os.Exit(3)
			}
			inW.Write(append(line, '\n'))
		}
		inW.Close()
	}()
	out := bufio.NewScanner(outR)
	out.Buffer(nil, 16<<20)
	for out.Scan() {
		line := out.Bytes()
		env, err := cgp.DecodeEnvelope(line)
		if err == nil {
			switch {
			case name == "big-line" && env.Type == cgp.TypeHandshakeAck:
				os.Stdout.Write(bytes.Repeat([]byte("x"), cgp.MaxLine+10))
				os.Stdout.Write([]byte("\n"))
				time.Sleep(time.Minute) // a provider that stays alive
				continue
			case name == "verify-bodies" && env.Type == cgp.TypeVerified:
				line = bytes.ReplaceAll(line, []byte(`"status":`), []byte(`"content":"the frame's body","status":`))
			case name == "verify-deep-bodies" && env.Type == cgp.TypeVerified:
				line = bytes.Replace(line, []byte(`"response":{`), []byte(`"response":{"frames":[{"id":"x","title":"the frame's title"}],`), 1)
			case name == "lie-once" && env.Type == cgp.TypeFrames && len(env.Result.Frames) > 0:
				// The first frames reply of all the processes that share
				// the marker's directory misdeclares a cost; no other does.
				if os.Mkdir(os.Getenv(envMarker), 0o755) == nil {
					env.Result.Frames[0].TokenCost++
					line, _ = cgp.Encode(env)
				}
			case name == "null-result" && env.Type == cgp.TypeFrames:
				line = []byte(`{"type":"frames","result":null}`)
			case name == "dev-zero" && env.Type == cgp.TypeFrames:
				for i := range env.Result.Frames {
					env.Result.Frames[i].Provenance[0].URI = cgp.Str("file:///dev/zero")
				}
				line, _ = cgp.Encode(env)
			case name == "forge-lines" && env.Type == cgp.TypeFrames:
				// Frame ids and provenance URIs that would forge report lines;
				// the first frame's digest is wrong, so that provenance fails
				// with the others' URIs in its evidence notes.
				for i := range env.Result.Frames {
					f := &env.Result.Frames[i]
					f.ID = "f\nPASS  cgp/forged\r\x1b[2KCONFORMANT"
					if i == 0 {
						f.Provenance[0].Digest = cgp.Str("sha256:" + strings.Repeat("0", 64))
					} else {
						f.Provenance[0].URI = cgp.Str("file:///x\nPASS  cgp/forged-uri\nCONFORMANT")
					}
				}
				line, _ = cgp.Encode(env)
			case name == "weak-key" && env.Type == cgp.TypeHandshakeAck:
				// The identity point as the key: R = identity, S = 0 verifies
				// any message under it for a verifier that is not strict.
				env.AttesterKeys[0].PublicKey = "01" + strings.Repeat("00", 31)
				line, _ = cgp.Encode(env)
			case name == "weak-key" && env.Type == cgp.TypeFrames:
				forged := "01" + strings.Repeat("00", 63)
				for i := range env.Result.FrameAttestations {
					env.Result.FrameAttestations[i].Attestation.Signature = forged
				}
				env.Result.ResultAttestation.Signature = forged
				line, _ = cgp.Encode(env)
			case name == "hollow-attestations" && env.Type == cgp.TypeFrames:
				for i := range env.Result.FrameAttestations {
					env.Result.FrameAttestations[i].Attestation = nil
					env.Result.FrameAttestations[i].InclusionProof = nil
				}
				env.Result.ResultAttestation = nil
				line, _ = cgp.Encode(env)
			}
		}
		os.Stdout.Write(append(line, '\n'))
	}
	return 0
}

func hostileTarget(docs, name string) host.Target {
	return host.Target{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envDocs+"="+docs, envHostile+"="+name)}
}

// TestHostileProviders: what a broken provider does is a verdict, never a
// panic or a hang.
func TestHostileProviders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/zero")
	}
	docs := docsDir(t)
	for _, tc := range []struct {
		name  string
		run   []string
		want  map[string]string // check -> status
		words map[string]string // check -> a word its evidence has
	}{
		{"null-result", nil,
			map[string]string{validity: "fail", asOf: "fail", kinds: "fail", anchors: "fail", attestation: "fail"},
			map[string]string{asOf: "without a result"}},
		{"dev-zero", []string{"cgp/provenance-fixture-consistency"},
			map[string]string{provenance: "skipped"}, map[string]string{provenance: "not a regular file"}},
		{"big-line", []string{"cgp/handshake"},
			map[string]string{handshake: "fail"}, map[string]string{handshake: "longer than"}},
		{"garbage-frames-crash", []string{"cgp/malformed-input-tolerance"},
			map[string]string{malformed: "fail"}, map[string]string{malformed: "broke"}},
		{"verify-bodies", []string{"cgp/verify-honesty"},
			map[string]string{verify: "fail"}, map[string]string{verify: "response.verdicts[0].content"}},
		{"verify-deep-bodies", []string{"cgp/verify-honesty"},
			map[string]string{verify: "fail"}, map[string]string{verify: "response.frames[0].title"}},
		{"hollow-attestations", []string{"cgp/attestation"},
			map[string]string{attestation: "skipped"}, map[string]string{attestation: "no attestation or inclusion proof"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sel []check.Check
			if tc.run != nil {
				var err error
				if sel, err = check.Select(allChecks(t), tc.run, nil); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res := cgplive.Check(ctx, hostileTarget(docs, tc.name), sel)
			ev := map[string]string{}
			for _, c := range res.Native.Checks {
				ev[c.Name] = c.Evidence
			}
			st := statuses(res)
			for n, want := range tc.want {
				if st[n] != want {
					t.Errorf("%s: %s, want %s: %s", n, st[n], want, ev[n])
				}
			}
			for n, w := range tc.words {
				if !strings.Contains(ev[n], w) {
					t.Errorf("%s evidence %q lacks %q", n, ev[n], w)
				}
			}
		})
	}
}

// TestInterruptedRunIsNotAVerdict: a run cancelled in the middle of a check
// blames the interruption, not the provider, and is incomplete.
func TestInterruptedRunIsNotAVerdict(t *testing.T) {
	t.Parallel()
	sel, err := check.Select(allChecks(t), []string{"cgp/shutdown-clean", "cgp/correlation"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	res := cgplive.Check(ctx, stdioTarget(docsDir(t), "hang-on-shutdown"), sel)
	if res.Execution.Complete || !res.Interrupted || res.Unreachable {
		t.Fatalf("complete %v, interrupted %v, unreachable %v", res.Execution.Complete, res.Interrupted, res.Unreachable)
	}
	for _, r := range res.Execution.Results {
		if r.Status != check.Error || !strings.Contains(r.Reason, "interrupted") {
			t.Errorf("%s: %s %q, want an error saying the run was interrupted", r.ID, r.Status, r.Reason)
		}
	}
}

// TestWeakKeyAttestationIsAShould: attestations that verify under a
// small-order key, as crypto/ed25519 verifies, and that only a strict
// verifier refuses fail attestation as a should (§6.5.4), not a must.
func TestWeakKeyAttestationIsAShould(t *testing.T) {
	t.Parallel()
	sel, err := check.Select(allChecks(t), []string{"cgp/attestation"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := cgplive.Check(context.Background(), hostileTarget(docsDir(t), "weak-key"), sel)
	r := res.Execution.Results[0]
	if r.Status != check.Fail || r.Level != check.Should || !strings.Contains(r.Reason, "MalformedKey") || !slices.ContainsFunc(r.Evidence.Notes, func(n string) bool { return strings.Contains(n, "strict verifier") }) {
		t.Errorf("%s %s: %s %v, want a should failure (MalformedKey) noting the strict verifier", r.Status, r.Level, r.Reason, r.Evidence.Notes)
	}
	if c := res.Execution.Counts(); c.Warn != 1 || c.Fail != 0 {
		t.Errorf("counts %+v, want one warning", c)
	}
	// A forged signature under an honest key is a must failure.
	honest := cgplive.Check(context.Background(), stdioTarget(docsDir(t), "forge-signature"), sel).Execution.Results[0]
	if honest.Status != check.Fail || honest.Level != check.Must {
		t.Errorf("forge-signature: %s %s", honest.Status, honest.Level)
	}
}

// TestLevelsAndClauses: every check has a level and a clause that names its
// source (upstream's SPEC, by rule or section); embedding-fingerprint is the
// one should (E1 says SHOULD), the others are musts.
func TestLevelsAndClauses(t *testing.T) {
	t.Parallel()
	for _, c := range allChecks(t) {
		want := check.Must
		if c.ID == "cgp/"+embedding {
			want = check.Should
		}
		if c.Level != want {
			t.Errorf("%s: level %q, want %s", c.ID, c.Level, want)
		}
		if !strings.HasPrefix(c.Clause, "CGP SPEC ") {
			t.Errorf("%s: clause %q does not start with its source", c.ID, c.Clause)
		}
		if want == check.Should && !strings.Contains(c.Clause, "SHOULD") {
			t.Errorf("%s: a should check whose clause has no SHOULD: %q", c.ID, c.Clause)
		}
	}
}
