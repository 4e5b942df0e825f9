// Package cgpvectors is referee's cgp-vectors suite, declared to the engine
// by Definition: the Context Graph Protocol's golden fixture profile
// (contextgraph-conformance's fixtures/contextgraph-1.0/, fixture profile
// 1.1.0) run against any implementation: the digest profile's strict parse,
// normalisation, RFC 8785 canonicalisation and SHA-256 digest, and the
// frame-validity rules a host applies to a served frame (cgp.ValidateFrame
// and B3's token cost, with referee's frame-rules vectors); and upstream's
// vector files: lifecycle record hashes and attestations, the line-range
// grammar, provenance attestation and the reference envelopes. It reads a
// profile directory in the upstream layout, or referee's own embedded
// profile, which adds cases upstream lacks; the vector files are embedded,
// or read from a directory in upstream's repository layout (--vectors).
package cgpvectors

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// Name is the suite's name, as in `referee run cgp-vectors`.
const Name = "cgp-vectors"

// Version is the suite's own version.
const Version = "0.1.0"

// The adapter ops.
const (
	OpNormalizeFrame = "normalizeFrame"
	OpNormalizeQuery = "normalizeQuery"
	OpCanonicalize   = "canonicalize"
	OpDigest         = "digest"
	OpCheckFrame     = "checkFrame"
)

// The seven fixture files of a profile, as upstream names them.
const (
	FrameFile     = "context-frame.valid.json"
	CompactFile   = "context-frame.compact.valid.json"
	ReferenceFile = "context-frame.reference.valid.json"
	CitationFile  = "context-frame.missing-citation.invalid.json"
	QueryFile     = "context-query.valid.json"
	StrictFile    = "strict-validation.invalid.json"
	VectorsFile   = "normalization-vectors.json"
)

// Files lists the seven fixture files; a profile's manifest lists exactly these.
var Files = []string{CompactFile, CitationFile, ReferenceFile, FrameFile, QueryFile, VectorsFile, StrictFile}

//go:embed corpus
var embedded embed.FS

// Embedded returns referee's own fixture profile, verified against its manifest.
func Embedded() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embedded, "corpus")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:cgp-vectors")
}

// Corpus is a fixture profile, read.
type Corpus struct {
	Frames    []DigestCase // context-frame.valid.json
	Queries   []DigestCase // context-query.valid.json
	Strict    []StrictCase
	Citations []Citation // context-frame.missing-citation.invalid.json, in file order
	Valid     []Named    // frames that must be valid: the digest frames' sources, compact, reference
	Vectors   []Vector
	// FrameRules are referee's frame-validity vectors, whatever the profile.
	FrameRules []FrameRuleCase
	// The vector files, whatever the profile: the embedded copies of
	// upstream's, each replaced by the --vectors directory's when it has one.
	Records    []Record           // the lifecycle records
	Key        *AttestationKey    // the published record attestation test key
	Ranges     []RangeCase        // the line-range grammar's vectors
	Provenance *ProvenanceVectors // upstream's provenance attestation vectors
	Envelopes  []EnvelopeCase     // upstream's reference envelopes
	// Found are the op cases of a corpus of found vectors (ReadFound).
	Found []OpCase
}

// DigestCase is one digest case: a wire object and its three artifacts.
type DigestCase struct {
	Name       string
	Source     canon.Value
	Normalized canon.Value
	JCS        string
	SHA256     string
}

// StrictCase is a strict-validation negative.
type StrictCase struct {
	Name        string
	Target      string // "frame" or "query"
	Input       canon.Value
	UnknownPath string
}

// Citation is a frame that frame validity must reject on citation_label.
type Citation struct {
	Name  string
	Frame canon.Value
}

// Named is a frame that frame validity must accept.
type Named struct {
	Name  string
	Frame canon.Value
}

// Vector is a generic RFC 8785 vector of normalization-vectors.json.
type Vector struct {
	Name       string
	InputJSON  string
	Input      canon.Value // InputJSON, parsed
	Normalized canon.Value
	JCS        string
	SHA256     string
}

