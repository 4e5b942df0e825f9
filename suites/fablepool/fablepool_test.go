package fablepool

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/internal/sharedtest"
)

func shared(t *testing.T) string {
	t.Helper()
	dir := sharedtest.Dir(t, "the FablePool draft data and Wycheproof vectors live in ../shared/corpora")
	return filepath.Join(dir, "corpora")
}

func reference(t *testing.T, mode string) adapter.Starter {
	t.Helper()
	h, err := Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return adapter.InProcess(h)
}

// loadDir loads the suite through Definition.Load from dir ("" for the
// embedded corpus) with flags.
func loadDir(t *testing.T, dir string, flags check.FlagValues) *check.Loaded {
	t.Helper()
	l, err := Definition.Load(check.LoadOptions{Corpus: dir, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// loadSuite is the suite from its embedded corpus, with flags.
func loadSuite(t *testing.T, flags check.FlagValues) *check.Suite {
	t.Helper()
	return loadDir(t, "", flags).Suite
}

// embeddedData is the embedded corpus's vectors, as read.
func embeddedData(t *testing.T) *corpusData {
	t.Helper()
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := readCorpus(c)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// wycheproofFlags adds --wycheproof with ../shared's file when REFEREE_SHARED is set.
func wycheproofFlags() check.FlagValues {
	flags := check.FlagValues{}
	if dir, ok := sharedtest.Lookup(); ok {
		flags[FlagWycheproof] = filepath.Join(dir, "corpora", "ed25519", "wycheproof_ed25519_test.json")
	}
	return flags
}

// readRecordedFile reads a file --record wrote.
func readRecordedFile(t *testing.T, path string) *Recorded {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Recorded
	if err := corpus.DecodeJSON(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

func TestReferencePasses(t *testing.T) {
	s := loadSuite(t, nil)
	run := checktest.RunSuite(t, s, reference(t, ""))
	if n := run.Counts(); n.Pass != len(s.Checks) {
		t.Errorf("counts = %+v", n)
	}
}

func TestEveryCheckCanFail(t *testing.T) {
	s := loadSuite(t, wycheproofFlags())
	broken := map[string]adapter.Starter{}
	for _, m := range Modes {
		broken[m.Name] = reference(t, m.Name)
	}
	checktest.EveryCheckCanFail(t, s, broken)
}

// TestRecordedAgreesWithIndependentDraft compares referee's ground truth
// (made by protocols/fablepool) with ../shared's, made independently in
// Python with OpenSSL: two implementations of the profile, byte for byte.
func TestRecordedAgreesWithIndependentDraft(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(shared(t), "fablepool", "draft-recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	var theirs Recorded
	if err := json.Unmarshal(raw, &theirs); err != nil {
		t.Fatal(err)
	}
	ours := embeddedData(t).Recorded
	index := func(v any) map[string]any {
		out := map[string]any{}
		rv := reflect.ValueOf(v)
		for i := range rv.Len() {
			e := rv.Index(i)
			out[e.FieldByName("Name").String()] = e.Interface()
		}
		return out
	}
	compare := func(section string, mine, draft map[string]any) {
		for name, d := range draft {
			if m, ok := mine[name]; !ok {
				t.Errorf("%s: the draft's %s is not in referee's corpus", section, name)
			} else if !reflect.DeepEqual(m, d) {
				t.Errorf("%s[%s]: referee %+v, draft %+v", section, name, m, d)
			}
		}
	}
	compare("canonicalization", index(ours.Canonicalization), index(theirs.Canonicalization))
	compare("signing", index(ours.Signing), index(theirs.Signing))
	compare("op_scenarios", index(ours.OpScenarios.Ops), index(theirs.OpScenarios.Ops))
	if ours.OpScenarios.Author != theirs.OpScenarios.Author {
		t.Errorf("author %s, draft %s", ours.OpScenarios.Author, theirs.OpScenarios.Author)
	}
	if len(theirs.Canonicalization) != 20 || len(theirs.Signing) != 8 || len(theirs.OpScenarios.Ops) != 2 {
		t.Errorf("the draft has %d/%d/%d entries", len(theirs.Canonicalization), len(theirs.Signing), len(theirs.OpScenarios.Ops))
	}
}

// TestEmbeddedHoldsTheDraft requires every draft vector and scenario under
// the same name with the same inputs and verdicts.
func TestEmbeddedHoldsTheDraft(t *testing.T) {
	dir := filepath.Join(shared(t), "fablepool")
	c, err := corpus.OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	draft, err := readCorpus(c)
	if err != nil {
		t.Fatal(err)
	}
	ours := embeddedData(t)
	canonByName := map[string]CanonVector{}
	for _, v := range ours.Canonicalization {
		canonByName[v.Name] = v
	}
	for _, d := range draft.Canonicalization {
		o, ok := canonByName[d.Name]
		if !ok || deref(o.Canonical) != deref(d.Canonical) || o.Error != d.Error || o.CanonicalSHA256 != d.CanonicalSHA256 {
			t.Errorf("canonicalization %s: ours %+v, draft %+v", d.Name, o, d)
		}
	}
	signByName := map[string]SignVector{}
	for _, v := range ours.Signing {
		signByName[v.Name] = v
	}
	for _, d := range draft.Signing {
		if o := signByName[d.Name]; o != d {
			t.Errorf("signing %s: ours %+v, draft %+v", d.Name, o, d)
		}
	}
	scenByName := map[string]Scenario{}
	for _, v := range ours.Scenarios.Vectors {
		scenByName[v.Name] = v
	}
	for _, d := range draft.Scenarios.Vectors {
		o, ok := scenByName[d.Name]
		if !ok || o.Expect != d.Expect || o.ExpectedError != d.ExpectedError || len(o.Mutations) != len(d.Mutations) {
			t.Errorf("scenario %s: ours %+v, draft %+v", d.Name, o, d)
		}
	}
	if draft.Scenarios.Seed != ours.Scenarios.Seed || draft.Scenarios.TS != ours.Scenarios.TS {
		t.Errorf("seed/ts differ")
	}
	// The draft directory itself runs as a corpus and passes.
	checktest.RunSuite(t, loadDir(t, dir, nil).Suite, reference(t, ""))
}

func TestEmbeddedCoverage(t *testing.T) {
	cp := embeddedData(t)
	names := map[string]bool{}
	for _, s := range cp.Scenarios.Vectors {
		names[s.Name] = true
	}
	for _, want := range []string{"zeroed-signature", "tampered-payload", "swapped-id", "flipped-type", "deleted-v", "deleted-sig",
		"rewritten-prev-replaced", "prev-reordered", "prev-three-rotated", "tampered-payload-recomputed-id", "swapped-author", "payload-float"} {
		if !names[want] {
			t.Errorf("no scenario %s", want)
		}
	}
	rfc := 0
	for _, v := range cp.Signing {
		if strings.HasPrefix(v.Name, "rfc8032-") {
			rfc++
		}
	}
	if rfc != 5 {
		t.Errorf("%d RFC 8032 §7.1 vectors, want all 5", rfc)
	}
}

func TestWycheproof(t *testing.T) {
	file := filepath.Join(shared(t), "ed25519", "wycheproof_ed25519_test.json")
	s := loadSuite(t, check.FlagValues{FlagWycheproof: file})
	n := 0
	for _, c := range s.Checks {
		if strings.HasPrefix(c.ID, "fablepool/wycheproof/") {
			n++
		}
	}
	if n != 151 {
		t.Fatalf("%d Wycheproof checks, want 151", n)
	}
	checktest.RunSuite(t, s, reference(t, ""))
}

// record runs the suite from dir ("" for the embedded corpus) with
// --record against start, completely, and returns what After wrote.
func record(t *testing.T, dir string, start adapter.Starter, implementation string) *Recorded {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recorded.json")
	l := loadDir(t, dir, check.FlagValues{FlagRecord: path})
	run := checktest.Execute(t, l.Suite, start)
	if err := l.After(check.AfterRun{Execution: run, Implementation: implementation, Full: true}); err != nil {
		t.Fatal(err)
	}
	return readRecordedFile(t, path)
}

// TestRecordEqualsDraft runs --record over the draft corpus and requires the
// file the profile says two implementations must agree on: equal to the
// draft's recorded.json but for "implementation".
func TestRecordEqualsDraft(t *testing.T) {
	dir := filepath.Join(shared(t), "fablepool")
	want := readRecordedFile(t, filepath.Join(dir, "draft-recorded.json"))
	got := record(t, dir, reference(t, ""), want.Implementation)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("--record over the draft corpus differs from draft-recorded.json:\n%.600s\n%.600s", a, b)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	truth := embeddedData(t).Recorded
	got := record(t, "", reference(t, ""), "referee-fablepool 1.0.0")
	if got.Implementation != "referee-fablepool 1.0.0" {
		t.Errorf("implementation = %q, want the one After was given", got.Implementation)
	}
	got.Implementation = truth.Implementation
	if !reflect.DeepEqual(got, truth) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(truth)
		t.Errorf("a --record run of the reference differs from the embedded ground truth:\n%.400s\n%.400s", a, b)
	}
	// A drifting implementation is caught, naming the field.
	path := filepath.Join(t.TempDir(), "recorded.json")
	drift := *truth
	drift.Signing = append([]RecordedSigning(nil), drift.Signing...)
	drift.Signing[0].Signature = strings.Repeat("0", 128)
	b, _ := json.Marshal(drift)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadSuite(t, check.FlagValues{FlagRecorded: path})
	run := checktest.Execute(t, s, reference(t, ""))
	var found bool
	for _, r := range run.Results {
		if r.Status == check.Fail {
			found = true
			if !strings.Contains(r.Reason, "drift from recorded.json in signing["+drift.Signing[0].Name+"].signature") {
				t.Errorf("drift reason = %q", r.Reason)
			}
		}
	}
	if !found {
		t.Error("a changed signature in --recorded was not caught")
	}
}

// TestLoadsShareNothing: each Load has its own recorder, so two runs at
// once, of two implementations, record each its own outputs.
func TestLoadsShareNothing(t *testing.T) {
	truth := embeddedData(t).Recorded
	var honest, wrong *Recorded
	t.Run("runs", func(t *testing.T) {
		t.Run("honest", func(t *testing.T) { t.Parallel(); honest = record(t, "", reference(t, ""), "honest") })
		t.Run("wrong-key", func(t *testing.T) { t.Parallel(); wrong = record(t, "", reference(t, "wrong-key"), "wrong") })
	})
	if honest == nil || wrong == nil {
		t.FailNow()
	}
	if honest.Implementation != "honest" || wrong.Implementation != "wrong" {
		t.Errorf("implementations %q, %q", honest.Implementation, wrong.Implementation)
	}
	if !reflect.DeepEqual(honest.Signing, truth.Signing) {
		t.Error("the honest run's signing entries differ from the ground truth")
	}
	if len(wrong.Signing) == 0 || wrong.Signing[0].PublicKey == truth.Signing[0].PublicKey {
		t.Error("the wrong-key run recorded the honest public key")
	}
}

// TestAfter: --results writes report.json, and --record writes ground truth
// only from a complete run of every check, saying why it did not.
func TestAfter(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "out", "results")
	recorded := filepath.Join(dir, "recorded.json")
	l := loadDir(t, "", check.FlagValues{FlagRecord: recorded, FlagResults: results})
	run := checktest.Execute(t, l.Suite, reference(t, ""))

	for _, tt := range []struct {
		complete, full bool
		want           string
	}{
		{true, false, "a selection"},
		{false, true, "incomplete"},
		{false, false, "incomplete"},
	} {
		r := *run
		r.Complete = tt.complete
		err := l.After(check.AfterRun{Execution: &r, Implementation: "x", Full: tt.full})
		want := "--record: not written: ground truth comes only from a complete run of every check (this run was " + tt.want + ")"
		var ue *check.UsageError
		if err == nil || err.Error() != want || !errors.As(err, &ue) {
			t.Errorf("complete %v full %v: After = %v, want the usage error %q", tt.complete, tt.full, err, want)
		}
		if _, err := os.Stat(recorded); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("complete %v full %v: %s was written", tt.complete, tt.full, recorded)
		}
	}
	var rep NativeReport
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(results, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != NativeFormat || rep.Passed != len(l.Suite.Checks) || rep.Failed != 0 {
		t.Errorf("report.json: format %q, passed %d, failed %d", rep.Format, rep.Passed, rep.Failed)
	}

	if err := l.After(check.AfterRun{Execution: run, Implementation: "x", Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := readRecordedFile(t, recorded); got.Implementation != "x" {
		t.Errorf("implementation %q", got.Implementation)
	}
	for _, d := range []string{dir, results} {
		for _, e := range mustEntries(os.ReadDir(d)) {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("%s: a temporary file is left: %s", d, e.Name())
			}
		}
	}

	// A file that cannot be written is a usage error naming the flag.
	l = loadDir(t, "", check.FlagValues{FlagRecord: filepath.Join(dir, "no", "such", "dir", "recorded.json")})
	err := l.After(check.AfterRun{Execution: run, Implementation: "x", Full: true})
	var ue *check.UsageError
	if err == nil || !strings.HasPrefix(err.Error(), "--record: ") || !errors.As(err, &ue) {
		t.Errorf("After = %v, want a --record usage error", err)
	}
}

func TestLoadFlagErrors(t *testing.T) {
	dir := t.TempDir()
	badFormat := filepath.Join(dir, "bad.json")
	os.WriteFile(badFormat, []byte(`{"format":"x","implementation":"y","canonicalization":[],"signing":[],"op_scenarios":{"author":"","ops":[]}}`), 0o644)
	dupKeys := filepath.Join(dir, "dup.json")
	os.WriteFile(dupKeys, []byte(`{"format":"a","format":"b"}`), 0o644)
	noTests := filepath.Join(dir, "wp.json")
	os.WriteFile(noTests, []byte(`{"algorithm":"EDDSA","testGroups":[]}`), 0o644)
	for _, tt := range []struct {
		flags check.FlagValues
		want  string
	}{
		{check.FlagValues{FlagRecorded: filepath.Join(dir, "missing.json")}, "--recorded: "},
		{check.FlagValues{FlagRecorded: badFormat}, `format "x", want "fablepool-recorded/draft-1"`},
		{check.FlagValues{FlagRecorded: dupKeys}, "--recorded " + dupKeys},
		{check.FlagValues{FlagWycheproof: filepath.Join(dir, "missing.json")}, "--wycheproof: "},
		{check.FlagValues{FlagWycheproof: noTests}, "no tests"},
	} {
		_, err := Definition.Load(check.LoadOptions{Flags: tt.flags})
		var ue *check.UsageError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &ue) {
			t.Errorf("%v: Load = %v, want a usage error with %q", tt.flags, err, tt.want)
		}
	}
	// A corpus that is not there is the corpus's error, not a flag's.
	if _, err := Definition.Load(check.LoadOptions{Corpus: filepath.Join(dir, "nope")}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Load of a missing corpus = %v", err)
	}
}

// TestDefinition: the flags a repro must repeat, the modes, and every
// check's level and clause.
func TestDefinition(t *testing.T) {
	repro := map[string]bool{}
	for _, f := range Definition.Flags {
		repro[f.Name] = f.Repro
	}
	if !reflect.DeepEqual(repro, map[string]bool{FlagRecord: false, FlagRecorded: true, FlagResults: false, FlagWycheproof: true}) {
		t.Errorf("flags (name: repro) = %v", repro)
	}
	if len(Definition.ModeList()) != len(Modes) {
		t.Errorf("%d modes declared, %d built in", len(Definition.ModeList()), len(Modes))
	}
	for i := range min(len(Definition.ModeList()), len(Modes)) {
		if Definition.ModeList()[i].Name != Modes[i].Name {
			t.Errorf("mode %d: documented as %q, built in as %q", i, Definition.ModeList()[i].Name, Modes[i].Name)
		}
	}
	for _, m := range Definition.ModeList() {
		if err := Definition.CheckMode(m.Name); err != nil || m.Doc == "" {
			t.Errorf("mode %q: %v, doc %q", m.Name, err, m.Doc)
		}
		if _, err := Reference(m.Name); err != nil {
			t.Error(err)
		}
	}
	for _, c := range loadSuite(t, wycheproofFlags()).Checks {
		if c.Level != check.Must || !strings.HasPrefix(c.Clause, "FablePool milestone-2 conformance README: ") && !strings.HasPrefix(c.Clause, "fablepool-draft-1 §") {
			t.Errorf("%s: level %q, clause %q", c.ID, c.Level, c.Clause)
		}
	}
}

// TestCorpusIsGenerated regenerates the embedded corpus from gen/inputs.json
// into a temporary directory and compares; go test -update writes it into
// corpus/ instead.
func TestCorpusIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the corpus runs go run")
	}
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "README.md"), must(os.ReadFile("corpus/README.md")), 0o644)
	if b, err := exec.Command("go", "run", "./gen", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	for _, f := range []string{CanonicalizationFile, SigningFile, ScenariosFile, RecordedFile, corpus.ManifestName} {
		golden.Check(t, filepath.Join("corpus", f), must(os.ReadFile(filepath.Join(out, f))))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func mustEntries(v []os.DirEntry, err error) []os.DirEntry {
	if err != nil {
		panic(err)
	}
	return v
}

func TestReadCorpusErrors(t *testing.T) {
	const canonOK = `{"vectors":[{"name":"a","input":[1],"canonical":"[1]"}]}`
	signOK := `{"vectors":[{"name":"s","seed":"0202020202020202020202020202020202020202020202020202020202020202","message_hex":"","public_key":"` + "8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394" + `","signature":"` + strings.Repeat("ab", 64) + `"}]}`
	const opsOK = `{"seed":"0202020202020202020202020202020202020202020202020202020202020202","ts":1,"v":1,"vectors":[{"name":"o","type":"t","payload":{},"prev":[],"mutations":[],"expect":"accept"}]}`
	tests := []struct {
		name                string
		canon, sign, ops, r string
		want                string
	}{
		{"missing signing", canonOK, "", opsOK, "", "no signing.json"},
		{"both input forms", `{"vectors":[{"name":"a","input":1,"input_text":"1","canonical":"1"}]}`, signOK, opsOK, "", "exactly one of input and input_text"},
		{"neither result", `{"vectors":[{"name":"a","input":1}]}`, signOK, opsOK, "", "exactly one of canonical and error"},
		{"no public key", canonOK, `{"vectors":[{"name":"s","seed":"0202020202020202020202020202020202020202020202020202020202020202","message_hex":""}]}`, opsOK, "", "needs public_key"},
		{"bad hex", canonOK, `{"vectors":[{"name":"s","seed":"zz","message_hex":""}]}`, opsOK, "", "seed is not hex"},
		{"bad expect", canonOK, signOK, strings.Replace(opsOK, `"accept"`, `"maybe"`, 1), "", `expect "maybe"`},
		{"reject without mutations", canonOK, signOK, strings.Replace(opsOK, `"accept"`, `"reject"`, 1), "", "needs mutations"},
		{"unknown mutation", canonOK, signOK, strings.Replace(opsOK, `"mutations":[],"expect":"accept"`, `"mutations":[{"op":"swap"}],"expect":"reject"`, 1), "", `op "swap"`},
		{"mutation path names nothing", canonOK, signOK, strings.Replace(opsOK, `"mutations":[],"expect":"accept"`, `"mutations":[{"op":"delete","path":"payload.nope.x"}],"expect":"reject"`, 1), "", "the mutations do not apply"},
		{"recorded format", canonOK, signOK, opsOK, `{"format":"x","implementation":"y","canonicalization":[],"signing":[],"op_scenarios":{"author":"","ops":[]}}`, `format "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, body := range map[string]string{CanonicalizationFile: tt.canon, SigningFile: tt.sign, ScenariosFile: tt.ops, RecordedFile: tt.r} {
				if body != "" {
					fsys["draft-"+name] = &fstest.MapFile{Data: []byte(body)}
				}
			}
			c, err := corpus.Open(fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = readCorpus(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

func TestNodeAdapter(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	const prog = "../../examples/adapters/node/fablepool.mjs"
	if _, err := os.Stat(prog); err != nil {
		t.Skipf("%s: %v", prog, err)
	}
	s := loadSuite(t, wycheproofFlags())
	cfg := adapter.ProcessConfig{Argv: []string{"node", prog}}
	run := checktest.Execute(t, s, func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) })
	for _, r := range run.Results {
		if r.Status != check.Pass {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Reason)
		}
	}
}

func TestNativeCountsEveryNonPassAsFailed(t *testing.T) {
	run := &check.Execution{Results: []check.Result{
		{ID: "fablepool/signing/a", Status: check.Pass},
		{ID: "fablepool/signing/b", Status: check.Fail, Expected: "x", Actual: "y"},
		{ID: "fablepool/recorded/c", Status: check.Error, Reason: "adapter exited"},
		{ID: "fablepool/op_scenarios/d", Status: check.NotChecked, Reason: "no sign_op"},
	}}
	n := Native(run)
	if n.Passed != 1 || n.Failed != 3 || len(n.Results) != 4 {
		t.Fatalf("passed %d failed %d results %d, want 1, 3, 4", n.Passed, n.Failed, len(n.Results))
	}
	want := []string{"", "y", "error: adapter exited", "not checked: no sign_op"}
	for i, r := range n.Results {
		if r.Actual != want[i] || r.OK != (i == 0) {
			t.Errorf("result %d = %+v, want ok %v actual %q", i, r, i == 0, want[i])
		}
	}
	if n.Results[3].Suite != "op_scenarios" || n.Results[3].Name != "d" {
		t.Errorf("suite/name = %s/%s", n.Results[3].Suite, n.Results[3].Name)
	}
}
