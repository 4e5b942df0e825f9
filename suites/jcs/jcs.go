// Package jcs is referee's RFC 8785 (JSON Canonicalization Scheme) suite: it
// runs an implementation's canonicalJson over referee's embedded vectors, or
// over a directory of vectors in referee's format or the RFC 8785 test-data
// layout. Definition declares it to the engine.
package jcs

import (
	"bytes"
	"context"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
)

// Name is the suite's name, as in `referee run jcs`.
const Name = "jcs"

// Version is the suite's own version.
const Version = "1.0.0"

// Op is the one adapter op the suite calls.
const Op = "canonicalJson"

// VectorsFile is the file of a referee-format jcs corpus.
const VectorsFile = "vectors.json"

//go:embed corpus
var embedded embed.FS

// Embedded returns the suite's own corpus, verified against its manifest.
func Embedded() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embedded, "corpus")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:jcs")
}

// load is Definition.Load: the suite from opts.Corpus, or from the embedded
// corpus, and the built-in implementation. Each call builds its own values.
func load(opts check.LoadOptions) (*check.Loaded, error) {
	c, err := corpus.OpenDirOr(opts.Corpus, Embedded)
	if err != nil {
		return nil, err
	}
	suite, err := suiteOf(c)
	if err != nil {
		return nil, err
	}
	return &check.Loaded{
		Suite:     suite,
		Reference: check.ReferenceOf(Reference),
	}, nil
}

// suiteOf builds the suite's checks from a corpus: referee's own format (a
// vectors.json) or the RFC 8785 test-data layout (input/ with output/ or outhex/).
func suiteOf(c *corpus.Corpus) (*check.Suite, error) {
	var checks []check.Check
	var err error
	switch {
	case c.Has(VectorsFile):
		checks, err = loadVectors(c)
	case hasPrefix(c.Files(), "input/"):
		checks, err = loadRFCLayout(c)
	default:
		err = fmt.Errorf("corpus %s: no %s and no input/ directory: not a jcs corpus", c.Name, VectorsFile)
	}
	if err != nil {
		return nil, err
	}
	return &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest, Checks: checks}, nil
}

