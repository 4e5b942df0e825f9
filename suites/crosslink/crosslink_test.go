package crosslink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
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
	run := checktest.RunSuite(t, embeddedSuite(t), reference(t, ""))
	if n := run.Counts(); n.Pass != len(run.Results) {
		t.Errorf("counts = %+v", n)
	}
}

func TestReferencePassesUpstream(t *testing.T) {
	dir := sharedtest.Dir(t, "the upstream Crosslink fixtures live in ../shared/corpora/crosslink")
	l := loadDir(t, filepath.Join(dir, "corpora", "crosslink"))
	run := checktest.RunSuite(t, l.Suite, reference(t, ""))
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
	for _, m := range Definition.ModeList() {
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
	// Underflow is a positive case: 1e-400 is 0, not a refusal.
	var underflow bool
	for _, m := range cp.Messages {
		underflow = underflow || (strings.Contains(string(m.Obj), "1e-400") && strings.Contains(m.Canonical, `"a":0`))
	}
	if !underflow {
		t.Error("no positive case writes 1e-400 as 0")
	}
	// The values to refuse hold a number beyond double range in every
	// position and in every lexeme form.
	where := map[string]bool{}
	for _, r := range cp.Refuse {
		v, err := xl.ParseValue([]byte(r.Text))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range overflows(v, "top", 0) {
			where[o] = true
		}
	}
	for _, want := range []string{"top", "top-level member", "element", "nested", "lexeme 1e309", "lexeme -1e400", "lexeme 1E+400", "lexeme of 300 digits or more", "lexeme with a fraction"} {
		if !where[want] {
			t.Errorf("no value to refuse with an overflowing number: %s (have %v)", want, where)
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

// overflows describes each number in v beyond double range: what holds it
// (nothing: it is the top-level value; an object: a member; an array: an
// element), whether it is nested below the top-level value's own members,
// and its lexeme's form.
func overflows(v canon.Value, at string, depth int) []string {
	var out []string
	switch v.Kind {
	case canon.Number:
		if f, _ := strconv.ParseFloat(v.Num, 64); math.IsInf(f, 0) {
			out = append(out, at, "lexeme "+v.Num)
			if len(v.Num) >= 300 {
				out = append(out, "lexeme of 300 digits or more")
			}
			if strings.Contains(v.Num, ".") {
				out = append(out, "lexeme with a fraction")
			}
			if depth > 1 {
				out = append(out, "nested")
			} else if at == "member" {
				out = append(out, "top-level member")
			}
		}
	case canon.Array:
		for _, e := range v.Elems {
			out = append(out, overflows(e, "element", depth+1)...)
		}
	case canon.Object:
		for _, m := range v.Members {
			out = append(out, overflows(m.Value, "member", depth+1)...)
		}
	}
	return out
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
	for _, f := range []string{MessagesFile, DecodeFile, LimitsFile, RefuseFile, "manifest.json"} {
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
		{"refuse version 2", map[string]string{MessagesFile: messages, InvalidFile: invalid, RefuseFile: `{"version":2,"cases":[]}`}, "refuse-v1.json: version 2, want 1"},
		{"refuse without text", map[string]string{MessagesFile: messages, InvalidFile: invalid, RefuseFile: `{"version":1,"cases":[{"name":"a","doc":"d"}]}`}, `refuse-v1.json: case 0 ("a"): no value_text`},
		{"refuse text not JSON", map[string]string{MessagesFile: messages, InvalidFile: invalid, RefuseFile: `{"version":1,"cases":[{"name":"a","value_text":"[1e400"}]}`}, `refuse-v1.json: case 0 ("a"): value_text is not JSON`},
		{"refuse value inline", map[string]string{MessagesFile: messages, InvalidFile: invalid, RefuseFile: `{"version":1,"cases":[{"name":"a","value":1e400}]}`}, "unknown field"},
		{"refuse duplicate name", map[string]string{MessagesFile: messages, InvalidFile: invalid, RefuseFile: `{"version":1,"cases":[{"name":"a","value_text":"1e400"},{"name":"a","value_text":"1e309"}]}`}, `refuse-v1.json: case 1 ("a"): duplicate name`},
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
	for _, m := range Definition.ModeList() {
		if _, ok := brokenModes.Get()[m.Name]; !ok || seen[m.Name] || m.Doc == "" {
			t.Errorf("mode %q: undocumented, duplicated, or without behaviour", m.Name)
		}
		seen[m.Name] = true
	}
	if len(seen) != len(brokenModes.Get()) {
		t.Errorf("%d modes declared, %d behaviours", len(seen), len(brokenModes.Get()))
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
	plan, err := run.Prepare(&Definition, check.Spec{Mode: "version-late"}, run.Options{Select: []string{"crosslink/invalid/order-version-before-structure"}})
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

// fixedReply is an adapter that answers every op with one reply, and
// keeps the args of the last request in args, when set.
type fixedReply struct {
	ok   json.RawMessage
	err  *adapter.Error
	args *[]byte
}

func (f fixedReply) Hello() adapter.Hello {
	return adapter.Hello{Name: "fixed", Version: "0", Ops: []string{OpCanonical, OpFrame, OpDecode}}
}

func (f fixedReply) Handle(_ context.Context, _ string, args []byte) (json.RawMessage, *adapter.Error) {
	if f.args != nil {
		*f.args = append([]byte(nil), args...)
	}
	return f.ok, f.err
}

// TestRefuseChecks: a refusal passes whatever its code; any ok fails, with
// what was written.
func TestRefuseChecks(t *testing.T) {
	r := Refusal{Name: "x", Text: `{"p":1e400}`}
	tests := []struct {
		name   string
		op     string
		reply  fixedReply
		status check.Status
		reason string
		actual string
		note   string
	}{
		{"no code", OpCanonical, fixedReply{err: &adapter.Error{Message: "TypeError: canonicalJson: non-finite number"}}, check.Pass, "", "", ""},
		{"a Crosslink code", OpCanonical, fixedReply{err: &adapter.Error{Code: "invalid_message", Message: "m"}}, check.Pass, "", "", ""},
		{"null written", OpCanonical, fixedReply{ok: json.RawMessage(`"{\"p\":null}"`)}, check.Fail, "canonicalJson wrote text for a value it must refuse", `"{\"p\":null}"`, ""},
		{"not a string", OpCanonical, fixedReply{ok: json.RawMessage(`{"p":1e400}`)}, check.Fail, "canonicalJson wrote text for a value it must refuse", `{"p":1e400}`, ""},
		{"frame refused", OpFrame, fixedReply{err: &adapter.Error{Message: "TypeError"}}, check.Pass, "", "", ""},
		{"frame of the lexeme", OpFrame, fixedReply{ok: json.RawMessage(`"0000000b7b2270223a31653430307d"`)}, check.Fail, "encodeFrame framed a value it must refuse", `"0000000b7b2270223a31653430307d"`, `the frame's payload as text: "{\"p\":1e400}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := refuseCheck(r, tt.op)
			s := &check.Suite{Name: Name, Checks: []check.Check{c}}
			res := checktest.Execute(t, s, adapter.InProcess(tt.reply)).Results[0]
			if res.Status != tt.status || res.Reason != tt.reason || res.Actual != tt.actual {
				t.Fatalf("%s: %s %q, actual %q", res.ID, res.Status, res.Reason, res.Actual)
			}
			if tt.status == check.Fail && (res.Expected != "err (a refusal)" || len(res.Evidence.Notes) == 0 || res.Evidence.Notes[0] != refuseNote) {
				t.Errorf("expected %q, notes %q", res.Expected, res.Evidence.Notes)
			}
			if tt.note != "" && !slices.Contains(res.Evidence.Notes, tt.note) {
				t.Errorf("notes %q lack %q", res.Evidence.Notes, tt.note)
			}
		})
	}
	// The request carries the text beside the value, the lexeme in both.
	var args []byte
	s := &check.Suite{Name: Name, Checks: []check.Check{refuseCheck(r, OpFrame)}}
	checktest.Execute(t, s, adapter.InProcess(fixedReply{err: &adapter.Error{}, args: &args}))
	if want := `{"value":{"p":1e400},"value_text":"{\"p\":1e400}"}`; string(args) != want {
		t.Errorf("args %s, want %s", args, want)
	}
	if id := s.Checks[0].ID; id != "crosslink/refuse/x/frame" {
		t.Errorf("ID %s", id)
	}
	if name, op := nativeName("crosslink/refuse/x/canonical"); name != "x" || op != "canonical" {
		t.Errorf("native name %s, %s", name, op)
	}
}

// TestFuzzVectors: an input whose canonical JSON the reference refuses
// becomes a refuse-v1.json case, from either target; other inputs make the
// vectors they made before.
func TestFuzzVectors(t *testing.T) {
	tests := []struct {
		name   string
		vector func(string, []byte) (any, bool)
		input  string
		file   string
		text   string // the refuse case's value_text
		ids    []string
	}{
		{"message beyond range", messageVector, `{"v":"1.0","t":"res","i":"A","p":[1E400]}`, RefuseFile, `{"v":"1.0","t":"res","i":"A","p":[1E400]}`,
			[]string{"crosslink/refuse/v/canonical", "crosslink/refuse/v/frame"}},
		{"value beyond range", messageVector, `-1e309`, RefuseFile, `-1e309`, []string{"crosslink/refuse/v/canonical", "crosslink/refuse/v/frame"}},
		{"message underflowing", messageVector, `{"v":"1.0","t":"res","i":"A","p":1e-400}`, MessagesFile, "",
			[]string{"crosslink/cases/v/canonical", "crosslink/cases/v/frame", "crosslink/cases/v/decode"}},
		{"payload beyond range", decodeVector, "\ufeff{ \"v\":\"1.0\", \"t\":\"bye\", \"x\":1e400, \"x\":-1e999 }", RefuseFile, `{"v":"1.0","t":"bye","x":-1e999}`,
			[]string{"crosslink/refuse/v/canonical", "crosslink/refuse/v/frame"}},
		{"ping ts beyond range", decodeVector, `{"v":"1.0","t":"ping","ts":1e400}`, InvalidFile, "", []string{"crosslink/invalid/v"}},
		{"payload in range", decodeVector, `{"v":"1.0","t":"bye","x":1e308}`, DecodeFile, "", []string{"crosslink/decode/v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry, ok := tt.vector("v", []byte(tt.input))
			if !ok {
				t.Fatal("no vector")
			}
			checks, err := check.FuzzChecks(&Definition, Definition.Fuzz, entry)
			if err != nil {
				t.Fatal(err)
			}
			e := entry.(fuzzEntry)
			if e.File != tt.file {
				t.Fatalf("file %s, want %s", e.File, tt.file)
			}
			if c, isRefuse := e.Case.(fuzzRefuseCase); isRefuse && c.ValueText != tt.text {
				t.Errorf("value_text %s, want %s", c.ValueText, tt.text)
			}
			var ids []string
			for _, c := range checks {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("checks %v, want %v", ids, tt.ids)
			}
			// The reference passes its own vector.
			s := &check.Suite{Name: Name, Checks: checks}
			for _, r := range checktest.Execute(t, s, reference(t, "")).Results {
				if r.Status != check.Pass {
					t.Errorf("%s: %s %s", r.ID, r.Status, r.Reason)
				}
			}
		})
	}
}
