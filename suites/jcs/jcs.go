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

// The adapter ops the suite calls.
const (
	// Op canonicalises a JSON text given as a string: {"value_text": T}.
	Op = "canonicalJson"
	// OpBytes canonicalises raw bytes given in hex: {"value_hex": H}. The
	// suite sends it only inputs that are not UTF-8, which no JSON string
	// can carry; an adapter offers it in its hello when it can take bytes.
	OpBytes = "canonicalJsonBytes"
)

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
	c, err := corpus.OpenDirOr(opts.Corpus, opts.MaxFileSize, Embedded)
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
	Name     string   `json:"name"`
	Doc      string   `json:"doc"`
	Input    *string  `json:"input,omitempty"`
	InputHex *string  `json:"input_hex,omitempty"`
	Output   *string  `json:"output,omitempty"`
	Reject   bool     `json:"reject,omitempty"`
	Lenient  []string `json:"lenient_outputs,omitempty"`
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
		case (v.Input == nil) == (v.InputHex == nil):
			return nil, fmt.Errorf("%s: needs exactly one of input and input_hex", where)
		case len(v.Lenient) > 0 && !v.Reject:
			return nil, fmt.Errorf("%s: lenient_outputs go with reject, not output", where)
		}
		seen[v.Name] = true
		var input []byte
		if v.Input != nil {
			input = []byte(*v.Input)
		} else {
			if input, err = hex.DecodeString(*v.InputHex); err != nil {
				return nil, fmt.Errorf("%s: input_hex: %w", where, err)
			}
			if utf8.Valid(input) {
				return nil, fmt.Errorf("%s: input_hex is valid UTF-8: give it as input, which every adapter can take", where)
			}
		}
		var out []byte
		if v.Output != nil {
			out = []byte(*v.Output)
		}
		var lenient [][]byte
		for j, l := range v.Lenient {
			if _, err := canon.Parse([]byte(l), canon.ReadOptions{}); err != nil {
				return nil, fmt.Errorf("%s: lenient_outputs[%d] is not JSON: %w", where, j, err)
			}
			lenient = append(lenient, []byte(l))
		}
		if err := checkVector(input, out, v.Reject, lenient); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		checks = append(checks, canonCheck("jcs/"+v.Name, v.Doc, input, out, lenient, classify(groupOf(v.Name), input, v.Reject, lenient)))
	}
	return checks, nil
}

// checkVector refuses a vector whose expectation contradicts its input: an
// output for an input that is not JSON (nothing to canonicalise: the corpus
// is wrong, not the implementation) or that RFC 8785 must reject, a
// rejection of JSON that RFC 8785 canonicalises, or lenient outputs for an
// input that is JSON.
func checkVector(input, output []byte, reject bool, lenient [][]byte) error {
	v, perr := canon.Parse(input, canon.ReadOptions{Duplicates: canon.LastWins})
	if !reject {
		if perr != nil {
			return fmt.Errorf("expects an output, but its input is not JSON: %w", perr)
		}
		if _, err := canon.JCS.Append(nil, v); err != nil {
			return fmt.Errorf("expects an output, but RFC 8785 requires its input to be rejected: %w", err)
		}
		if _, err := canon.Parse(input, canon.ReadOptions{}); err != nil {
			return fmt.Errorf("expects an output, but its input should be rejected: %w", err)
		}
		return nil
	}
	if perr != nil {
		return nil
	}
	if len(lenient) > 0 {
		return fmt.Errorf("has lenient_outputs, but its input is JSON")
	}
	_, werr := canon.JCS.Append(nil, v)
	if _, strict := canon.Parse(input, canon.ReadOptions{}); werr == nil && strict == nil {
		return fmt.Errorf("expects a rejection, but its input is JSON that RFC 8785 canonicalises")
	}
	return nil
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
		if err := checkVector(in, want, false, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		checks = append(checks, canonCheck("jcs/rfc8785/"+base, "RFC 8785 test data "+base, in, want, nil, classify("", in, false, nil)))
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("corpus %s: input/ holds no .json files", c.Name)
	}
	return checks, nil
}

// request returns the op and args that send input: value_text when it is
// UTF-8, value_hex (to OpBytes) when it is not.
func request(input []byte, hexed bool) (op string, args map[string]string, shown string) {
	if hexed {
		h := hex.EncodeToString(input)
		return OpBytes, map[string]string{"value_hex": h}, OpBytes + ` {"value_hex": ` + check.Clip(strconv.Quote(h)) + "}"
	}
	return Op, map[string]string{"value_text": string(input)}, Op + ` {"value_text": ` + check.Clip(strconv.Quote(string(input))) + "}"
}

