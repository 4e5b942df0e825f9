package cgpvectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// OpRoundTripEnvelope is the adapter op that reads one envelope line and
// writes it again, as the reference serializer does.
const OpRoundTripEnvelope = "roundTripEnvelope"

// EnvelopeVectorsFile is upstream's reference envelopes
// (schema/reference-vectors.ndjson): one per variant, minimal and maximal,
// as the Rust reference serializes them.
const EnvelopeVectorsFile = "reference-vectors.ndjson"

// unknownMember is planted at the top of each respelled envelope: a
// receiver ignores members it does not know (U1), so it is not written back.
const unknownMember = `"referee:unknown": { "ignored": [ true, null, 1.5, "x" ] }`

// EnvelopeCase is one reference envelope: the line as upstream has it, and
// referee's respelling of it, which reads as the same envelope.
type EnvelopeCase struct {
	Name      string // NN-type, NN counted from 1
	Line      string
	Respelled string
}

var envelopeTypes = []string{cgp.TypeHandshake, cgp.TypeHandshakeAck, cgp.TypeQuery, cgp.TypeFrames, cgp.TypeVerify, cgp.TypeVerified, cgp.TypeShutdown, cgp.TypeError}

// ReadEnvelopes reads reference-vectors.ndjson from c: one envelope per
// line, each line ended by LF, each an object with a type of the closed set
// (duplicate member names refused), and each re-serialised byte for byte by
// the Go reference, as is its respelling; anything else is a corpus error
// naming the line.
func ReadEnvelopes(c *corpus.Corpus) ([]EnvelopeCase, error) {
	return readEnvelopes(c, EnvelopeVectorsFile)
}

// readEnvelopes is ReadEnvelopes of the file at path in c.
func readEnvelopes(c *corpus.Corpus, path string) ([]EnvelopeCase, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, path)
	raw, err := c.ReadFile(path)
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutSuffix(raw, []byte("\n"))
	if !ok || len(body) == 0 {
		return nil, fmt.Errorf("%s: not LF-terminated lines of JSON", where)
	}
	var out []EnvelopeCase
	for i, line := range bytes.Split(body, []byte("\n")) {
		w := fmt.Sprintf("%s: line %d", where, i+1)
		v, err := canon.Parse(line, canon.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w, err)
		}
		t, _ := v.Lookup("type")
		if v.Kind != canon.Object || t.Kind != canon.String || !slices.Contains(envelopeTypes, t.Str) {
			return nil, fmt.Errorf("%s: not an envelope: an object whose type is one of %s", w, strings.Join(envelopeTypes, ", "))
		}
		ec := EnvelopeCase{Name: fmt.Sprintf("%02d-%s", i+1, t.Str), Line: string(line), Respelled: respelled(v)}
		for _, in := range []struct{ what, text string }{{"it", ec.Line}, {"referee's respelling of it", ec.Respelled}} {
			got, err := roundTrip(in.text)
			if err != nil {
				return nil, fmt.Errorf("%s: the Go reference cannot read %s: %v", w, in.what, err)
			}
			if d := check.DiffBytes(line, got); d != nil {
				window := func(b []byte) string { return string(b[max(0, d.Offset-20):min(len(b), d.Offset+40)]) }
				return nil, fmt.Errorf("%s: the Go reference re-serialises %s differently from byte %d: the line has …%s…, the Go reference writes …%s…", w, in.what, d.Offset, window(line), window(got))
			}
		}
		out = append(out, ec)
	}
	return out, nil
}

func roundTrip(line string) ([]byte, error) {
	env, err := cgp.DecodeEnvelope([]byte(line))
	if err != nil {
		return nil, err
	}
	return cgp.MarshalReference(env)
}

// respelled writes an envelope so that it reads as the same envelope but
// differs in every way a reader may not care about: members in reverse
// order at every level, whitespace between tokens, every number with a
// fraction or exponent in another spelling of the same value (1.0 as 1,
// 0.875 as 8.75e-01), and an unknown member first.
func respelled(v canon.Value) string { return string(appendSpaced(nil, v, unknownMember)) }

// appendSpaced writes v spaced out, members reversed; extra, if not "", is
// written as the object's first member.
func appendSpaced(b []byte, v canon.Value, extra string) []byte {
	switch v.Kind {
	case canon.Object:
		if len(v.Members) == 0 && extra == "" {
			return append(b, "{ }"...)
		}
		b = append(b, "{ "...)
		sep := ""
		if extra != "" {
			b, sep = append(b, extra...), ", "
		}
		for i := len(v.Members) - 1; i >= 0; i-- {
			b = append(b, sep...)
			b = cgp.AppendSerdeString(b, v.Members[i].Key)
			b = append(b, ": "...)
			b = appendSpaced(b, v.Members[i].Value, "")
			sep = ", "
		}
		return append(b, " }"...)
	case canon.Array:
		if len(v.Elems) == 0 {
			return append(b, "[ ]"...)
		}
		b = append(b, "[ "...)
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendSpaced(b, e, "")
		}
		return append(b, " ]"...)
	case canon.Number:
		return append(b, respellNumber(v.Num)...)
	case canon.String:
		return cgp.AppendSerdeString(b, v.Str)
	}
	return append(b, v.String()...)
}

