package cgpvectors

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/sharedtest"
)

// embeddedFile is the embedded copy of the vector file name.
func embeddedFile(t *testing.T, name string) string {
	t.Helper()
	rc, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	b, err := rc.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vectorsDir is a vectors directory named "test" holding files, by their
// paths in upstream's layout.
func vectorsDir(t *testing.T, files map[string]string) *corpus.Corpus {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, b := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(b)}
	}
	c, err := corpus.Open(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func loadVectors(t *testing.T, dir *corpus.Corpus) (*check.Suite, error) {
	t.Helper()
	prof, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return loadSuite(prof, dir)
}

func ids(s *check.Suite) []string {
	var out []string
	for _, c := range s.Checks {
		out = append(out, c.ID)
	}
	return out
}

func TestVectorPath(t *testing.T) {
	for name, want := range map[string]string{
		RecordVectorsFile:     "tests/fixtures/record-hash-vectors.json",
		AttestationKeyFile:    "tests/fixtures/record-attestation-key.json",
		"observation.json":    "tests/fixtures/observation.json",
		RangeVectorsFile:      "tests/vectors/range-vectors.json",
		ProvenanceVectorsFile: "tests/vectors/attestation-vectors.json",
		EnvelopeVectorsFile:   "schema/reference-vectors.ndjson",
	} {
		if got := VectorPath(name); got != want {
			t.Errorf("VectorPath(%s) = %s, want %s", name, got, want)
		}
	}
}

// TestVectorsDirPartial: each file the directory has replaces its embedded
// copy, the rest stay embedded, and the corpus says which is which; the
// digest follows the bytes, not where they came from.
func TestVectorsDirPartial(t *testing.T) {
	emb := embeddedSuite(t)
	env := embeddedFile(t, EnvelopeVectorsFile)
	obs := embeddedFile(t, "observation.json")

	same, err := loadVectors(t, vectorsDir(t, map[string]string{VectorPath(EnvelopeVectorsFile): env, VectorPath("observation.json"): obs, "README.md": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	want := "embedded:cgp-vectors; vectors from test: 1 of the 12 record fixtures (tests/fixtures/observation.json), schema/reference-vectors.ndjson; " +
		"embedded: record-hash-vectors.json, the other 11 record fixtures, record-attestation-key.json, range-vectors.json, attestation-vectors.json"
	if same.Corpus != want {
		t.Errorf("corpus\n%s\nwant\n%s", same.Corpus, want)
	}
	if same.CorpusDigest != emb.CorpusDigest || !slices.Equal(ids(same), ids(emb)) {
		t.Errorf("the embedded bytes from a directory: digest %s (embedded %s), %d checks (embedded %d)", same.CorpusDigest, emb.CorpusDigest, len(same.Checks), len(emb.Checks))
	}
	if emb.Corpus != "embedded:cgp-vectors" {
		t.Errorf("embedded corpus %s", emb.Corpus)
	}
	prof, _ := Embedded()
	if emb.CorpusDigest == prof.Digest {
		t.Errorf("the corpus digest is the profile's alone: it must cover the vector files")
	}

	// Two envelopes of referee's own: 4 envelope checks, another digest.
	other, err := loadVectors(t, vectorsDir(t, map[string]string{VectorPath(EnvelopeVectorsFile): `{"type":"shutdown"}` + "\n" +
		`{"type":"query","query":{"goal":"g","embedding":[1.0,0.875],"max_frames":8,"max_tokens":4096}}` + "\n"}))
	if err != nil {
		t.Fatal(err)
	}
	var envelopes int
	for _, id := range ids(other) {
		if strings.HasPrefix(id, "cgp-vectors/envelope/") {
			envelopes++
		}
	}
	if envelopes != 4 || len(other.Checks) != len(emb.Checks)-26+4 || other.CorpusDigest == emb.CorpusDigest {
		t.Errorf("%d envelope checks of %d, digest %s", envelopes, len(other.Checks), other.CorpusDigest)
	}
	if !strings.HasSuffix(other.Corpus, "vectors from test: schema/reference-vectors.ndjson; embedded: record-hash-vectors.json, the 12 record fixtures, record-attestation-key.json, range-vectors.json, attestation-vectors.json") {
		t.Errorf("corpus %s", other.Corpus)
	}
	run := checktest.RunSuite(t, other, reference(t, ""))
	if n := run.Counts(); n.Pass != len(run.Results) {
		t.Errorf("counts = %+v", n)
	}
}

// TestVectorsDirErrors: the load-time checks apply to a directory's files,
// and name the directory and the file's path in it.
func TestVectorsDirErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"attestation value", map[string]string{VectorPath(ProvenanceVectorsFile): strings.Replace(embeddedFile(t, ProvenanceVectorsFile), `"3": "sha256:bb7a2c79`, `"3": "sha256:cb7a2c79`, 1)},
			"corpus test: tests/vectors/attestation-vectors.json: merkle.roots_by_leaf_count.3: is sha256:cb7a2c79"},
		{"range digest", map[string]string{VectorPath(RangeVectorsFile): strings.Replace(embeddedFile(t, RangeVectorsFile), `"digest": "sha256:b6a98d9c`, `"digest": "sha256:c6a98d9c`, 1)},
			"corpus test: tests/vectors/range-vectors.json: case "},
		{"key", map[string]string{VectorPath(AttestationKeyFile): strings.Replace(embeddedFile(t, AttestationKeyFile), `"signs": "observation.json"`, `"signs": "memory.json"`, 1)},
			"corpus test: tests/fixtures/record-attestation-key.json: signed_message_hex is not the domain tag and the hash of memory.json"},
		{"envelope", map[string]string{VectorPath(EnvelopeVectorsFile): `{"type":"query","query":{"goal":"g","embedding":[1]}}` + "\n"},
			"corpus test: schema/reference-vectors.ndjson: line 1: the Go reference re-serialises it differently"},
		{"a record against the embedded vectors", map[string]string{VectorPath("observation.json"): strings.Replace(embeddedFile(t, "observation.json"), `"record_hash": "sha256:b45e`, `"record_hash": "sha256:c45e`, 1)},
			"corpus embedded:cgp-records: record-hash-vectors.json: vector 8: tests/fixtures/observation.json (corpus test) stores record_hash"},
		{"a record in neither", map[string]string{VectorPath(RecordVectorsFile): strings.Replace(embeddedFile(t, RecordVectorsFile), `"record_file": "observation.json"`, `"record_file": "sighting.json"`, 1)},
			"corpus test: tests/fixtures/record-hash-vectors.json: vector 8: tests/fixtures/sighting.json is neither in corpus test nor among the embedded copies"},
		{"none", map[string]string{"README.md": "x", "tests/vectors/other.json": "{}"},
			"corpus test: none of the CGP vector files at their places in upstream's repository layout: looked for tests/fixtures/record-hash-vectors.json, tests/fixtures/<kind>.json for the 12 lifecycle records (artifact_contract, "},
		{"flat", map[string]string{EnvelopeVectorsFile: embeddedFile(t, EnvelopeVectorsFile)},
			"schema/reference-vectors.ndjson (it has reference-vectors.ndjson: give the directory that holds tests/ and schema/)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for p, b := range tt.files {
				if p == VectorPath(filepath.Base(p)) && b == embeddedFile(t, filepath.Base(p)) {
					t.Fatalf("%s: the mutation changed nothing", p)
				}
			}
			_, err := loadVectors(t, vectorsDir(t, tt.files))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one with %q", err, tt.want)
			}
		})
	}
}

