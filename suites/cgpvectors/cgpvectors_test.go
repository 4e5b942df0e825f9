package cgpvectors

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/sharedtest"
)

func embeddedSuite(t *testing.T) *check.Suite {
	t.Helper()
	return loadSuiteWith(t, check.LoadOptions{})
}

// loadSuiteWith loads the suite through Definition.Load.
func loadSuiteWith(t *testing.T, o check.LoadOptions) *check.Suite {
	t.Helper()
	l, err := Definition.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	return l.Suite
}

// sharedProfile is the suite over upstream's profile in the shared corpora.
func sharedProfile(t *testing.T, dir, profile string) *check.Suite {
	t.Helper()
	return loadSuiteWith(t, check.LoadOptions{Corpus: filepath.Join(dir, "corpora", "cgp", profile)})
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

// TestReferencePassesShared runs both upstream profiles.
func TestReferencePassesShared(t *testing.T) {
	dir := sharedtest.Dir(t, "the CGP fixture profiles live in ../shared/corpora/cgp")
	for _, profile := range []string{"contextgraph-1.0-draft", "contextgraph-1.0"} {
		t.Run(profile, func(t *testing.T) {
			s := sharedProfile(t, dir, profile)
			// 3 digest cases x 3, 5 strict, 2 citation, 4 valid frames, 4 vectors x 3,
			// the 12 embedded lifecycle records x 2, 10 record attestation checks,
			// 31 range vectors and referee's 8, 68 provenance attestation
			// checks, the 13 reference envelopes x 2 and referee's 63
			// frame-rules vectors.
			if len(s.Checks) != 262 {
				t.Errorf("%d checks, want 262", len(s.Checks))
			}
			run := checktest.RunSuite(t, s, reference(t, ""))
			if n := run.Counts(); n.Pass != len(run.Results) {
				t.Errorf("counts = %+v", n)
			}
		})
	}
}

func TestEveryCheckCanFail(t *testing.T) {
	broken := map[string]adapter.Starter{}
	for _, m := range Modes {
		broken[m.Name] = reference(t, m.Name)
	}
	checktest.EveryCheckCanFail(t, embeddedSuite(t), broken)
	if dir, ok := sharedtest.Lookup(); ok {
		checktest.EveryCheckCanFail(t, sharedProfile(t, dir, "contextgraph-1.0"), broken)
	}
}

func TestCheckIDs(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range embeddedSuite(t).Checks {
		ids[c.ID] = true
	}
	for _, want := range []string{
		"cgp-vectors/digest/fully_populated_frame/normalized", "cgp-vectors/digest/minimal_frame/jcs", "cgp-vectors/digest/minimal_query/sha256",
		"cgp-vectors/strict/frame_provenance_unknown", "cgp-vectors/strict/frame_content_digest",
		"cgp-vectors/citation/missing", "cgp-vectors/citation/blank", "cgp-vectors/citation/blank_nbsp", "cgp-vectors/citation/blank_tab_newline",
		"cgp-vectors/frame-validity/compact", "cgp-vectors/frame-validity/reference", "cgp-vectors/frame-validity/minimal_frame",
		"cgp-vectors/normalization/unicode/normalized", "cgp-vectors/normalization/keys_non_bmp_vs_uffxx/jcs", "cgp-vectors/normalization/number_edges/sha256",
		"cgp-vectors/frame-validity/reference_nested_frame", "cgp-vectors/frame-rules/score-zero", "cgp-vectors/frame-rules/reference-that-costs",
		"cgp-vectors/frame-rules/non-ascii-token-cost", "cgp-vectors/frame-rules/several-rules",
	} {
		if !ids[want] {
			t.Errorf("no check %s", want)
		}
	}
}

// TestBrokenModeEvidence pins what two modes' failures say.
func TestBrokenModeEvidence(t *testing.T) {
	results := map[string]check.Result{}
	for _, mode := range []string{"path-without-index", "lenient"} {
		for _, r := range checktest.Execute(t, embeddedSuite(t), reference(t, mode)).Results {
			results[mode+" "+r.ID] = r
		}
	}
	r := results["path-without-index cgp-vectors/strict/frame_provenance_unknown"]
	if r.Status != check.Fail || r.Expected != "frame.provenance[0].future_field" || r.Actual != "frame.provenance.future_field" {
		t.Errorf("path-without-index: %+v", r)
	}
	r = results["lenient cgp-vectors/strict/frame_top_level_unknown"]
	if r.Status != check.Fail || r.Actual != "accepted" {
		t.Errorf("lenient: %+v", r)
	}
}

func TestProfileErrors(t *testing.T) {
	good := map[string]string{}
	for _, f := range Files {
		b, err := embedded.ReadFile("corpus/" + f)
		if err != nil {
			t.Fatal(err)
		}
		good[f] = string(b)
	}
	mk := func(meta string, files map[string]string) *corpus.Corpus {
		fsys := fstest.MapFS{}
		for n, b := range files {
			fsys[n] = &fstest.MapFile{Data: []byte(b)}
		}
		if meta != "" {
			fsys[corpus.ManifestName] = &fstest.MapFile{Data: []byte(meta)}
		}
		c, err := corpus.Open(fsys, "test")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	lockText := func(meta string, files map[string]string) string {
		dir := t.TempDir()
		for n, b := range files {
			os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644)
		}
		os.WriteFile(filepath.Join(dir, corpus.ManifestName), []byte(meta), 0o644)
		m, err := corpus.Lock(dir, corpus.DefaultMaxFileSize)
		if err != nil {
			t.Fatal(err)
		}
		return string(m.Encode())
	}
	goodMeta := `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1.0","generation_command":"x","files":{}}`
	if _, err := loadSuite(mk(lockText(goodMeta, good), good), nil); err != nil {
		t.Fatalf("good profile: %v", err)
	}
	withExtra := map[string]string{"extra.json": "{}"}
	for k, v := range good {
		withExtra[k] = v
	}
	badStrict := map[string]string{}
	for k, v := range good {
		badStrict[k] = v
	}
	badStrict[StrictFile] = `{"cases":[{"name":"a","target":"frame","input":{},"unknown_path":"frame.x","extra":1}]}`
	tests := []struct {
		name  string
		c     *corpus.Corpus
		wants string
	}{
		{"no manifest", mk("", good), "no manifest.json"},
		{"wrong family", mk(lockText(strings.Replace(goodMeta, "contextgraph/1.0", "contextgraph/2.0", 1), good), good), "not in the contextgraph/1 family"},
		{"extra file", mk(lockText(goodMeta, withExtra), withExtra), "a fixture profile has exactly"},
		{"unknown member in a case", mk(lockText(goodMeta, badStrict), badStrict), `unknown field "extra"`},
	}
	for _, tt := range tests {
		_, err := loadSuite(tt.c, nil)
		if err == nil || !strings.Contains(err.Error(), tt.wants) || !strings.Contains(err.Error(), "corpus test") {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wants)
		}
	}
}

