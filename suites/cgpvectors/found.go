package cgpvectors

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/protocols/cgp"
)

// A corpus of found vectors is what `referee fuzz cgp-vectors --out DIR`
// writes, and `referee run cgp-vectors --corpus DIR` replays: a manifest
// with the fuzz run's provenance (and no protocol_version: it is no fixture
// profile), and one or more of FoundFiles, each in its usual format. Only
// its own cases are checked: the embedded vector files do not come with it.

// OpCasesFile holds referee's op cases: calls of the ops whose answer is a
// pure function of their args, each with the reference's answer.
const OpCasesFile = "op-cases.json"

// opCasesFormat is OpCasesFile's format member.
const opCasesFormat = "referee-cgp-op-cases/1"

// FoundFiles are the files a corpus of found vectors may hold: four of the
// fixture profile's, the line-range vectors in upstream's format, and
// referee's frame-rules vectors and op cases.
var FoundFiles = []string{FrameFile, QueryFile, StrictFile, VectorsFile, RangeVectorsFile, FrameRulesFile, OpCasesFile}

// OpCase is one call of an op whose answer is a pure function of its args,
// and the answer the reference gave.
type OpCase struct {
	Name     string
	Op       string
	Args     canon.Value
	Expected canon.Value
}

// opCaseIDs maps each op an op case may call to its check's ID, around the
// case's name.
var opCaseIDs = &lazy.Value[map[string][2]string]{New: func() map[string][2]string {
	return map[string][2]string{
		OpEncodeLink:            {"provenance/link/", ""},
		OpChainHead:             {"provenance/chain/", ""},
		OpFrameCommitment:       {"provenance/commitment/", ""},
		OpMerkleRoot:            {"provenance/merkle-root/", ""},
		OpResultRoot:            {"provenance/result-root/", ""},
		OpInclusionProof:        {"provenance/inclusion-proof/", ""},
		OpVerifyInclusion:       {"provenance/verify-inclusion/", ""},
		OpSignCommitment:        {"provenance/sign/", ""},
		OpRecordHash:            {"record/", "/hash"},
		OpSignRecordAttestation: {"record-attestation/sign/", ""},
		// Found verdicts and envelopes (foundops.go).
		OpVerifyAttestation:       {"provenance/verify/", ""},
		OpVerifyRecordAttestation: {"record-attestation/verify/", ""},
		OpRoundTripEnvelope:       {"envelope/", "/round-trip"},
	}
}}

// isFound reports whether c is a corpus of found vectors: its manifest
// carries a fuzz run's provenance and is no fixture profile's.
func isFound(c *corpus.Corpus) bool {
	if c.Manifest == nil || cgp.IsProfileManifest(c.Manifest.Meta) {
		return false
	}
	for _, m := range c.Manifest.Meta {
		if f, ok := m.Value.Lookup("format"); m.Key == "fuzz" && ok && f.Str == corpus.FuzzProvenanceFormat {
			return true
		}
	}
	return false
}