func hasPrefix(files []string, prefix string) bool {
	for _, f := range files {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// validName reports whether name makes a check ID: lowercase segments of
// a-z 0-9 . _ -, separated by /, each starting with a letter or digit.
func validName(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg[0] == '.' || seg[0] == '_' || seg[0] == '-' {
			return false
		}
		for _, r := range seg {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

// vectorsDoc is the referee-jcs/1 format.
type vectorsDoc struct {
	Format  string   `json:"format"`
	Vectors []vector `json:"vectors"`
}

type vector struct {
	Name   string  `json:"name"`
	Doc    string  `json:"doc"`
	Input  string  `json:"input"`
	Output *string `json:"output"`
	Reject bool    `json:"reject"`
}

func loadVectors(c *corpus.Corpus) ([]check.Check, error) {
	raw, err := c.ReadFile(VectorsFile)
	if err != nil {
		return nil, err
	}
	var doc vectorsDoc
	if err := corpus.DecodeJSON(raw, &doc); err != nil {
		return nil, fmt.Errorf("corpus %s: %s: %w", c.Name, VectorsFile, err)
	}
	if doc.Format != "referee-jcs/1" {
		return nil, fmt.Errorf("corpus %s: %s: format %q, want \"referee-jcs/1\"", c.Name, VectorsFile, doc.Format)
	}
	if len(doc.Vectors) == 0 {
		return nil, fmt.Errorf("corpus %s: %s: no vectors", c.Name, VectorsFile)
	}
	seen := map[string]bool{}
	checks := make([]check.Check, 0, len(doc.Vectors))
	for i, v := range doc.Vectors {
		where := fmt.Sprintf("corpus %s: %s: vector %d (%q)", c.Name, VectorsFile, i, v.Name)
		switch {
		case !validName(v.Name):
			return nil, fmt.Errorf("%s: name must be lowercase slash-separated segments", where)
		case seen[v.Name]:
			return nil, fmt.Errorf("%s: duplicate name", where)
		case v.Reject == (v.Output != nil):
			return nil, fmt.Errorf("%s: needs exactly one of output and reject", where)
		}
		seen[v.Name] = true
		var out []byte
		if v.Output != nil {
			out = []byte(*v.Output)
		}
		checks = append(checks, canonCheck("jcs/"+v.Name, v.Doc, v.Input, out, classify(groupOf(v.Name), v.Input, v.Reject)))
	}
	return checks, nil
}

func loadRFCLayout(c *corpus.Corpus) ([]check.Check, error) {
	var checks []check.Check
	for _, f := range c.Files() {
		dir, file := path.Split(f)
		if dir != "input/" || !strings.HasSuffix(file, ".json") {
			continue
		}
		base := strings.TrimSuffix(file, ".json")
		where := fmt.Sprintf("corpus %s: %s", c.Name, f)
		if !validName(strings.ToLower(base)) {
			return nil, fmt.Errorf("%s: the file name must make a check ID: letters, digits, '.', '_' and '-'", where)
		}
		in, err := c.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(in) {
			return nil, fmt.Errorf("%s: not UTF-8", where)
		}
		var want []byte
		if c.Has("outhex/" + base + ".txt") {
			h, err := c.ReadFile("outhex/" + base + ".txt")
			if err != nil {
				return nil, err
			}
			want, err = hex.DecodeString(strings.Join(strings.Fields(string(h)), ""))
			if err != nil {
				return nil, fmt.Errorf("corpus %s: outhex/%s.txt: %w", c.Name, base, err)
			}
		}
		if c.Has("output/" + base + ".json") {
			out, err := c.ReadFile("output/" + base + ".json")
			if err != nil {
				return nil, err
			}
			if want != nil && !bytes.Equal(want, out) {
				return nil, fmt.Errorf("corpus %s: output/%s.json and outhex/%s.txt disagree", c.Name, base, base)
			}
			want = out
		}
		if want == nil {
			return nil, fmt.Errorf("%s: no output/%s.json or outhex/%s.txt beside it", where, base, base)
		}
		checks = append(checks, canonCheck("jcs/rfc8785/"+base, "RFC 8785 test data "+base, string(in), want, classify("", string(in), false)))
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("corpus %s: input/ holds no .json files", c.Name)
	}
	return checks, nil
}

// canonCheck asks for the canonical text of input and compares it byte for
// byte with want, or requires a rejection, as cl says.
func canonCheck(id, doc, input string, want []byte, cl class) check.Check {
	explain := "sends: " + Op + ` {"value_text": ` + check.Clip(strconv.Quote(input)) + "}\nexpects: "
	switch cl.kind {
	case wantReject:
		doc = "rejects: " + doc
		explain += "a rejection (an err reply, with any code or none)"
	case wantRejectDup:
		doc = "rejects: " + doc
		explain += "a rejection (an err reply, with any code or none); accepting the input is a warning"
	default:
		explain += check.Clip(string(want)) + fmt.Sprintf("\n         (%d bytes, compared byte for byte)", len(want))
		if cl.kind == wantOutputDeep {
			explain += fmt.Sprintf("\n         or a rejection: the input nests %d deep, beyond the %d that must work", cl.depth, MustDepth)
		}
	}
	return check.Check{
		ID:      id,
		Doc:     doc,
		Needs:   []string{Op},
		Explain: explain,
		Level:   cl.level,
		Clause:  cl.clause,
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			r, err := s.Call(ctx, Op, map[string]string{"value_text": input})
			if err != nil {
				return check.Broke(err)
			}
			switch cl.kind {
			case wantReject, wantRejectDup:
				if r.Err != nil {
					return check.Passed()
				}
				reason := "accepted an input that RFC 8785 requires to be rejected"
				if cl.kind == wantRejectDup {
					reason = reasonDuplicates
				}
				return check.Failed(reason, "a rejection (err)", r.OK.String())
			}
			if r.Err != nil {
				if cl.kind == wantOutputDeep {
					return check.Chose(check.ChoseReject)
				}
				o := check.Failed("rejected a valid input: "+r.Err.Error(), string(want), "err "+r.Err.Error())
				if cl.depth > 16 {
					o.Notes = []string{fmt.Sprintf("the input nests %d deep; nesting up to depth %d must work", cl.depth, MustDepth)}
				}
				return o
			}
			if r.OK.Kind != canon.String {
				return check.Failed("ok is "+r.OK.Kind.String()+", not the canonical text as a JSON string", string(want), r.OK.String())
			}
			o := check.SameBytes("canonical text", want, []byte(r.OK.Str))
			if o.Status == check.Pass && cl.kind == wantOutputDeep {
				return check.Chose(check.ChoseOutput)
			}
			return o
		},
	}
}

// Handler is the built-in adapter: referee's own canon package, honest or in
// one of the broken modes of Definition.Modes.
type Handler struct {
	name string  // the broken mode's name, "" for the honest one
	mode *broken // nil for the honest one
}

// Reference returns the built-in adapter in mode ("" for the honest one).
func Reference(mode string) (*Handler, error) {
	if mode == "" {
		return &Handler{}, nil
	}
	if _, err := check.FindMode(Name, modes, func(m *check.Mode) string { return m.Name }, mode); err != nil {
		return nil, err
	}
	b, ok := brokenModes[mode]
	if !ok {
		return nil, fmt.Errorf("%s: broken mode %q has no behaviour (a bug in referee)", Name, mode)
	}
	return &Handler{name: mode, mode: &b}, nil
}

// Hello describes the built-in adapter.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-canon"
	if h.name != "" {
		name += "+" + h.name
	}
	return adapter.Hello{Name: name, Version: Version, Ops: []string{Op}, Concurrency: 8}
}

// Handle performs canonicalJson.
func (h *Handler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if op != Op {
		return nil, &adapter.Error{Code: "unknown_op", Message: op}
	}
	a, err := canon.Parse(args, canon.ReadOptions{})
	if err != nil || a.Kind != canon.Object {
		return nil, &adapter.Error{Code: "bad_args", Message: "args must be a JSON object"}
	}
	var text *canon.Value
	for i := range a.Members {
		if a.Members[i].Key == "value_text" {
			text = &a.Members[i].Value
		}
	}
	if text == nil || text.Kind != canon.String {
		return nil, &adapter.Error{Code: "bad_args", Message: "args.value_text must be a string"}
	}
	var out []byte
	if h.mode == nil {
		out, err = canon.JCS.Canonicalize([]byte(text.Str), canon.ReadOptions{})
	} else {
		out, err = h.mode.canonicalize([]byte(text.Str))
	}
	if err != nil {
		return nil, &adapter.Error{Code: errorCode(err), Message: err.Error()}
	}
	text2, err := canon.JSONStringify.Marshal(string(out))
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return text2, nil
}

func errorCode(err error) string {
	switch {
	case errors.Is(err, canon.ErrDuplicateKey):
		return "duplicate_key"
	case errors.Is(err, canon.ErrLoneSurrogate):
		return "lone_surrogate"
	case errors.Is(err, canon.ErrNumberRange):
		return "number_out_of_range"
	case errors.Is(err, canon.ErrDepth):
		return "too_deep"
	}
	return "parse_error"
}