// TestVectorsDirShared reads upstream's two directories: the newer index
// has the five files, byte for byte the embedded ones; 00377ab has the
// records and its own reference envelopes.
func TestVectorsDirShared(t *testing.T) {
	dir := sharedtest.Dir(t, "upstream's vector files are in ../shared/corpora/cgp/_extra")
	emb := embeddedSuite(t)
	for _, tt := range []struct{ dir, fromDir, embedded string }{
		{"index-newer", "tests/fixtures/record-hash-vectors.json, tests/fixtures/record-attestation-key.json, tests/vectors/range-vectors.json, tests/vectors/attestation-vectors.json, schema/reference-vectors.ndjson",
			"the 12 record fixtures"},
		{"head-00377ab", "the 12 record fixtures (tests/fixtures/<kind>.json), schema/reference-vectors.ndjson",
			"record-hash-vectors.json, record-attestation-key.json, range-vectors.json, attestation-vectors.json"},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			p := filepath.Join(dir, "corpora", "cgp", "_extra", tt.dir)
			s := loadSuiteWith(t, check.LoadOptions{Flags: check.FlagValues{FlagVectors: p}})
			if want := "embedded:cgp-vectors; vectors from " + p + ": " + tt.fromDir + "; embedded: " + tt.embedded; s.Corpus != want {
				t.Errorf("corpus\n%s\nwant\n%s", s.Corpus, want)
			}
			if !slices.Equal(ids(s), ids(emb)) {
				t.Errorf("%d checks, embedded %d", len(s.Checks), len(emb.Checks))
			}
			// The newer index's files are the embedded ones; 00377ab's
			// envelopes are not.
			if (s.CorpusDigest == emb.CorpusDigest) != (tt.dir == "index-newer") {
				t.Errorf("digest %s, embedded %s", s.CorpusDigest, emb.CorpusDigest)
			}
			run := checktest.RunSuite(t, s, reference(t, ""))
			if n := run.Counts(); n.Pass != len(run.Results) {
				t.Errorf("counts = %+v", n)
			}
		})
	}
}