// ReadFound reads a corpus of found vectors: each of FoundFiles it holds,
// as strictly as in a profile or a vector directory; any other file, or
// none of them, is an error.
func ReadFound(c *corpus.Corpus) (*Corpus, error) {
	var held []string
	for _, f := range c.Files() {
		if !slices.Contains(FoundFiles, f) {
			return nil, fmt.Errorf("corpus %s: %s: a corpus of found vectors holds only %s", c.Name, f, strings.Join(FoundFiles, ", "))
		}
		held = append(held, f)
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("corpus %s: a corpus of found vectors holds one or more of %s, and this one none", c.Name, strings.Join(FoundFiles, ", "))
	}
	out := &Corpus{}
	var err error
	for _, f := range held {
		switch f {
		case FrameFile:
			out.Frames, err = readDigestCases(c, f)
		case QueryFile:
			out.Queries, err = readDigestCases(c, f)
		case StrictFile:
			out.Strict, err = readStrict(c)
		case VectorsFile:
			out.Vectors, err = readVectors(c)
		case RangeVectorsFile:
			out.Ranges, err = readRanges(c, f)
			// Each found case has a resource of its own, named as the case.
			for i := range out.Ranges {
				out.Ranges[i].Name = out.Ranges[i].Resource
			}
		case FrameRulesFile:
			out.FrameRules, err = ReadFrameRules(c)
		case OpCasesFile:
			out.Found, err = readOpCases(c, f)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readOpCases reads op-cases.json strictly: {format, cases: [{name, op,
// args, expected}]}, each op one of opCaseIDs, its args an object and its
// expected answer of the op's kind.
func readOpCases(c *corpus.Corpus, path string) ([]OpCase, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, path)
	v, err := readValue(c, path)
	if err != nil {
		return nil, err
	}
	top, err := fields(v, where, "format", "cases")
	if err != nil {
		return nil, err
	}
	if f := top["format"]; f.Kind != canon.String || f.Str != opCasesFormat {
		return nil, fmt.Errorf("%s: format is %s, want %q", where, f.String(), opCasesFormat)
	}
	if top["cases"].Kind != canon.Array {
		return nil, fmt.Errorf("%s: cases is not an array", where)
	}
	var out []OpCase
	seen := map[string]bool{}
	for i, e := range top["cases"].Elems {
		w := fmt.Sprintf("%s: case %d", where, i)
		f, err := fields(e, w, "name", "op", "args", "expected")
		if err != nil {
			return nil, err
		}
		oc := OpCase{Name: f["name"].Str, Op: f["op"].Str, Args: f["args"], Expected: f["expected"]}
		want := "a string"
		if oc.Op == OpInclusionProof || oc.Op == OpVerifyInclusion || oc.Op == OpVerifyRecordAttestation {
			want = "an object"
		}
		_, known := opCaseIDs.Get()[oc.Op]
		valid, _ := oc.Expected.Lookup("valid")
		_, isVerdict := recordVerdict(oc.Expected)
		switch {
		case f["name"].Kind != canon.String || oc.Name == "" || strings.ContainsAny(oc.Name, "/*"):
			return nil, fmt.Errorf("%s: name %s is not a name (a non-empty string without / or *)", w, f["name"].String())
		case f["op"].Kind != canon.String || !known:
			return nil, fmt.Errorf("%s (%s): op %s is not one of the ops an op case calls", w, oc.Name, f["op"].String())
		case oc.Args.Kind != canon.Object:
			return nil, fmt.Errorf("%s (%s): args is %s, not an object", w, oc.Name, oc.Args.Kind)
		case want == "a string" && oc.Expected.Kind != canon.String,
			want == "an object" && oc.Expected.Kind != canon.Object,
			oc.Op == OpVerifyInclusion && valid.Kind != canon.Bool,
			oc.Op == OpVerifyRecordAttestation && !isVerdict:
			return nil, fmt.Errorf("%s (%s): expected is %s; %s answers %s", w, oc.Name, oc.Expected.Kind, oc.Op, want)
		}
		id := opCaseID(oc)
		if seen[id] {
			return nil, fmt.Errorf("%s (%s): a second case of %s named %s", w, oc.Name, oc.Op, oc.Name)
		}
		seen[id] = true
		out = append(out, oc)
	}
	return out, nil
}

func opCaseID(oc OpCase) string {
	id := opCaseIDs.Get()[oc.Op]
	return "cgp-vectors/" + id[0] + oc.Name + id[1]
}

// opCaseNotes is what a failed op case says about the op's rule.
var opCaseNotes = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		OpEncodeLink:            noteEncoding,
		OpChainHead:             noteChain,
		OpFrameCommitment:       noteCommitment,
		OpMerkleRoot:            noteMerkle,
		OpResultRoot:            "the leaves are the frames' commitments ordered by FrameId: provider_id, then frame id, then content_digest (absent first), strings compared by UTF-8 bytes; " + noteMerkle,
		OpInclusionProof:        "the path is RFC 6962's audit path, the sibling nearest the leaf first; sibling_is_left says the sibling is the left operand of SHA-256(01 ‖ l ‖ r)",
		OpVerifyInclusion:       "the path must have the length and the sides that leaf_index and leaf_count give, and replay from SHA-256(00 ‖ leaf) to the root",
		OpSignCommitment:        noteSign,
		OpRecordHash:            "record_hash is sha256 of the RFC 8785 text of the record with its top-level record_hash member removed (not blanked); namespaced members are content",
		OpSignRecordAttestation: `Ed25519 over "contextgraph/attest/1/record" followed by the 32 raw bytes of signed_record_hash`,
	}
}}

// opCaseCheck is the check of an op case: the op's answer to its args is
// the expected one (a string byte for byte, a proof by its RFC 8785 bytes,
// a verifyInclusion answer by its valid member).
func opCaseCheck(oc OpCase) check.Check {
	switch oc.Op {
	case OpVerifyAttestation:
		return verifyCaseCheck(oc)
	case OpVerifyRecordAttestation:
		return recordVerifyCaseCheck(oc)
	case OpRoundTripEnvelope:
		return envelopeCaseCheck(oc)
	}
	args := json.RawMessage(oc.Args.String())
	want := oc.Expected.String()
	clause := opClause(oc.Op)
	switch oc.Op {
	case OpRecordHash:
		clause = clauseRecordHash
	case OpSignRecordAttestation:
		clause = clauseRecordSigned
	}
	return check.Check{
		ID:      opCaseID(oc),
		Doc:     fmt.Sprintf("%s of the found input %s answers as the reference does", oc.Op, oc.Name),
		Needs:   []string{oc.Op},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s", oc.Op, check.Clip(string(args)), check.Clip(want)),
		Clause:  clause,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			note := opCaseNotes.Get()[oc.Op]
			e := check.Expect{Op: oc.Op, Args: args, Want: want, Notes: []string{note}}
			if oc.Op == OpInclusionProof {
				e.Words = mustAnswerProof
				return e.Value(ctx, s, "the proof (as RFC 8785 text)", oc.Expected)
			}
			return opCaseAnswer(ctx, s, e, oc)
		},
	}
}

// opCaseAnswer judges the answer of an op case that is not a proof: a
// verifyInclusion verdict by its valid member, any other op's string byte
// for byte. A wrong answer carries the note of the op's rule, an answer
// of the wrong shape does not.
func opCaseAnswer(ctx context.Context, s *check.Session, e check.Expect, oc OpCase) check.Outcome {
	if oc.Op != OpVerifyInclusion {
		got, o, ok := e.Text(ctx, s)
		if !ok {
			return o
		}
		if o = differs(oc.Op+"'s answer", oc.Expected.Str, got); o.Status == check.Fail {
			o.Notes = e.Notes
		}
		return o
	}
	r, o, ok := e.OK(ctx, s)
	if !ok {
		return o
	}
	wv, _ := oc.Expected.Lookup("valid")
	v, ok := r.Lookup("valid")
	switch {
	case r.Kind != canon.Object || !ok || v.Kind != canon.Bool:
		return check.Failed(oc.Op+` must answer {"valid": B, ...}`, e.Want, r.String())
	case v.Bool == wv.Bool:
		return check.Passed()
	case wv.Bool:
		o = check.Failed("a proof that replays to the root was refused", e.Want, r.String())
	default:
		o = check.Failed("a proof that must be refused was accepted", e.Want, r.String())
	}
	o.Notes = e.Notes
	return o
}

// The JSON shapes of the found files, as written.
type (
	digestCaseJSON struct {
		Name       string          `json:"name"`
		Source     json.RawMessage `json:"source"`
		Normalized json.RawMessage `json:"expected_normalized"`
		JCS        string          `json:"expected_jcs_utf8"`
		SHA256     string          `json:"sha256"`
	}
	strictCaseJSON struct {
		Name        string          `json:"name"`
		Target      string          `json:"target"`
		Input       json.RawMessage `json:"input"`
		UnknownPath string          `json:"unknown_path"`
	}
	vectorJSON struct {
		Name       string          `json:"name"`
		InputJSON  string          `json:"input_json"`
		Normalized json.RawMessage `json:"expected_normalized"`
		JCS        string          `json:"expected_jcs_utf8"`
		SHA256     string          `json:"sha256"`
	}
	rangeCaseJSON struct {
		Resource     string  `json:"resource"`
		Range        *string `json:"range,omitempty"`
		Bytes        *string `json:"bytes,omitempty"`
		Digest       *string `json:"digest,omitempty"`
		Unverifiable *string `json:"unverifiable,omitempty"`
		text         string  // the resource
	}
	opCaseJSON struct {
		Name     string          `json:"name"`
		Op       string          `json:"op"`
		Args     json.RawMessage `json:"args"`
		Expected json.RawMessage `json:"expected"`
	}
)

// foundEntry is one found vector as a corpus entry: the cases it adds to
// one file (op cases: one or more).
type foundEntry struct {
	File  string
	Cases []any
}

// rangeReasons are the unverifiable reasons a found range case may give,
// as upstream's range-vectors.json words them.
var rangeReasons = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		cgp.RangeUnrecognised: "Not a line-range in the grammar: reserved, never a whole-resource fallback.",
		cgp.RangeInverted:     "A line-range whose end precedes its start.",
		cgp.RangeStartPastEnd: "The range starts past the resource's last line.",
	}
}}

