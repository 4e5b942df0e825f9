package cdc

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/compactjson"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// The supplement is referee's own corpus beside upstream's: cases for the
// contract's rules that upstream's fixtures leave open, each derived from
// the SPEC or a schema and citing it. It runs with whichever upstream
// corpus is chosen; each case applies only to a corpus whose fixtures,
// schemas and SPEC hold what it rests on (see applies).
//
//go:embed supplement
var supplementFS embed.FS

// The supplement's file, format and check IDs.
const (
	SupplementFile   = "supplement.json"
	SupplementFormat = "referee-cdc-supplement/1"
	supplementPrefix = "cdc/supplement/"
	// FlagNoSupplement leaves the supplement out of a run.
	FlagNoSupplement = "no-supplement"
)

// Supplement is the supplementary corpus, read.
type Supplement struct {
	Digest string // sha256: of its manifest
	Cases  []SupplementCase
}

// SupplementCase is one case of the supplement: what it sends (op and the
// members for it), what it expects, and what it rests on.
type SupplementCase struct {
	Name     string       `json:"name"`
	Doc      string       `json:"doc"`
	Level    check.Level  `json:"level"`
	Clause   string       `json:"clause"`
	Requires Requirements `json:"requires"`
	Op       string       `json:"op"`

	// validate, roundTrip, verify: an edit of a valid fixture of the corpus.
	Base  string `json:"base,omitempty"` // a file under fixtures/valid/
	Edits []Edit `json:"edits,omitempty"`
	// validate: the verdict, and for a rejection the instance path one of
	// the errors must be at.
	Valid *bool   `json:"valid,omitempty"`
	Path  *string `json:"path,omitempty"`
	// roundTrip: the JSON Pointer of the member the round trip must keep.
	Kept string `json:"kept,omitempty"`
	// verify: the answer, under the corpus's test key.
	Verifies *bool `json:"verifies,omitempty"`
	// canonicalise: the value and its canonical text.
	Value     json.RawMessage `json:"value,omitempty"`
	Canonical *string         `json:"canonical,omitempty"`
	// narrow: the two manifests and the grant or the refusals.
	Declared json.RawMessage `json:"declared,omitempty"`
	Parent   json.RawMessage `json:"parent,omitempty"`
	Granted  json.RawMessage `json:"granted,omitempty"`
	Refusals []string        `json:"refusals,omitempty"`
}

// Requirements are what a case rests on, besides its base fixture: a
// case applies to a corpus only when every one holds there.
type Requirements struct {
	// Schemas are schema texts, each at a JSON Pointer of its shape's schema.
	Schemas []SchemaRule `json:"schemas,omitempty"`
	// Spec are sentences the corpus's SPEC must contain (white space
	// compared as one space).
	Spec []string `json:"spec,omitempty"`
	// Vectors names a step of the runner the corpus must have:
	// "narrowing" (conformance/narrowing-vectors.json) or "signatures"
	// (conformance/signature-vectors.json and its test key).
	Vectors string `json:"vectors,omitempty"`
}

// SchemaRule is a schema text a case rests on: the value at At in the
// shape's schema is one of OneOf (compared by canonical bytes, so as JSON
// values: 1E2 is 100), or, with Open,
// an object schema whose additionalProperties is absent or true.
type SchemaRule struct {
	Shape string            `json:"shape"`
	At    string            `json:"at"`
	OneOf []json.RawMessage `json:"one_of,omitempty"`
	Open  bool              `json:"open,omitempty"`
}

// Edit changes the base fixture at a JSON Pointer: Set puts a value there
// (adding the member to an object when it is absent), Append appends to a
// string, Upper upper-cases a string.
type Edit struct {
	At     string          `json:"at"`
	Set    json.RawMessage `json:"set,omitempty"`
	Append *string         `json:"append,omitempty"`
	Upper  bool            `json:"upper,omitempty"`
}

// supplementDoc is supplement.json.
type supplementDoc struct {
	Format string           `json:"format"`
	About  []string         `json:"about"`
	Cases  []SupplementCase `json:"cases"`
}

// EmbeddedSupplement returns the supplement, verified against its manifest.
func EmbeddedSupplement() (*Supplement, error) {
	sub, err := fs.Sub(supplementFS, "supplement")
	if err != nil {
		return nil, err
	}
	c, err := corpus.Open(sub, "embedded:cdc-supplement")
	if err != nil {
		return nil, err
	}
	return ReadSupplement(c)
}