// respellNumber writes a float lexeme another way: integral values without
// a fraction, others in exponent form. Integers are left alone (a u32 does
// not read 8.0).
func respellNumber(lex string) string {
	if !strings.ContainsAny(lex, ".eE") {
		return lex
	}
	f, err := strconv.ParseFloat(lex, 64)
	if err != nil {
		return lex
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

const noteEnvelope = "the reference is serde_json over the typed envelope: members in the types' declaration order, optional members omitted when absent, unknown members dropped (U1), no whitespace, and an f32 in its shortest form with .0 when integral (1.0, 0.875, 0.1: never 1, never 0.10000000149011612)"

// envelopeChecks are cgp-vectors/envelope/NN-TYPE/{round-trip,respelled}.
func envelopeChecks(ec EnvelopeCase) []check.Check {
	mk := func(stage, doc, line, clause string) check.Check {
		args, _ := json.Marshal(map[string]string{"line": line})
		return check.Check{
			ID:      "cgp-vectors/envelope/" + ec.Name + "/" + stage,
			Doc:     doc,
			Needs:   []string{OpRoundTripEnvelope},
			Explain: fmt.Sprintf("sends: %s {\"line\": %s}\nexpects: ok %s", OpRoundTripEnvelope, check.Clip(jstr(line)), check.Clip(jstr(ec.Line))),
			Clause:  clause,
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				return check.Expect{Op: OpRoundTripEnvelope, Args: json.RawMessage(args), Notes: []string{noteEnvelope}, Words: erred("could not read the envelope")}.
					Bytes(ctx, s, "the re-serialised envelope", []byte(ec.Line))
			},
		}
	}
	return []check.Check{
		mk("round-trip", "roundTripEnvelope of upstream's reference envelope "+ec.Name+" gives it back byte for byte", ec.Line, clauseEnvelope),
		mk("respelled", "roundTripEnvelope of envelope "+ec.Name+" respelled (members reversed, whitespace, floats spelled otherwise, an unknown member) gives upstream's line", ec.Respelled, clauseEnvelopeRespelled),
	}
}

type envelopeRule uint8

const (
	envelopeReference envelopeRule = iota
	envelopeDropDotZero
	envelopeSortMembers
	envelopeF32AsF64
	envelopeGenericJSON
	envelopeNullAbsent
)

// roundTripEnvelope is the built-in adapter's roundTripEnvelope.
func (h *Handler) roundTripEnvelope(a canon.Value) (json.RawMessage, *adapter.Error) {
	line, ok := a.Lookup("line")
	if !ok || line.Kind != canon.String {
		return nil, badArgs("args.line must be a string")
	}
	if h.mode.envelope == envelopeGenericJSON {
		v, err := canon.Parse([]byte(line.Str), canon.ReadOptions{})
		if err != nil {
			return nil, &adapter.Error{Code: "invalid_envelope", Message: err.Error()}
		}
		return marshalString(v.String())
	}
	out, err := roundTrip(line.Str)
	if err != nil {
		return nil, &adapter.Error{Code: "invalid_envelope", Message: err.Error()}
	}
	if h.mode.envelope != envelopeReference {
		v, err := canon.Parse(out, canon.ReadOptions{})
		if err != nil {
			return nil, &adapter.Error{Code: "internal", Message: err.Error()}
		}
		if h.mode.envelope == envelopeNullAbsent {
			v = nullAbsent(v)
		} else {
			v = h.envelopeMistake(v)
		}
		out = []byte(v.String())
	}
	return marshalString(string(out))
}

// envelopeMistake rewrites the reference's output the way the mode's
// serializer would have written it.
func (h *Handler) envelopeMistake(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Number:
		switch {
		case h.mode.envelope == envelopeDropDotZero:
			v.Num = strings.TrimSuffix(v.Num, ".0")
		case h.mode.envelope == envelopeF32AsF64 && strings.ContainsAny(v.Num, ".e"):
			f, _ := strconv.ParseFloat(v.Num, 32)
			v.Num = strconv.FormatFloat(float64(float32(f)), 'f', -1, 64)
			if !strings.Contains(v.Num, ".") {
				v.Num += ".0"
			}
		}
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = h.envelopeMistake(e)
		}
		v.Elems = elems
	case canon.Object:
		ms := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			ms[i] = canon.Member{Key: m.Key, Value: h.envelopeMistake(m.Value)}
		}
		if h.mode.envelope == envelopeSortMembers {
			slices.SortStableFunc(ms, func(a, b canon.Member) int { return strings.Compare(a.Key, b.Key) })
		}
		v.Members = ms
	}
	return v
}

// nullAbsent writes every member of the flattened envelope, the absent ones
// as null, as a serializer without skip-if-none does.
func nullAbsent(v canon.Value) canon.Value {
	t := reflect.TypeFor[cgp.Envelope]()
	out := canon.Value{Kind: canon.Object}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m, ok := v.Lookup(name)
		if !ok {
			m = canon.Value{Kind: canon.Null}
		}
		out.Members = append(out.Members, canon.Member{Key: name, Value: m})
	}
	return out
}