// CheckProfile applies the fixture profile's manifest rules: a manifest whose
// members pass cgp.CheckProfileManifest and whose files are exactly Files.
func CheckProfile(c *corpus.Corpus) error {
	if c.Manifest == nil {
		return fmt.Errorf("corpus %s: not a CGP fixture profile: no %s", c.Name, corpus.ManifestName)
	}
	problems := cgp.CheckProfileManifest(c.Manifest.Meta)
	var listed []string
	for p := range c.Manifest.Files {
		listed = append(listed, p)
	}
	sort.Strings(listed)
	want := slices.Clone(Files)
	sort.Strings(want)
	if !slices.Equal(listed, want) {
		problems = append(problems, fmt.Sprintf("the manifest lists %s; a fixture profile has exactly %s", strings.Join(listed, ", "), strings.Join(want, ", ")))
	}
	if len(problems) > 0 {
		return fmt.Errorf("corpus %s: not a valid CGP fixture profile:\n  %s", c.Name, strings.Join(problems, "\n  "))
	}
	return nil
}

// ReadCorpus checks c as a fixture profile and reads its seven files strictly.
func ReadCorpus(c *corpus.Corpus) (*Corpus, error) {
	if err := CheckProfile(c); err != nil {
		return nil, err
	}
	out := &Corpus{}
	var err error
	if out.Frames, err = readDigestCases(c, FrameFile); err != nil {
		return nil, err
	}
	if out.Queries, err = readDigestCases(c, QueryFile); err != nil {
		return nil, err
	}
	for _, f := range out.Frames {
		out.Valid = append(out.Valid, Named{Name: f.Name, Frame: f.Source})
	}
	for _, x := range []struct{ file, name string }{{CompactFile, "compact"}, {ReferenceFile, "reference"}} {
		v, err := readValue(c, x.file)
		if err != nil {
			return nil, err
		}
		if v.Kind != canon.Object {
			return nil, fmt.Errorf("corpus %s: %s: a frame is an object, not %s", c.Name, x.file, v.Kind)
		}
		out.Valid = append(out.Valid, Named{Name: x.name, Frame: v})
	}

	v, err := readValue(c, CitationFile)
	if err != nil {
		return nil, err
	}
	if v.Kind != canon.Object || len(v.Members) == 0 {
		return nil, fmt.Errorf("corpus %s: %s: want an object of named frames", c.Name, CitationFile)
	}
	seen := corpus.Names{}
	for _, m := range v.Members {
		if err := seen.Add(m.Key); err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %q: %w", c.Name, CitationFile, m.Key, err)
		}
		if m.Value.Kind != canon.Object {
			return nil, fmt.Errorf("corpus %s: %s: %q is %s, not a frame", c.Name, CitationFile, m.Key, m.Value.Kind)
		}
		out.Citations = append(out.Citations, Citation{Name: m.Key, Frame: m.Value})
	}

	if out.Strict, err = readStrict(c); err != nil {
		return nil, err
	}
	if out.Vectors, err = readVectors(c); err != nil {
		return nil, err
	}
	return out, nil
}

// readStrict reads strict-validation.invalid.json: unknown-field negatives.
func readStrict(c *corpus.Corpus) ([]StrictCase, error) {
	var out []StrictCase
	cases, err := readList(c, StrictFile, "cases")
	if err != nil {
		return nil, err
	}
	seen := corpus.Names{}
	for i, cs := range cases {
		where := fmt.Sprintf("corpus %s: %s: case %d", c.Name, StrictFile, i)
		f, err := fields(cs, where, "name", "target", "input", "unknown_path")
		if err != nil {
			return nil, err
		}
		s := StrictCase{Name: f["name"].Str, Target: f["target"].Str, Input: f["input"], UnknownPath: f["unknown_path"].Str}
		if err := seen.Add(s.Name); err != nil {
			return nil, fmt.Errorf("%s (%q): %w", where, s.Name, err)
		}
		for _, k := range []string{"name", "target", "unknown_path"} {
			if f[k].Kind != canon.String {
				return nil, fmt.Errorf("%s (%q): %s is not a string", where, s.Name, k)
			}
		}
		if (s.Target != "frame" && s.Target != "query") || !strings.HasPrefix(s.UnknownPath, s.Target+".") {
			return nil, fmt.Errorf("%s (%q): target %q and unknown_path %q: want target frame or query and a path under it", where, s.Name, s.Target, s.UnknownPath)
		}
		out = append(out, s)
	}
	return out, nil
}

