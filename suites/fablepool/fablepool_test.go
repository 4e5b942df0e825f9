package fablepool

import (
	"context"
	"encoding/json"
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

func load(t *testing.T, opts Options) (*check.Suite, *Corpus) {
	t.Helper()
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	s, cp, err := Load(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, cp
}

func TestReferencePasses(t *testing.T) {
	s, _ := load(t, Options{})
	run := checktest.Run(t, s, reference(t, ""))
	if n := run.Counts(); n.Pass != len(s.Checks) {
		t.Errorf("counts = %+v", n)
	}
}

func TestEveryCheckCanFail(t *testing.T) {
	opts := Options{}
	if dir, ok := sharedtest.Lookup(); ok {
		opts.Wycheproof = filepath.Join(dir, "corpora", "ed25519", "wycheproof_ed25519_test.json")
	}
	s, _ := load(t, opts)
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
	_, cp := load(t, Options{})
	ours := cp.Recorded
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
	c, err := corpus.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	draft, err := ReadCorpus(c)
	if err != nil {
		t.Fatal(err)
	}
	_, ours := load(t, Options{})
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
	s, _, err := Load(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checktest.Run(t, s, reference(t, ""))
}

func TestEmbeddedCoverage(t *testing.T) {
	_, cp := load(t, Options{})
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
	s, _ := load(t, Options{Wycheproof: file})
	n := 0
	for _, c := range s.Checks {
		if strings.HasPrefix(c.ID, "fablepool/wycheproof/") {
			n++
		}
	}
	if n != 151 {
		t.Fatalf("%d Wycheproof checks, want 151", n)
	}
	checktest.Run(t, s, reference(t, ""))
}

// TestRecordEqualsDraft runs --record over the draft corpus and requires the
// file the profile says two implementations must agree on: equal to the
// draft's recorded.json but for "implementation".
func TestRecordEqualsDraft(t *testing.T) {
	dir := filepath.Join(shared(t), "fablepool")
	c, err := corpus.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	s, cp, err := Load(c, Options{Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	checktest.Execute(t, s, reference(t, ""))
	got := rec.Recorded(cp, cp.Recorded.Implementation)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(cp.Recorded)
	if string(a) != string(b) {
		t.Errorf("--record over the draft corpus differs from draft-recorded.json:\n%.600s\n%.600s", a, b)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	rec := NewRecorder()
	s, cp := load(t, Options{Recorder: rec})
	checktest.Execute(t, s, reference(t, ""))
	got := rec.Recorded(cp, "x")
	got.Implementation = cp.Recorded.Implementation
	if !reflect.DeepEqual(got, cp.Recorded) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(cp.Recorded)
		t.Errorf("a --record run of the reference differs from the embedded ground truth:\n%.400s\n%.400s", a, b)
	}
	// A drifting implementation is caught, naming the field.
	path := filepath.Join(t.TempDir(), "recorded.json")
	drift := *cp.Recorded
	drift.Signing = append([]RecordedSigning(nil), drift.Signing...)
	drift.Signing[0].Signature = strings.Repeat("0", 128)
	b, _ := json.Marshal(drift)
	os.WriteFile(path, b, 0o644)
	s2, _ := load(t, Options{Recorded: path})
	run := checktest.Execute(t, s2, reference(t, ""))
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

func TestCorpusIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the corpus runs go run")
	}
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "README.md"), must(os.ReadFile("corpus/README.md")), 0o644)
	if b, err := exec.Command("go", "run", "./gen", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	for _, f := range []string{CanonicalizationFile, SigningFile, ScenariosFile, RecordedFile, "manifest.json"} {
		if string(must(os.ReadFile(filepath.Join(out, f)))) != string(must(os.ReadFile(filepath.Join("corpus", f)))) {
			t.Errorf("corpus/%s is not what go generate ./suites/fablepool writes: regenerate it", f)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
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
			_, err = ReadCorpus(c)
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
	opts := Options{}
	if dir, ok := sharedtest.Lookup(); ok {
		opts.Wycheproof = filepath.Join(dir, "corpora", "ed25519", "wycheproof_ed25519_test.json")
	}
	s, _ := load(t, opts)
	cfg := adapter.ProcessConfig{Argv: []string{"node", prog}}
	run := checktest.Execute(t, s, func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) })
	for _, r := range run.Results {
		if r.Status != check.Pass {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Reason)
		}
	}
}

func TestNativeCountsEveryNonPassAsFailed(t *testing.T) {
	run := &check.Run{Results: []check.Result{
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