// TestNodeAdapter runs the Node.js adapter, a second implementation written
// from the docs, against the embedded profile and, with REFEREE_SHARED, both
// upstream profiles and upstream's reference envelopes at 00377ab.
func TestNodeAdapter(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	const prog = "../../examples/adapters/node/cgp-vectors.mjs"
	if _, err := os.Stat(prog); err != nil {
		t.Skipf("%s: %v", prog, err)
	}
	cfg := adapter.ProcessConfig{Argv: []string{"node", prog}}
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	suites := map[string]*check.Suite{"embedded": embeddedSuite(t)}
	if dir, ok := sharedtest.Lookup(); ok {
		for _, profile := range []string{"contextgraph-1.0-draft", "contextgraph-1.0"} {
			suites[profile] = sharedProfile(t, dir, profile)
		}
		// The vector files at 00377ab: its reference envelopes
		// (contextgraph/1.0-draft) and records.
		suites["envelopes-00377ab"] = loadSuiteWith(t, check.LoadOptions{Flags: check.FlagValues{FlagVectors: filepath.Join(dir, "corpora", "cgp", "_extra", "head-00377ab")}})
	}
	for name, s := range suites {
		t.Run(name, func(t *testing.T) {
			run := checktest.Execute(t, s, start)
			if len(run.Results) != len(s.Checks) {
				t.Errorf("%d results for %d checks", len(run.Results), len(s.Checks))
			}
			for _, r := range run.Results {
				if r.Status != check.Pass {
					t.Errorf("%s %s: %s", r.ID, r.Status, r.Reason)
				}
			}
		})
	}
}

// TestRecordsAreUpstreams checks the embedded lifecycle records against
// the shared copy of upstream's files, byte for byte.
func TestRecordsAreUpstreams(t *testing.T) {
	dir := sharedtest.Dir(t, "the upstream records are in ../shared/corpora/cgp/_extra")
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rc.Files() {
		src := filepath.Join(dir, "corpora", "cgp", "_extra", "head-00377ab", "tests", "fixtures", f)
		switch f {
		case RecordVectorsFile, AttestationKeyFile:
			src = filepath.Join(dir, "corpora", "cgp", "_extra", "index-newer", "tests", "fixtures", f)
		case RangeVectorsFile, ProvenanceVectorsFile:
			src = filepath.Join(dir, "corpora", "cgp", "_extra", "index-newer", "tests", "vectors", f)
		case EnvelopeVectorsFile:
			src = filepath.Join(dir, "corpora", "cgp", "_extra", "index-newer", "schema", f)
		}
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := rc.ReadFile(f)
		if string(got) != string(want) {
			t.Errorf("%s differs from %s", f, src)
		}
	}
}