// ReadSupplement reads a supplement corpus strictly: a case that names an
// unknown op, lacks what its op needs, or carries what it does not use is
// an error naming it.
func ReadSupplement(c *corpus.Corpus) (*Supplement, error) {
	raw, err := c.ReadFile(SupplementFile)
	if err != nil {
		return nil, err
	}
	var doc supplementDoc
	if err := corpus.DecodeJSON(raw, &doc); err != nil {
		return nil, fmt.Errorf("corpus %s: %s: %w", c.Name, SupplementFile, err)
	}
	if doc.Format != SupplementFormat {
		return nil, fmt.Errorf("corpus %s: %s: format %q, want %q", c.Name, SupplementFile, doc.Format, SupplementFormat)
	}
	seen := map[string]bool{}
	for i := range doc.Cases {
		sc := &doc.Cases[i]
		err := sc.wellFormed()
		if err == nil && seen[sc.Name] {
			err = fmt.Errorf("duplicate name")
		}
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: case %d (%q): %w", c.Name, SupplementFile, i, sc.Name, err)
		}
		seen[sc.Name] = true
	}
	return &Supplement{Digest: c.Digest, Cases: doc.Cases}, nil
}

// wellFormed checks that a case has what its op needs and nothing else.
func (sc *SupplementCase) wellFormed() error {
	if !validName(sc.Name) || strings.HasSuffix(sc.Name, "/path") {
		return fmt.Errorf("name %q: lowercase segments of a-z 0-9 . _ - separated by /, not ending in /path (a rejection's path check is <name>/path)", sc.Name)
	}
	if sc.Doc == "" || sc.Clause == "" {
		return fmt.Errorf("needs a doc and a clause")
	}
	if _, err := check.ParseLevel(string(sc.Level)); err != nil {
		return err
	}
	has := map[string]bool{
		"base": sc.Base != "", "edits": len(sc.Edits) > 0, "valid": sc.Valid != nil, "path": sc.Path != nil,
		"kept": sc.Kept != "", "verifies": sc.Verifies != nil, "value": len(sc.Value) > 0, "canonical": sc.Canonical != nil,
		"declared": len(sc.Declared) > 0, "parent": len(sc.Parent) > 0, "granted": len(sc.Granted) > 0, "refusals": sc.Refusals != nil,
	}
	var need, may []string
	switch sc.Op {
	case OpValidate:
		need, may = []string{"base", "edits", "valid"}, []string{"path"}
		if sc.Valid != nil && *sc.Valid && sc.Path != nil {
			return fmt.Errorf("a path is only for a rejection")
		}
	case OpRoundTrip:
		need = []string{"base", "edits", "kept"}
	case OpVerify:
		need = []string{"base", "edits", "verifies"}
	case OpCanonicalise:
		need = []string{"value", "canonical"}
	case OpNarrow:
		need = []string{"declared", "parent"}
		if has["granted"] == has["refusals"] {
			return fmt.Errorf("narrow needs exactly one of granted and refusals")
		}
		may = []string{"granted", "refusals"}
	default:
		return fmt.Errorf("op %q: want validate, roundTrip, verify, canonicalise or narrow", sc.Op)
	}
	for k, set := range has {
		switch {
		case slices.Contains(need, k) && !set:
			return fmt.Errorf("op %s needs %s", sc.Op, k)
		case set && !slices.Contains(need, k) && !slices.Contains(may, k):
			return fmt.Errorf("op %s takes no %s", sc.Op, k)
		}
	}
	for _, e := range sc.Edits {
		n := 0
		for _, set := range []bool{len(e.Set) > 0, e.Append != nil, e.Upper} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("edit at %q: give exactly one of set, append and upper", e.At)
		}
		if _, err := pointerTokens(e.At); err != nil {
			return err
		}
	}
	if _, err := pointerTokens(sc.Kept); err != nil {
		return fmt.Errorf("kept: %w", err)
	}
	for _, r := range sc.Requires.Schemas {
		if (len(r.OneOf) > 0) == r.Open {
			return fmt.Errorf("schema rule at %q: give exactly one of one_of and open", r.At)
		}
	}
	if v := sc.Requires.Vectors; v != "" && v != "narrowing" && v != "signatures" {
		return fmt.Errorf("vectors %q: want narrowing or signatures", v)
	}
	return nil
}