// readVectors reads normalization-vectors.json: generic RFC 8785 vectors.
func readVectors(c *corpus.Corpus) ([]Vector, error) {
	var out []Vector
	vectors, err := readList(c, VectorsFile, "vectors")
	if err != nil {
		return nil, err
	}
	seen := corpus.Names{}
	for i, vc := range vectors {
		where := fmt.Sprintf("corpus %s: %s: vector %d", c.Name, VectorsFile, i)
		f, err := fields(vc, where, "name", "input_json", "expected_normalized", "expected_jcs_utf8", "sha256")
		if err != nil {
			return nil, err
		}
		x := Vector{Name: f["name"].Str, InputJSON: f["input_json"].Str, Normalized: f["expected_normalized"], JCS: f["expected_jcs_utf8"].Str, SHA256: f["sha256"].Str}
		if err := seen.Add(x.Name); err != nil {
			return nil, fmt.Errorf("%s (%q): %w", where, x.Name, err)
		}
		for _, k := range []string{"name", "input_json", "expected_jcs_utf8", "sha256"} {
			if f[k].Kind != canon.String {
				return nil, fmt.Errorf("%s (%q): %s is not a string", where, x.Name, k)
			}
		}
		if x.Input, err = canon.Parse([]byte(x.InputJSON), canon.ReadOptions{}); err != nil {
			return nil, fmt.Errorf("%s (%q): input_json: %w", where, x.Name, err)
		}
		if _, err := cgp.Canonical(x.Normalized); err != nil {
			return nil, fmt.Errorf("%s (%q): expected_normalized has no RFC 8785 form: %w", where, x.Name, err)
		}
		out = append(out, x)
	}
	return out, nil
}