func TestReadRecordsErrors(t *testing.T) {
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	vectors, _ := rc.ReadFile(RecordVectorsFile)
	obs, _ := rc.ReadFile("observation.json")
	tests := []struct {
		name, file, old, new, want string
	}{
		{"stored hash differs", "observation.json", `"record_hash": "sha256:b45e`, `"record_hash": "sha256:c45e`, "observation.json stores record_hash"},
		{"preimage differs", RecordVectorsFile, `\"rec_obs_0001\"`, `\"rec_obs_0002\"`, "jcs_utf8 is not the RFC 8785 text of observation.json"},
		{"file outside", RecordVectorsFile, `"record_file": "observation.json"`, `"record_file": "../observation.json"`, "is not a .json file beside"},
		{"unknown member", RecordVectorsFile, `"rule":`, `"rules":`, `unknown field "rules"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{RecordVectorsFile: vectors, "observation.json": obs}
			if !strings.Contains(string(files[tt.file]), tt.old) {
				t.Fatalf("%s holds no %s", tt.file, tt.old)
			}
			files[tt.file] = []byte(strings.Replace(string(files[tt.file]), tt.old, tt.new, 1))
			fsys := fstest.MapFS{}
			for _, f := range rc.Files() {
				b, _ := rc.ReadFile(f)
				fsys[f] = &fstest.MapFile{Data: b}
			}
			for f, b := range files {
				fsys[f] = &fstest.MapFile{Data: b}
			}
			c, err := corpus.Open(fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadRecords(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

func TestReadRangesErrors(t *testing.T) {
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	good, _ := rc.ReadFile(RangeVectorsFile)
	tests := []struct{ name, old, new, want string }{
		{"digest of other bytes", `"digest": "sha256:b6a98d9c`, `"digest": "sha256:c6a98d9c`, "is not the sha256 of bytes"},
		{"unknown resource", `"resource": "utf8"`, `"resource": "utf16"`, `resource "utf16" is not in resources`},
		{"unknown reason", `"unverifiable": "inverted"`, `"unverifiable": "backwards"`, `unverifiable "backwards" is not one of`},
		{"unknown member", `"note": "No range`, `"notes": "No range`, `unknown field "notes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(good), tt.old) {
				t.Fatalf("%s holds no %s", RangeVectorsFile, tt.old)
			}
			fsys := fstest.MapFS{RangeVectorsFile: &fstest.MapFile{Data: []byte(strings.Replace(string(good), tt.old, tt.new, 1))}}
			c, err := corpus.Open(fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadRanges(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

// TestEmbeddedHoldsUpstreamCases: every normalisation vector of upstream's
// profile that the embedded profile names is there byte for byte, and the
// unicode vector's Hebrew key is the one code point U+FB33 (an editor's
// normalisation once decomposed it into two, which hid the UTF-16 order).
func TestEmbeddedHoldsUpstreamCases(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	mine, err := c.ReadFile("normalization-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mine), "\ufb33") || strings.Contains(string(mine), "\u05d3\u05bc") {
		t.Error("the unicode vector's key is not U+FB33")
	}
	dir := sharedtest.Dir(t, "upstream's profile")
	theirs, err := os.ReadFile(filepath.Join(dir, "corpora/cgp/contextgraph-1.0/normalization-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	byName := func(data []byte) map[string]string {
		var doc struct {
			Vectors []json.RawMessage `json:"vectors"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, v := range doc.Vectors {
			// Texts compare byte for byte; the normalised value compares as a
			// value (upstream writes its numbers normalised, referee as read).
			var n struct {
				Name, InputJSON, ExpectedJCS, Sha256 string
				Normalized                           json.RawMessage
			}
			var raw map[string]json.RawMessage
			json.Unmarshal(v, &raw)
			json.Unmarshal(raw["name"], &n.Name)
			json.Unmarshal(raw["input_json"], &n.InputJSON)
			json.Unmarshal(raw["expected_jcs_utf8"], &n.ExpectedJCS)
			json.Unmarshal(raw["sha256"], &n.Sha256)
			norm, err := canon.JCS.Canonicalize(raw["expected_normalized"], canon.ReadOptions{})
			if err != nil {
				t.Fatalf("%s: expected_normalized: %v", n.Name, err)
			}
			out[n.Name] = strings.Join([]string{n.InputJSON, string(norm), n.ExpectedJCS, n.Sha256}, "\n")
		}
		return out
	}
	m, u := byName(mine), byName(theirs)
	for name, want := range u {
		got, ok := m[name]
		if !ok {
			t.Errorf("upstream's vector %s is not embedded", name)
		} else if got != want {
			t.Errorf("vector %s differs from upstream's:\n got %s\nwant %s", name, got, want)
		}
	}
}