// validName reports whether name is lowercase ID segments.
func validName(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || !(seg[0] >= 'a' && seg[0] <= 'z' || seg[0] >= '0' && seg[0] <= '9') {
			return false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

// SupplementChecks returns the checks of the cases of s that apply to cp,
// in the supplement's order, each under cdc/supplement/<name>.
func (cp *Corpus) SupplementChecks(s *Supplement) []check.Check {
	var out []check.Check
	for _, sc := range cp.Applicable(s) {
		out = append(out, cp.supplementChecks(sc)...)
	}
	return out
}

// Applicable returns the cases of s that apply to cp: its base fixture is
// among the corpus's valid fixtures and every edit of it changes something
// there; every schema rule holds in the corpus's schemas; every SPEC
// sentence is in the corpus's SPEC; and the corpus has the vectors it
// needs. A corpus without schemas (vectors only) takes none.
func (cp *Corpus) Applicable(s *Supplement) []SupplementCase {
	if len(cp.Shapes) == 0 {
		return nil
	}
	var out []SupplementCase
	for _, sc := range s.Cases {
		if cp.applies(sc) {
			out = append(out, sc)
		}
	}
	return out
}

func (cp *Corpus) applies(sc SupplementCase) bool {
	switch sc.Requires.Vectors {
	case "narrowing":
		if len(cp.Narrowing) == 0 {
			return false
		}
	case "signatures":
		if cp.Key == "" {
			return false
		}
	}
	for _, sentence := range sc.Requires.Spec {
		if cp.spec == "" || !strings.Contains(cp.spec, check.OneLine(sentence)) {
			return false
		}
	}
	for _, r := range sc.Requires.Schemas {
		if !cp.schemaHolds(r) {
			return false
		}
	}
	if sc.Base != "" {
		if _, _, ok := cp.edited(sc); !ok {
			return false
		}
	}
	return true
}

// schemaHolds reports whether the corpus's schema of r.Shape holds r.
func (cp *Corpus) schemaHolds(r SchemaRule) bool {
	doc, err := cp.schemaOf(r.Shape)
	if err != nil {
		return false
	}
	v, ok := doc.At(r.At)
	if !ok {
		return false
	}
	if r.Open {
		ap, has := v.Lookup("additionalProperties")
		return v.Kind == canon.Object && (!has || ap.Kind == canon.Bool && ap.Bool)
	}
	have, err := pc.Canonical(v)
	if err != nil {
		return false
	}
	for _, want := range r.OneOf {
		w, err := canon.Parse(want, canon.ReadOptions{})
		if err != nil {
			continue
		}
		if b, err := pc.Canonical(w); err == nil && bytes.Equal(b, have) {
			return true
		}
	}
	return false
}

// edited returns the case's base fixture with its edits made, and its
// shape; ok is false when the corpus has no such fixture or an edit does
// not apply or changes nothing.
func (cp *Corpus) edited(sc SupplementCase) (canon.Value, string, bool) {
	i := slices.IndexFunc(cp.Valid, func(f Fixture) bool { return f.File == sc.Base })
	if i < 0 {
		return canon.Value{}, "", false
	}
	v := cp.Valid[i].Value
	for _, e := range sc.Edits {
		next, ok := applyEdit(v, e)
		if !ok || canon.Equal(next, v) {
			return canon.Value{}, "", false
		}
		v = next
	}
	return v, cp.Valid[i].Shape, true
}

// applyEdit returns v with e made; ok is false when it does not apply.
func applyEdit(v canon.Value, e Edit) (canon.Value, bool) {
	toks, err := pointerTokens(e.At)
	if err != nil || len(toks) == 0 {
		return v, false
	}
	return setAt(v, toks, func(old canon.Value, present bool) (canon.Value, bool) {
		switch {
		case len(e.Set) > 0:
			nv, err := canon.Parse(e.Set, canon.ReadOptions{})
			return nv, err == nil
		case !present || old.Kind != canon.String:
			return old, false
		case e.Append != nil:
			old.Str += *e.Append
		default:
			old.Str = strings.ToUpper(old.Str)
		}
		return old, true
	})
}

// pointerTokens splits an RFC 6901 JSON Pointer ("" is the whole value).
func pointerTokens(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer", ptr)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// setAt returns a copy of v with the value at toks replaced by what f
// makes of it (present false: an object member to be added). Only the
// containers on the path are copied.
func setAt(v canon.Value, toks []string, f func(old canon.Value, present bool) (canon.Value, bool)) (canon.Value, bool) {
	if len(toks) == 0 {
		return f(v, true)
	}
	t, rest := toks[0], toks[1:]
	switch v.Kind {
	case canon.Object:
		out := v
		out.Members = slices.Clone(v.Members)
		for i, m := range out.Members {
			if m.Key == t {
				nv, ok := setAt(m.Value, rest, f)
				out.Members[i].Value = nv
				return out, ok
			}
		}
		if len(rest) > 0 {
			return v, false
		}
		nv, ok := f(canon.Value{}, false)
		out.Members = append(out.Members, canon.Member{Key: t, Value: nv})
		return out, ok
	case canon.Array:
		i, err := strconv.Atoi(t)
		if err != nil || i < 0 || i >= len(v.Elems) || strconv.Itoa(i) != t {
			return v, false
		}
		out := v
		out.Elems = slices.Clone(v.Elems)
		nv, ok := setAt(v.Elems[i], rest, f)
		out.Elems[i] = nv
		return out, ok
	}
	return v, false
}

// supplementChecks makes the checks of one case that applies to cp.
func (cp *Corpus) supplementChecks(sc SupplementCase) []check.Check {
	id := supplementPrefix + sc.Name
	what := "supplement/" + sc.Name
	level := sc.Level
	switch sc.Op {
	case OpCanonicalise:
		sum := sha256Hex([]byte(*sc.Canonical))
		v := CanonVector{Name: sc.Name, Why: sc.Doc, Value: compactRaw(sc.Value), Canonical: *sc.Canonical, SHA256: sum}
		return []check.Check{canonVectorCheck(id, what, v, level, sc.Clause)}
	case OpNarrow:
		v := NarrowVector{Name: sc.Name, Why: sc.Doc, Declared: compactRaw(sc.Declared), Parent: compactRaw(sc.Parent), Granted: compactRaw(sc.Granted), Refusals: sc.Refusals, HasRefusals: sc.Refusals != nil}
		c := narrowBehaviourCheck(id, what, v, sc.Clause)
		c.MissingReason = "" // upstream's NOT CHECKED line speaks of its vectors
		if c.Level == check.Must {
			c.Level = level // a may the vector's data makes stays one
		}
		return []check.Check{c}
	}
	value, shape, _ := cp.edited(sc)
	base := "valid/" + sc.Base + " " + describeEdits(sc.Edits)
	switch sc.Op {
	case OpRoundTrip:
		return []check.Check{supRoundTripCheck(id, what, sc, base, shape, value)}
	case OpVerify:
		return []check.Check{supVerifyCheck(id, what, sc, base, cp.Key, value)}
	}
	out := []check.Check{supValidateCheck(id, what, sc, base, shape, value)}
	// Where a rejection is reported is a rule of the 1.2 layout's SPEC
	// (§9, item 5, from 1.1 on); the 1.0 SPEC has none, and its corpus no
	// path checks: there the case's path is not checked.
	if cl := clausesOf(cp.Release); sc.Path != nil && cl.path != "" {
		out = append(out, supPathCheck(id+"/path", what, sc, base, shape, value, cl.path))
	}
	return out
}

// compactRaw is raw without white space between tokens.
func compactRaw(raw json.RawMessage) json.RawMessage {
	if b, ok := compactjson.Append(nil, raw); ok {
		return b // what json.Compact makes of JSON in UTF-8
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// describeEdits says what the edits do, for explain and list.
func describeEdits(edits []Edit) string {
	var parts []string
	for _, e := range edits {
		switch {
		case e.Append != nil:
			parts = append(parts, fmt.Sprintf("%s + %s", e.At, jsonText(*e.Append)))
		case e.Upper:
			parts = append(parts, e.At+" upper-cased")
		default:
			parts = append(parts, e.At+" = "+check.Clip(string(compactRaw(e.Set))))
		}
	}
	return "with " + strings.Join(parts, ", ")
}

func supValidateCheck(id, what string, sc SupplementCase, base, shape string, value canon.Value) check.Check {
	want := *sc.Valid
	expects := "valid true"
	if !want {
		expects = "valid false"
	}
	return check.Check{
		ID: id, Level: sc.Level, Clause: sc.Clause,
		Doc:     check.Clip(check.OneLine(sc.Doc)),
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <%s>}\nexpects: %s", shape, base, expects),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			v, o, ok := validate(ctx, s, what, shape, value)
			if !ok {
				return o
			}
			switch {
			case v.Valid == want:
				return check.Passed()
			case want:
				return check.Failed(what+": rejected, but it must be accepted — "+sc.Doc, "valid", "rejected at "+strings.Join(v.Paths, ", "))
			}
			return check.Failed(what+": accepted, but must be rejected — "+sc.Doc, "rejected", "accepted")
		},
	}
}

// supPathCheck is the check that a case's rejection is at its path, on
// the clause of the layout's rejection-path rule.
func supPathCheck(id, what string, sc SupplementCase, base, shape string, value canon.Value, pathClause string) check.Check {
	want := *sc.Path
	return check.Check{
		ID: id, Level: sc.Level, Clause: pathClause + "; the rejection: " + sc.Clause,
		Doc:     "the rejection of supplement/" + sc.Name + " is at " + want,
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <%s>}\nexpects: one of the errors at instance path %s", shape, base, want),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			v, o, ok := validate(ctx, s, what, shape, value)
			if !ok {
				return o
			}
			switch {
			case v.Valid:
				return check.Skipped("not checked: the value was accepted (see " + strings.TrimSuffix(id, "/path") + ")")
			case !v.Errors:
				return check.Skipped(notPaths)
			case !slices.Contains(v.Paths, want):
				got := jsonText(v.Paths)
				return check.Failed(fmt.Sprintf("%s: rejected, but not at %s — the implementation reported %s. A rejection for the wrong reason is not conformance.", what, want, got), want, got)
			}
			return check.Passed()
		},
	}
}

func supRoundTripCheck(id, what string, sc SupplementCase, base, shape string, value canon.Value) check.Check {
	want, _ := value.At(sc.Kept)
	return check.Check{
		ID: id, Level: sc.Level, Clause: sc.Clause,
		Doc:     check.Clip(check.OneLine(sc.Doc)),
		Needs:   []string{OpRoundTrip},
		Explain: fmt.Sprintf("sends: roundTrip {\"shape\": %q, \"value\": <%s>}\nexpects: %s still %s", shape, base, sc.Kept, check.Clip(want.String())),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			lost := what + ": the unknown member at " + sc.Kept + " was lost in a round trip — " + sc.Doc
			back, o, ok := check.Expect{
				Op: OpRoundTrip, Args: map[string]any{"shape": shape, "value": json.RawMessage(value.String())},
				Want: want.String(), Because: lost, Words: threw(nil, false),
			}.OK(ctx, s)
			if !ok {
				return o
			}
			got, ok := back.At(sc.Kept)
			if !ok || !canon.Equal(got, want) {
				return check.Failed(lost, want.String(), check.Clip(back.String()))
			}
			return check.Passed()
		},
	}
}

func supVerifyCheck(id, what string, sc SupplementCase, base, key string, lease canon.Value) check.Check {
	want := *sc.Verifies
	return check.Check{
		ID: id, Level: sc.Level, Clause: sc.Clause,
		Doc:     check.Clip(check.OneLine(sc.Doc)),
		Needs:   []string{OpVerify},
		Explain: fmt.Sprintf("sends: verify {\"lease\": <%s>, \"lease_text\", \"key_hex\": %q}\nexpects: %v", base, key, want),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			msg := fmt.Sprintf("%s: verify said %s, want %v — %s", what, "%s", want, sc.Doc)
			return check.Expect{Op: OpVerify, Args: verifyArgs(lease, key), Words: func(m check.Miss) check.Outcome {
				o := m.Outcome
				if m.Kind == check.Erred {
					o.Reason, o.Actual = fmt.Sprintf(msg, "threw"), "threw: "+m.Err.Error()
				} else { // a value other than want
					o.Reason = fmt.Sprintf(msg, m.OK.String())
				}
				return o
			}}.Verdict(ctx, s, want)
		},
	}
}