func readDigestCases(c *corpus.Corpus, file string) ([]DigestCase, error) {
	cases, err := readList(c, file, "cases")
	if err != nil {
		return nil, err
	}
	var out []DigestCase
	seen := corpus.Names{}
	for i, cs := range cases {
		where := fmt.Sprintf("corpus %s: %s: case %d", c.Name, file, i)
		f, err := fields(cs, where, "name", "source", "expected_normalized", "expected_jcs_utf8", "sha256")
		if err != nil {
			return nil, err
		}
		d := DigestCase{Name: f["name"].Str, Source: f["source"], Normalized: f["expected_normalized"], JCS: f["expected_jcs_utf8"].Str, SHA256: f["sha256"].Str}
		if err := seen.Add(d.Name); err != nil {
			return nil, fmt.Errorf("%s (%q): %w", where, d.Name, err)
		}
		for _, k := range []string{"name", "expected_jcs_utf8", "sha256"} {
			if f[k].Kind != canon.String {
				return nil, fmt.Errorf("%s (%q): %s is not a string", where, d.Name, k)
			}
		}
		if d.Source.Kind != canon.Object || d.Normalized.Kind != canon.Object {
			return nil, fmt.Errorf("%s (%q): source and expected_normalized must be objects", where, d.Name)
		}
		if _, err := cgp.Canonical(d.Normalized); err != nil {
			return nil, fmt.Errorf("%s (%q): expected_normalized has no RFC 8785 form: %w", where, d.Name, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// readValue parses one file as strict JSON (duplicate keys rejected).
func readValue(c *corpus.Corpus, file string) (canon.Value, error) {
	raw, err := c.ReadFile(file)
	if err != nil {
		return canon.Value{}, err
	}
	v, err := canon.Parse(raw, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, fmt.Errorf("corpus %s: %s: %w", c.Name, file, err)
	}
	return v, nil
}

// readList reads a file that is exactly {key: [objects]}.
func readList(c *corpus.Corpus, file, key string) ([]canon.Value, error) {
	v, err := readValue(c, file)
	if err != nil {
		return nil, err
	}
	f, err := fields(v, fmt.Sprintf("corpus %s: %s", c.Name, file), key)
	if err != nil {
		return nil, err
	}
	if f[key].Kind != canon.Array {
		return nil, fmt.Errorf("corpus %s: %s: %s is not an array", c.Name, file, key)
	}
	return f[key].Elems, nil
}

// fields requires v to be an object with exactly the members keys, as the
// fixtures' deny_unknown_fields structs are.
func fields(v canon.Value, where string, keys ...string) (map[string]canon.Value, error) {
	if v.Kind != canon.Object {
		return nil, fmt.Errorf("%s: is %s, not an object", where, v.Kind)
	}
	out := map[string]canon.Value{}
	for _, m := range v.Members {
		if !slices.Contains(keys, m.Key) {
			return nil, fmt.Errorf("%s: unknown field %q", where, m.Key)
		}
		out[m.Key] = m.Value
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("%s: missing field %q", where, k)
		}
	}
	return out, nil
}

// loadSuite builds the suite's checks from a fixture profile and, when
// vectors is not nil, the vector files of that directory (in upstream's
// repository layout, VectorPath) in place of the embedded copies, file by
// file; a file it lacks stays embedded, and it must hold at least one.
func loadSuite(c, vectors *corpus.Corpus) (*check.Suite, error) {
	if isFound(c) {
		if vectors != nil {
			return nil, check.Usagef("--%s: %s is a corpus of found vectors, which replays alone", FlagVectors, c.Name)
		}
		cp, err := ReadFound(c)
		if err != nil {
			return nil, err
		}
		return &check.Suite{Name: Name, Version: Version, Corpus: c.Name + " (vectors found by referee fuzz)", CorpusDigest: c.Digest, Checks: cp.Checks()}, nil
	}
	cp, err := ReadCorpus(c)
	if err != nil {
		return nil, err
	}
	// The vector files are not part of a fixture profile: they are
	// referee's embedded copies of upstream's, or vectors's.
	rc, err := Records()
	if err != nil {
		return nil, err
	}
	vf := &vectorFiles{dir: vectors, embedded: rc, used: map[string]usedFile{}}
	if cp.Records, err = readRecords(vf.open); err != nil {
		return nil, err
	}
	kc, kp, err := vf.open(AttestationKeyFile)
	if err != nil {
		return nil, err
	}
	if cp.Key, err = readAttestationKey(kc, kp, cp.Records); err != nil {
		return nil, err
	}
	gc, gp, err := vf.open(RangeVectorsFile)
	if err != nil {
		return nil, err
	}
	if cp.Ranges, err = readRanges(gc, gp); err != nil {
		return nil, err
	}
	pc, pp, err := vf.open(ProvenanceVectorsFile)
	if err != nil {
		return nil, err
	}
	if cp.Provenance, err = readProvenance(pc, pp); err != nil {
		return nil, err
	}
	ec, ep, err := vf.open(EnvelopeVectorsFile)
	if err != nil {
		return nil, err
	}
	if cp.Envelopes, err = readEnvelopes(ec, ep); err != nil {
		return nil, err
	}
	fr, err := FrameRules()
	if err != nil {
		return nil, err
	}
	if cp.FrameRules, err = ReadFrameRules(fr); err != nil {
		return nil, err
	}
	if err := vf.add(fr, FrameRulesFile); err != nil {
		return nil, err
	}
	extra, err := readRanges(fr, RangeExtraFile)
	if err != nil {
		return nil, err
	}
	for _, rc := range extra {
		rc.Name = "referee-" + rc.Name
		cp.Ranges = append(cp.Ranges, rc)
	}
	if err := vf.add(fr, RangeExtraFile); err != nil {
		return nil, err
	}
	if vectors != nil && !vf.anyFromDir() {
		// The directory --vectors names is not one of upstream's.
		return nil, check.Usagef("--%s: %w", FlagVectors, vf.noneFound(cp.Records))
	}
	return &check.Suite{Name: Name, Version: Version, Corpus: vf.describe(c.Name, cp.Records), CorpusDigest: vf.digest(c.Digest), Checks: cp.Checks()}, nil
}
