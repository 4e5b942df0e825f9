package crosslink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/internal/sharedtest"
	xl "github.com/refereehq/referee/protocols/crosslink"
	"github.com/refereehq/referee/run"
)

func embeddedSuite(t *testing.T) *check.Suite {
	t.Helper()
	return loadDir(t, "").Suite
}

// loadDir loads the suite through Definition.Load from dir ("" for the
// embedded corpus).
func loadDir(t testing.TB, dir string) *check.Loaded {
	t.Helper()
	l, err := Definition.Load(check.LoadOptions{Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// upstreamSuite loads ../shared/corpora/crosslink, or skips.
func upstreamSuite(t *testing.T) *check.Suite {
	t.Helper()
	dir := sharedtest.Dir(t, "the upstream Crosslink fixtures live in ../shared/corpora/crosslink")
	return loadDir(t, filepath.Join(dir, "corpora", "crosslink")).Suite
}

func reference(t *testing.T, mode string) adapter.Starter {
	t.Helper()
	h, err := Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return adapter.InProcess(h)
}

func TestReferencePassesEmbedded(t *testing.T) {
	run := checktest.Run(t, embeddedSuite(t), reference(t, ""))
	if n := run.Counts(); n.Pass != len(run.Results) {
		t.Errorf("counts = %+v", n)
	}
}

func TestReferencePassesUpstream(t *testing.T) {
	dir := sharedtest.Dir(t, "the upstream Crosslink fixtures live in ../shared/corpora/crosslink")
	l := loadDir(t, filepath.Join(dir, "corpora", "crosslink"))
	run := checktest.Run(t, l.Suite, reference(t, ""))
	native, ok := l.Native(run, check.Spec{}).(*NativeReport)
	if !ok {
		t.Fatalf("Loaded.Native gives %T", l.Native(run, check.Spec{}))
	}
	if native.Passed != 31 || native.Failed != 0 || len(native.Failures) != 0 {
		t.Errorf("native report = %+v, want upstream's passed: 31", native)
	}
}

func TestEveryCheckCanFail(t *testing.T) {
	broken := map[string]adapter.Starter{}
	for _, m := range Definition.Modes {
		broken[m.Name] = reference(t, m.Name)
	}
	checktest.EveryCheckCanFail(t, embeddedSuite(t), broken)
}

func TestEmbeddedCorpusCoverage(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ReadCorpus(c)
	if err != nil {
		t.Fatal(err)
	}
	// Every message kind of the reference validator is a positive case.
	kinds := map[string]bool{}
	for _, m := range cp.Messages {
		v, err := xl.ParseValue(m.Obj)
		if err != nil {
			t.Fatal(err)
		}
		for _, mem := range v.Members {
			if mem.Key == "t" {
				kinds[mem.Value.Str] = true
			}
		}
	}
	for _, k := range xl.Kinds {
		if !kinds[k] {
			t.Errorf("no positive case of kind %s", k)
		}
	}
	// Every code the decoder can raise is a negative case, and every decode-order rule is there.
	codes := map[string]bool{}
	names := map[string]bool{}
	for _, n := range cp.Invalid {
		codes[n.Error] = true
		names[n.Name] = true
	}
	for _, code := range []string{xl.CodeParseError, xl.CodeInvalidMessage, xl.CodeVersionUnsupported} {
		if !codes[code] {
			t.Errorf("no negative case with %s", code)
		}
	}
	for _, want := range []string{"depth-65", "order-parse-before-depth", "order-depth-before-version", "order-version-before-structure", "invalid-utf8-byte",
		"invalid-json", "unknown-version", "unknown-type", "missing-request-id"} {
		if !names[want] {
			t.Errorf("no negative case %s", want)
		}
	}
	var limits []int
	for _, l := range cp.Limits {
		limits = append(limits, l.PayloadBytes)
	}
	if !slices.Contains(limits, xl.DefaultMaxFrameBytes) || !slices.Contains(limits, xl.DefaultMaxFrameBytes+1) {
		t.Errorf("limits %v lack the 4 MiB boundary", limits)
	}
}

// TestCorpusIsGenerated regenerates the corpus and requires the committed one
// to match: positives come from protocols/crosslink, never from a hand edit.
// With -update it writes corpus/ instead (invalid-v1.json, curated by hand,
// is only checked).
func TestCorpusIsGenerated(t *testing.T) {
	if testing.Short() && !golden.Update() {
		t.Skip("regenerating the corpus runs go run")
	}
	out := "corpus"
	if !golden.Update() {
		out = t.TempDir()
		raw, err := os.ReadFile("corpus/invalid-v1.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, InvalidFile), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := exec.Command("go", "run", "./gen", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	if golden.Update() {
		return
	}
	for _, f := range []string{MessagesFile, DecodeFile, LimitsFile, "manifest.json"} {
		generated, _ := os.ReadFile(filepath.Join(out, f))
		committed, err := os.ReadFile(filepath.Join("corpus", f))
		if err != nil || !bytes.Equal(committed, generated) {
			t.Errorf("suites/crosslink/corpus/%s is not what gen writes (go test ./suites/crosslink -run TestCorpusIsGenerated -update rewrites it):\n%s", f, golden.FirstDifference(committed, generated))
		}
	}
}

func TestReadCorpusErrors(t *testing.T) {
	const messages = `{"version":1,"cases":[{"name":"ping","obj":{"v":"1.0","t":"ping","ts":1},"canonical":"{}","frame_hex":"00000002"}]}`
	const invalid = `{"version":1,"cases":[{"name":"x","utf8":"{","error":"parse_error"}]}`
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"messages version 2", map[string]string{MessagesFile: strings.Replace(messages, `"version":1`, `"version":2`, 1), InvalidFile: invalid}, "messages-v1.json: version 2, want 1"},
		{"invalid version 0", map[string]string{MessagesFile: messages, InvalidFile: `{"version":0,"cases":[]}`}, "invalid-v1.json: version 0, want 1"},
		{"no invalid file", map[string]string{MessagesFile: messages}, "invalid-v1.json"},
		{"no messages file", map[string]string{InvalidFile: invalid}, "messages-v1.json"},
		{"missing canonical", map[string]string{MessagesFile: `{"version":1,"cases":[{"name":"a","obj":{},"frame_hex":"00000002"}]}`, InvalidFile: invalid}, `case 0 ("a"): needs obj, canonical and frame_hex`},
		{"bad hex frame", map[string]string{MessagesFile: `{"version":1,"cases":[{"name":"a","obj":{},"canonical":"{}","frame_hex":"xyz"}]}`, InvalidFile: invalid}, "frame_hex is not a hex frame"},
		{"duplicate name", map[string]string{MessagesFile: messages, InvalidFile: `{"version":1,"cases":[{"name":"x","utf8":"{","error":"parse_error"},{"name":"x","utf8":"[","error":"parse_error"}]}`}, `case 1 ("x"): duplicate name`},
		{"both utf8 and hex", map[string]string{MessagesFile: messages, InvalidFile: `{"version":1,"cases":[{"name":"x","utf8":"{","hex":"7b","error":"parse_error"}]}`}, "exactly one of utf8 and hex"},
		{"no code", map[string]string{MessagesFile: messages, InvalidFile: `{"version":1,"cases":[{"name":"x","utf8":"{"}]}`}, "no error code"},
		{"unknown member", map[string]string{MessagesFile: messages, InvalidFile: `{"version":1,"cases":[],"extra":true}`}, "unknown field"},
		{"limit too big", map[string]string{MessagesFile: messages, InvalidFile: invalid, LimitsFile: `{"version":1,"cases":[{"name":"a","payload_bytes":99999999}]}`}, "payload_bytes 99999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, body := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(body)}
			}
			c, err := corpus.Open(fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadCorpus(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("ReadCorpus error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

func TestNativeReport(t *testing.T) {
	run := checktest.Execute(t, embeddedSuite(t), reference(t, "version-late"))
	n := Native(run)
	if n.Failed == 0 || n.Failed != len(n.Failures) || n.Passed+n.Failed != len(run.Results) {
		t.Fatalf("native = passed %d failed %d (%d failures) for %d checks", n.Passed, n.Failed, len(n.Failures), len(run.Results))
	}
	var found bool
	for _, f := range n.Failures {
		if f.Case == "order-version-before-structure" {
			found = true
			if f.Operation != "negative" || f.Expected != "version_unsupported" || f.Actual != "invalid_message" {
				t.Errorf("failure = %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no failure for order-version-before-structure in %+v", n.Failures)
	}
	b, _ := json.Marshal(n)
	if !strings.HasPrefix(string(b), `{"passed":`) || !strings.Contains(string(b), `"operation":"negative"`) {
		t.Errorf("native JSON = %s", b)
	}
}

func TestFrameEvidence(t *testing.T) {
	s := embeddedSuite(t)
	var sel []check.Check
	for _, c := range s.Checks {
		if c.ID == "crosslink/cases/request/frame" {
			sel = append(sel, c)
		}
	}
	s.Checks = sel
	run := checktest.Execute(t, s, reference(t, "little-endian"))
	r := run.Results[0]
	if r.Status != check.Fail || r.Evidence.Diff == nil || r.Evidence.Diff.Offset != 0 {
		t.Fatalf("result = %+v", r)
	}
	if len(r.Evidence.Notes) == 0 || !strings.Contains(r.Evidence.Notes[0], "length prefix: expected 00000054 = 84, actual 54000000 = 1409286144 (but 84 payload bytes follow; read little-endian it is 84)") {
		t.Errorf("notes = %q", r.Evidence.Notes)
	}
}

// TestExampleAdapters runs the Node and Python adapters as child processes
// over the embedded corpus and, when present, upstream's.
func TestExampleAdapters(t *testing.T) {
	suites := []*check.Suite{embeddedSuite(t)}
	if _, ok := sharedtest.Lookup(); ok {
		suites = append(suites, upstreamSuite(t))
	}
	for _, a := range [][]string{
		{"node", "../../examples/adapters/node/crosslink.mjs"},
		{"python3", "../../examples/adapters/python/crosslink.py"},
	} {
		t.Run(a[0], func(t *testing.T) {
			if _, err := exec.LookPath(a[0]); err != nil {
				t.Skipf("%s not found", a[0])
			}
			if _, err := os.Stat(a[1]); err != nil {
				t.Skipf("%s: %v", a[1], err)
			}
			for _, s := range suites {
				cfg := adapter.ProcessConfig{Argv: a}
				run := checktest.Execute(t, s, func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) })
				for _, r := range run.Results {
					if r.Status != check.Pass {
						t.Errorf("%s: %s %s: %s", s.Corpus, r.ID, r.Status, r.Reason)
					}
				}
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	l := loadDir(t, "")
	for _, c := range l.Suite.Checks {
		if c.Level != check.Must || c.Clause == "" {
			t.Errorf("%s: level %q, clause %q", c.ID, c.Level, c.Clause)
		}
	}
	if l.Suite.Version != "1.0.0" || l.Native == nil || l.Reference == nil {
		t.Errorf("loaded = %+v", l)
	}
	if h, err := l.Reference("no-such-mode"); err == nil || h != nil || !strings.Contains(err.Error(), "codepoint-order") {
		t.Errorf("unknown mode: %v", err)
	}
	seen := map[string]bool{}
	for _, m := range Definition.Modes {
		if _, ok := brokenModes[m.Name]; !ok || seen[m.Name] || m.Doc == "" {
			t.Errorf("mode %q: undocumented, duplicated, or without behaviour", m.Name)
		}
		seen[m.Name] = true
	}
	if len(seen) != len(brokenModes) {
		t.Errorf("%d modes declared, %d behaviours", len(seen), len(brokenModes))
	}
	var ue *check.UsageError
	if _, err := run.Prepare(&Definition, check.Spec{}, run.Options{Flags: check.FlagValues{"vectors": "x"}}); !errors.As(err, &ue) {
		t.Errorf("a flag the suite does not have: %v, want a usage error", err)
	}
	if _, err := Definition.Load(check.LoadOptions{Corpus: filepath.Join(t.TempDir(), "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing corpus: %v", err)
	}
	if other := loadDir(t, ""); other.Suite == l.Suite || &other.Suite.Checks[0] == &l.Suite.Checks[0] {
		t.Error("two loads share their suite")
	}
}

// TestNativeThroughPipeline: the run pipeline renders upstream's report
// through Loaded.Native.
func TestNativeThroughPipeline(t *testing.T) {
	plan, err := run.Prepare(&Definition, check.Spec{Mode: "version-late"}, run.Options{Run: []string{"crosslink/invalid/order-version-before-structure"}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(t.Context())
	native, ok := res.Native()
	n, _ := native.(*NativeReport)
	if !ok || n == nil || n.Failed != 1 || n.Failures[0].Actual != "invalid_message" || res.ExitCode() != 1 {
		t.Errorf("native = %#v (exit %d)", native, res.ExitCode())
	}
}
