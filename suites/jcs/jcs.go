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
	"hash/maphash"
	"io"
	"io/fs"
	"path"
	"slices"
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
	if opts.ReferenceOnly && opts.Corpus == "" && opts.FS == nil {
		// The built-in canonicaliser reads no corpus: serving it costs
		// no reading and analysis of every vector. (A corpus named is
		// still read, and its problems reported, as before.)
		return &check.Loaded{Reference: check.ReferenceOf(Reference)}, nil
	}
	c, err := opts.OpenCorpus(Embedded)
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
	for seg := range strings.SplitSeq(name, "/") {
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

// loadVectors makes the checks of a referee-jcs/1 vectors.json. It reads the
// file as a stream and keeps none of its vectors: each check reads its own
// back when it runs or is explained (vectorFile), so that a corpus of any
// size is never held whole. A file with a problem is read whole, as the
// suite always read it, so that the error names its first problem as it
// always has.
func loadVectors(c *corpus.Corpus) ([]check.Check, error) {
	if f, err := c.FS.Open(VectorsFile); err == nil {
		if ra, ok := f.(io.ReaderAt); ok {
			// A corpus held in memory (the fuzz engine's) keeps its
			// vectors as decoded: its bytes are held whole anyway.
			if checks, ok := indexFile(c.Name, f, ra, c.Name == check.InMemoryCorpus); ok {
				return checks, nil // f stays open: the checks read it
			}
		}
		f.Close()
	}
	raw, err := c.ReadFile(VectorsFile)
	if err != nil {
		return nil, err
	}
	// A file whose fs.File cannot read at offsets: index it in memory; a
	// file the index does not take gets the whole-file reader's error.
	r := bytes.NewReader(raw)
	if checks, ok := indexVectors(c.Name, r, r); ok {
		return checks, nil
	}
	if err := vectorsProblem(c.Name, raw); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("corpus %s: %s: valid when read whole, yet not when read as a stream (a bug in referee)", c.Name, VectorsFile)
}

// indexVectors reads a referee-jcs/1 vectors.json from r, one vector at a
// time, and returns its checks, which read their vectors back from ra. It
// returns false at the first thing it does not take: anything
// vectorsProblem would refuse, and anything it would take only read whole.
func indexVectors(name string, r io.Reader, ra io.ReaderAt) ([]check.Check, bool) {
	vf := newVectorFile(name, VectorsFile, ra)
	b := newVectorChecks(name, false)
	dec := json.NewDecoder(r)
	if !delim(dec, '{') {
		return nil, false
	}
	var format string
	var sawFormat, sawVectors bool
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch key {
		case "format":
			var raw json.RawMessage
			if sawFormat || dec.Decode(&raw) != nil || corpus.DecodeJSON(raw, &format) != nil {
				return nil, false
			}
			sawFormat = true
		case "vectors":
			if sawVectors || !delim(dec, '[') {
				return nil, false
			}
			sawVectors = true
			for i := 0; dec.More(); i++ {
				var raw json.RawMessage
				if dec.Decode(&raw) != nil {
					return nil, false
				}
				var v vector
				if corpus.DecodeJSON(raw, &v) != nil {
					return nil, false
				}
				p, err := b.prepare(i, &v)
				if err != nil {
					return nil, false
				}
				vf.add(dec.InputOffset()-int64(len(raw)), raw, p)
			}
			if !delim(dec, ']') {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if !delim(dec, '}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF || format != "referee-jcs/1" || len(vf.refs) == 0 || !b.distinct() {
		return nil, false
	}
	return vf.checks(), true
}

// delim reads the next token of dec and reports whether it is d.
func delim(dec *json.Decoder, d json.Delim) bool {
	t, err := dec.Token()
	return err == nil && t == d
}

// vectorsProblem reads raw, a whole vectors.json, as the suite always has
// and returns its first problem, naming the corpus, the file and, for a
// vector's own problem, the vector; nil when it has none.
func vectorsProblem(name string, raw []byte) error {
	var doc vectorsDoc
	if err := corpus.DecodeJSON(raw, &doc); err != nil {
		return fmt.Errorf("corpus %s: %s: %w", name, VectorsFile, err)
	}
	if doc.Format != "referee-jcs/1" {
		return fmt.Errorf("corpus %s: %s: format %q, want \"referee-jcs/1\"", name, VectorsFile, doc.Format)
	}
	if len(doc.Vectors) == 0 {
		return fmt.Errorf("corpus %s: %s: no vectors", name, VectorsFile)
	}
	b := newVectorChecks(name, true)
	for i := range doc.Vectors {
		if _, err := b.prepare(i, &doc.Vectors[i]); err != nil {
			return err
		}
	}
	return nil
}

// vectorChecks makes the checks of one vectors.json's vectors, in order.
// Read whole, it refuses a duplicate name where it is (seen); read as a
// stream, it keeps a digest of each ID, eight bytes where a set would take
// several times that, and finds duplicates at the end (distinct).
type vectorChecks struct {
	corpus string
	seen   map[string]bool   // the IDs so far, read whole
	ids    []uint64          // the IDs' digests, read as a stream
	seed   maphash.Seed      // of ids
	docs   map[string]string // each doc once, however many vectors share it
}

func newVectorChecks(corpus string, whole bool) *vectorChecks {
	b := &vectorChecks{corpus: corpus, seed: maphash.MakeSeed(), docs: map[string]string{}}
	if whole {
		b.seen = map[string]bool{}
	}
	return b
}

// distinct reports whether no two IDs read as a stream have the same
// digest: surely no duplicate name. (Two that do are most likely one name
// twice; the file read whole tells which.)
func (b *vectorChecks) distinct() bool {
	slices.Sort(b.ids)
	for i := 1; i < len(b.ids); i++ {
		if b.ids[i] == b.ids[i-1] {
			return false
		}
	}
	return true
}

// prepared is what a vector's check is made of, besides the vector.
type prepared struct {
	id, doc string
	class   class
	data    vectorData // what the vector sends and expects
}

// prepare checks vector i and decides its check's ID, doc and class; the
// error names the corpus, the file and the vector.
func (b *vectorChecks) prepare(i int, v *vector) (prepared, error) {
	fail := func(format string, args ...any) (prepared, error) {
		where := fmt.Sprintf("corpus %s: %s: vector %d (%q)", b.corpus, VectorsFile, i, v.Name)
		return prepared{}, fmt.Errorf(where+": "+format, args...)
	}
	id := "jcs/" + v.Name
	switch {
	case !validName(v.Name):
		return fail("name must be lowercase slash-separated segments")
	case b.seen != nil && b.seen[id]:
		return fail("duplicate name")
	case v.Reject == (v.Output != nil):
		return fail("needs exactly one of output and reject")
	case (v.Input == nil) == (v.InputHex == nil):
		return fail("needs exactly one of input and input_hex")
	case len(v.Lenient) > 0 && !v.Reject:
		return fail("lenient_outputs go with reject, not output")
	}
	if b.seen != nil {
		b.seen[id] = true
	} else {
		b.ids = append(b.ids, maphash.String(b.seed, id))
	}
	d, err := dataOf(v)
	if err != nil {
		return fail("input_hex: %w", err)
	}
	if v.InputHex != nil && utf8.Valid(d.input) {
		return fail("input_hex is valid UTF-8: give it as input, which every adapter can take")
	}
	for j, l := range d.lenient {
		if _, err := canon.Parse(l, canon.ReadOptions{}); err != nil {
			return fail("lenient_outputs[%d] is not JSON: %w", j, err)
		}
	}
	cl, err := analyze(groupOf(v.Name), d.input, d.want, v.Reject, d.lenient)
	if err != nil {
		return fail("%w", err)
	}
	return prepared{id: id, doc: b.intern(docOf(v.Doc, cl)), class: cl, data: d}, nil
}

// intern returns s, or the same text kept before; a generated corpus gives
// every vector the same doc.
func (b *vectorChecks) intern(s string) string {
	if t, ok := b.docs[s]; ok {
		return t
	}
	if len(b.docs) < 1<<12 {
		b.docs[s] = s
	}
	return s
}

// dataOf returns what vector v sends and expects, as bytes.
func dataOf(v *vector) (vectorData, error) {
	var d vectorData
	if v.Input != nil {
		d.input = []byte(*v.Input)
	} else if v.InputHex != nil {
		var err error
		if d.input, err = hex.DecodeString(*v.InputHex); err != nil {
			return d, err
		}
	}
	if v.Output != nil {
		d.want = []byte(*v.Output)
	}
	for _, l := range v.Lenient {
		d.lenient = append(d.lenient, []byte(l))
	}
	return d, nil
}

// analyze refuses a vector whose expectation contradicts its input
// (checkReading) and classifies it (classify), reading its input once.
func analyze(group string, input, output []byte, reject bool, lenient [][]byte) (class, error) {
	r := readJSON(input)
	if err := checkReading(r, output, reject, lenient); err != nil {
		return class{}, err
	}
	return classifyReading(group, input, r, reject, lenient), nil
}

// reading is an input read as JSON: last-wins (v, err) and strictly (the
// strict reading's error).
type reading struct {
	v      canon.Value
	err    error
	strict error
}

// readJSON reads input strictly, and last-wins only when that reading
// differs: when the input has a duplicate name. (Up to the first duplicate
// the two readings are one, so any other error is the same in both.)
func readJSON(input []byte) reading {
	v, err := canon.Parse(input, canon.ReadOptions{})
	r := reading{v: v, err: err, strict: err}
	if errors.Is(err, canon.ErrDuplicateKey) {
		r.v, r.err = canon.Parse(input, canon.ReadOptions{Duplicates: canon.LastWins})
	}
	return r
}

// checkReading refuses a vector whose expectation contradicts its input,
// read as r: an output for an input that is not JSON (nothing to
// canonicalise: the corpus is wrong, not the implementation) or that RFC
// 8785 must reject, a rejection of JSON that RFC 8785 canonicalises, or
// lenient outputs for an input that is JSON.
func checkReading(r reading, output []byte, reject bool, lenient [][]byte) error {
	if !reject {
		if r.err != nil {
			return fmt.Errorf("expects an output, but its input is not JSON: %w", r.err)
		}
		if _, err := canon.JCS.Append(nil, r.v); err != nil {
			return fmt.Errorf("expects an output, but RFC 8785 requires its input to be rejected: %w", err)
		}
		if r.strict != nil {
			return fmt.Errorf("expects an output, but its input should be rejected: %w", r.strict)
		}
		return nil
	}
	if r.err != nil {
		return nil
	}
	if len(lenient) > 0 {
		return fmt.Errorf("has lenient_outputs, but its input is JSON")
	}
	if _, werr := canon.JCS.Append(nil, r.v); werr == nil && r.strict == nil {
		return fmt.Errorf("expects a rejection, but its input is JSON that RFC 8785 canonicalises")
	}
	return nil
}

func loadRFCLayout(c *corpus.Corpus) ([]check.Check, error) {
	vf := newVectorFile(c.Name, "", nil)
	var mem bytes.Buffer
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
		cl, err := analyze("", in, want, false, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		// The check reads its vector back from memory, as one from a
		// vectors.json does from the file.
		raw, err := json.Marshal(vectorOf(in, want))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		vf.add(int64(mem.Len()), raw, prepared{id: "jcs/rfc8785/" + base, doc: docOf("RFC 8785 test data "+base, cl), class: cl})
		mem.Write(raw)
	}
	if len(vf.refs) == 0 {
		return nil, fmt.Errorf("corpus %s: input/ holds no .json files", c.Name)
	}
	vf.r = bytes.NewReader(mem.Bytes())
	return vf.checks(), nil
}

// vectorOf is the vector that sends input and expects output.
func vectorOf(input, output []byte) vector {
	v := vector{Output: new(string(output))}
	if utf8.Valid(input) {
		v.Input = new(string(input))
	} else {
		v.InputHex = new(hex.EncodeToString(input))
	}
	return v
}

// request returns the op and args that send input: value_text when it is
// UTF-8, value_hex (to OpBytes) when it is not.
func request(input []byte, hexed bool) (op string, args map[string]string) {
	if hexed {
		return OpBytes, map[string]string{"value_hex": hex.EncodeToString(input)}
	}
	return Op, map[string]string{"value_text": string(input)}
}

// shown is the request that sends input, as explain shows it.
func shown(input []byte, hexed bool) string {
	if hexed {
		return OpBytes + ` {"value_hex": ` + check.Clip(strconv.Quote(hex.EncodeToString(input))) + "}"
	}
	return Op + ` {"value_text": ` + check.Clip(strconv.Quote(string(input))) + "}"
}

// The ops a check needs, shared by every check.
var (
	needsText  = []string{Op}
	needsBytes = []string{OpBytes}
)

// missingBytes is the not-checked reason of a check whose input is not UTF-8.
const missingBytes = "the input is not UTF-8, so no JSON string can carry it: it travels as value_hex to " + OpBytes + ", which the adapter does not offer"

// docOf is the doc of a vector's check: the vector's, saying so when the
// check wants a rejection.
func docOf(doc string, cl class) string {
	switch cl.kind {
	case wantReject, wantRejectDup, wantRejectText:
		return "rejects: " + doc
	}
	return doc
}

// canonCheck is the check of vector i of vf: it asks for the canonical text
// of the vector's input and compares it byte for byte with the expected
// output, or requires a rejection, as the vector's class says. It holds
// nothing of the vector: it reads it back when it runs or is explained.
func (vf *vectorFile) canonCheck(i int, p prepared) check.Check {
	c := check.Check{
		ID:          p.id,
		Doc:         p.doc,
		Needs:       needsText,
		Level:       p.class.level,
		Clause:      p.class.clause,
		Do:          func(ctx context.Context, s *check.Session) check.Outcome { return vf.run(ctx, s, i) },
		ExplainFunc: func() string { return vf.explain(i) },
	}
	if p.class.hex {
		c.Needs, c.MissingReason = needsBytes, missingBytes
	}
	return c
}

// run is the Run of vector i's check.
func (vf *vectorFile) run(ctx context.Context, s *check.Session, i int) check.Outcome {
	d, cl, err := vf.vector(i)
	if err != nil {
		return check.Broke(err)
	}
	op, args := request(d.input, cl.hex)
	return judge(ctx, s, check.Expect{Op: op, Args: args}, d.expected(cl), d.lenient, cl)
}

// explain is the Explain of vector i's check: what it sends and expects.
func (vf *vectorFile) explain(i int) string {
	d, cl, err := vf.vector(i)
	if err != nil {
		return "(the vector cannot be read: " + err.Error() + ")"
	}
	want := d.expected(cl)
	explain := "sends: " + shown(d.input, cl.hex) + "\nexpects: "
	switch cl.kind {
	case wantReject:
		explain += "a rejection (an err reply, with any code or none)"
	case wantRejectDup:
		explain += "a rejection (an err reply, with any code or none); accepting the input is a warning"
	case wantRejectText:
		explain += "a rejection (an err reply, with any code or none); an output that keeps the value of a lenient reading is a warning:"
		for _, l := range d.lenient {
			explain += "\n         " + check.Clip(string(l))
		}
		explain += "\n         and any other output fails as a must"
	default:
		explain += check.Clip(string(want)) + fmt.Sprintf("\n         (%d bytes, compared byte for byte)", len(want))
		if cl.kind == wantOutputMay {
			explain += "\n         or a rejection: " + cl.why
		}
	}
	return explain
}

// judge decides a check from the reply to e: want byte for byte, or a
// rejection, as the vector's class says.
func judge(ctx context.Context, s *check.Session, e check.Expect, want []byte, lenient [][]byte, cl class) check.Outcome {
	switch cl.kind {
	case wantReject, wantRejectDup, wantRejectText:
		e.Want, e.Because = "a rejection (err)", acceptedReason(cl)
		e.Words = func(m check.Miss) check.Outcome { return accepted(m, lenient, cl) }
		return e.Refused(ctx, s)
	}
	e.MayRefuse = cl.kind == wantOutputMay
	e.Words = func(m check.Miss) check.Outcome {
		o := m.Outcome
		switch m.Kind {
		case check.Erred:
			o.Reason, o.Actual = "rejected a valid input: "+m.Err.Error(), "err "+m.Err.Error()
			if cl.depth > 16 {
				o.Notes = []string{fmt.Sprintf("the input nests %d deep; nesting up to depth %d must work", cl.depth, MustDepth)}
			}
		case check.Mistyped:
			o.Reason = "ok is " + m.OK.Kind.String() + ", not the canonical text as a JSON string"
		}
		return o
	}
	return e.Bytes(ctx, s, "canonical text", want)
}

// acceptedReason is why accepting an input of class cl, which RFC 8785
// requires to be rejected, fails.
func acceptedReason(cl class) string {
	switch {
	case cl.kind == wantRejectDup:
		return reasonDuplicates
	case cl.kind == wantReject && cl.hex:
		return reasonNotUTF8
	case cl.kind == wantReject && cl.clause == clauseNoValue:
		return reasonInvented
	case cl.kind == wantReject:
		return "accepted an input that RFC 8785 requires to be rejected"
	}
	return reasonChanged
}

// accepted words the failure of an input accepted where a rejection is
// wanted (m, an Accepted miss): the output itself is what came. An output
// of a text whose value a lenient reading keeps is a should; any other
// output changed the value, and fails as a must.
func accepted(m check.Miss, lenient [][]byte, cl class) check.Outcome {
	o := m.Outcome
	o.Actual, o.Notes = m.OK.String(), nil
	if cl.kind != wantRejectText {
		return o
	}
	if m.OK.Kind == canon.String {
		for _, l := range lenient {
			if string(l) == m.OK.Str {
				o.Reason, o.Actual = reasonLenient, m.OK.Str
				return o
			}
		}
	}
	o.Level = check.Must
	o.Notes = []string{"the outputs of the lenient readings that keep the value: " + joinTexts(lenient)}
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
	b, ok := brokenModes.Get()[mode]
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
	out, err := h.canonicalize(input)
	if err != nil {
		return nil, &adapter.Error{Code: errorCode(err), Message: err.Error()}
	}
	// The text as a JSON string, in room for it and a few escapes.
	text, err := canon.JSONStringify.Append(make([]byte, 0, len(out)+len(out)/8+2), canon.Value{Kind: canon.String, Str: string(out)})
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return text, nil
}

// canonicalize is what h makes of input: its canonical text, or the error
// it rejects it with.
func (h *Handler) canonicalize(input []byte) ([]byte, error) {
	if h.mode == nil {
		return canon.JCS.Canonicalize(input, canon.ReadOptions{})
	}
	return h.mode.canonicalize(input)
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