// canonCheck asks for the canonical text of input and compares it byte for
// byte with want, or requires a rejection, as cl says. lenient are the
// outputs of the lenient readings of an input that is not JSON.
func canonCheck(id, doc string, input, want []byte, lenient [][]byte, cl class) check.Check {
	op, args, shown := request(input, cl.hex)
	explain := "sends: " + shown + "\nexpects: "
	if cl.output != nil {
		want = cl.output
	}
	switch cl.kind {
	case wantReject:
		doc = "rejects: " + doc
		explain += "a rejection (an err reply, with any code or none)"
	case wantRejectDup:
		doc = "rejects: " + doc
		explain += "a rejection (an err reply, with any code or none); accepting the input is a warning"
	case wantRejectText:
		doc = "rejects: " + doc
		explain += "a rejection (an err reply, with any code or none); an output that keeps the value of a lenient reading is a warning:"
		for _, l := range lenient {
			explain += "\n         " + check.Clip(string(l))
		}
		explain += "\n         and any other output fails as a must"
	default:
		explain += check.Clip(string(want)) + fmt.Sprintf("\n         (%d bytes, compared byte for byte)", len(want))
		if cl.kind == wantOutputMay {
			explain += "\n         or a rejection: " + cl.why
		}
	}
	c := check.Check{
		ID:      id,
		Doc:     doc,
		Needs:   []string{op},
		Explain: explain,
		Level:   cl.level,
		Clause:  cl.clause,
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			r, err := s.Call(ctx, op, args)
			if err != nil {
				return check.Broke(err)
			}
			return judge(r, want, lenient, cl)
		},
	}
	if cl.hex {
		c.MissingReason = "the input is not UTF-8, so no JSON string can carry it: it travels as value_hex to " + OpBytes + ", which the adapter does not offer"
	}
	return c
}

// judge decides a check from the reply.
func judge(r *adapter.Reply, want []byte, lenient [][]byte, cl class) check.Outcome {
	switch cl.kind {
	case wantReject, wantRejectDup, wantRejectText:
		if r.Err != nil {
			return check.Passed()
		}
		got := r.OK.String()
		switch {
		case cl.kind == wantRejectDup:
			return check.Failed(reasonDuplicates, "a rejection (err)", got)
		case cl.kind == wantReject && cl.hex:
			return check.Failed(reasonNotUTF8, "a rejection (err)", got)
		case cl.kind == wantReject && cl.clause == clauseNoValue:
			return check.Failed(reasonInvented, "a rejection (err)", got)
		case cl.kind == wantReject:
			return check.Failed("accepted an input that RFC 8785 requires to be rejected", "a rejection (err)", got)
		}
		if r.OK.Kind == canon.String {
			for _, l := range lenient {
				if string(l) == r.OK.Str {
					return check.Failed(reasonLenient, "a rejection (err)", r.OK.Str)
				}
			}
		}
		o := check.Failed(reasonChanged, "a rejection (err)", got)
		o.Level = check.Must
		o.Notes = []string{"the outputs of the lenient readings that keep the value: " + joinTexts(lenient)}
		return o
	}
	if r.Err != nil {
		if cl.kind == wantOutputMay {
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
	if o.Status == check.Pass && cl.kind == wantOutputMay {
		return check.Chose(check.ChoseOutput)
	}
	return o
}

func joinTexts(ts [][]byte) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = check.Clip(string(t))
	}
	return strings.Join(parts, ", ")
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

// Hello describes the built-in adapter: it takes text and bytes.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-canon"
	if h.name != "" {
		name += "+" + h.name
	}
	return adapter.Hello{Name: name, Version: Version, Ops: []string{Op, OpBytes}, Concurrency: 8}
}

// Handle performs canonicalJson and canonicalJsonBytes.
func (h *Handler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	var name string
	switch op {
	case Op:
		name = "value_text"
	case OpBytes:
		name = "value_hex"
	default:
		return nil, &adapter.Error{Code: "unknown_op", Message: op}
	}
	a, err := canon.Parse(args, canon.ReadOptions{})
	if err != nil || a.Kind != canon.Object {
		return nil, &adapter.Error{Code: "bad_args", Message: "args must be a JSON object"}
	}
	arg, ok := a.Lookup(name)
	if !ok || arg.Kind != canon.String {
		return nil, &adapter.Error{Code: "bad_args", Message: "args." + name + " must be a string"}
	}
	input := []byte(arg.Str)
	if op == OpBytes {
		if input, err = hex.DecodeString(arg.Str); err != nil {
			return nil, &adapter.Error{Code: "bad_args", Message: "args.value_hex is not hex"}
		}
	}
	var out []byte
	if h.mode == nil {
		out, err = canon.JCS.Canonicalize(input, canon.ReadOptions{})
	} else {
		out, err = h.mode.canonicalize(input)
	}
	if err != nil {
		return nil, &adapter.Error{Code: errorCode(err), Message: err.Error()}
	}
	text, err := canon.JSONStringify.Marshal(string(out))
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return text, nil
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
	case errors.Is(err, canon.ErrInvalidUTF8):
		return "invalid_utf8"
	}
	return "parse_error"
}