// foundFiles lays entries out as the files of a corpus of found vectors,
// each holding the cases of its kind in order; a file with none is left out.
func foundFiles(entries []any) (map[string][]byte, error) {
	cases := map[string][]any{}
	for _, v := range entries {
		e, ok := v.(foundEntry)
		if !ok || !slices.Contains(FoundFiles, e.File) {
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, v)
		}
		cases[e.File] = append(cases[e.File], e.Cases...)
	}
	files := map[string][]byte{}
	for name, cs := range cases {
		var doc any
		switch name {
		case VectorsFile:
			doc = map[string]any{"vectors": cs}
		case RangeVectorsFile:
			resources := map[string]string{}
			for _, c := range cs {
				rc := c.(rangeCaseJSON)
				resources[rc.Resource] = rc.text
			}
			doc = map[string]any{
				"$comment":             "Line-range cases found by referee fuzz, in the format of upstream's range-vectors.json: each case has a resource of its own, named as the case.",
				"unverifiable_reasons": rangeReasons.Get(),
				"resources":            resources,
				"cases":                cs,
			}
		case OpCasesFile:
			doc = map[string]any{"format": opCasesFormat, "cases": cs}
		case FrameRulesFile:
			doc = map[string]any{"note": "Frames found by referee fuzz, in the format of referee's frame-rules.json: each case's rules are those the reference finds the frame breaks.", "cases": cs}
		default:
			doc = map[string]any{"cases": cs}
		}
		b, err := corpus.MarshalJSON(doc)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// differs passes when got is want, and otherwise fails naming the first
// byte where they part. It carries no byte diff: the answers are digests
// and hex, whose bytes say nothing about the kind of mistake, so a fuzz
// finding's failure key does not turn on which hex digit came first.
func differs(what, want, got string) check.Outcome {
	if want == got {
		return check.Passed()
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return check.Failed(fmt.Sprintf("%s differs at byte %d", what, i), want, got)
}
