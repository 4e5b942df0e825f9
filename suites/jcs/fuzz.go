package jcs

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/jsonstring"
	"github.com/refereehq/referee/jsongen"
)

// fuzzSpec generates input for canonicalJson (or canonicalJsonBytes, when
// it is not UTF-8). Each input becomes a vectors.json entry with the built-in
// reference's canonical text, or a rejection with the canonical text of
// its lenient reading when relaxed parsers read one, and is judged by the
// check that entry makes when the suite loads it, at the level the suite's
// rules give it.
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{{
		Name:     "canonical",
		Doc:      "JSON for canonicalJson: numbers across ECMAScript's formatting boundaries and from bit patterns, strings of every Unicode class with escapes and surrogates, host-language member names, deep and wide nesting, duplicate names, whitespace, long strings across buffer sizes; and structural and byte-level mutations, other encodings",
		Needs:    []string{Op},
		Input:    check.FuzzBytes,
		Generate: func(r *rand.Rand) []byte { return fuzzJSON.Value(r) },
		Vector:   fuzzVector,
	}},
	Files: func(entries []any) (map[string][]byte, error) {
		doc, err := fuzzDoc(entries)
		if err != nil {
			return nil, err
		}
		return map[string][]byte{VectorsFile: doc}, nil
	},
	Proof: check.FuzzProof{Inputs: 3000},
}

var fuzzJSON = jsongen.JSON{Duplicates: true, Space: true, Scalars: true}

// fuzzReference is the built-in implementation the vectors' outcomes come from.
var fuzzReference = &Handler{}

// fuzzVector is the vectors.json entry fuzz/NAME for input: the
// reference's canonical text, or a rejection with the canonical text of a
// relaxed parser's reading as its lenient output; and the checks the suite
// makes of it.
func fuzzVector(name string, input []byte) (any, bool) {
	v := vector{Name: "fuzz/" + name, Doc: "found by referee fuzz"}
	op, arg := Op, "value_text"
	if utf8.Valid(input) {
		s := string(input)
		v.Input = &s
	} else {
		h := hex.EncodeToString(input)
		v.InputHex = &h
		op, arg = OpBytes, "value_hex"
	}
	out, rejected, ok := referenceOutput(op, arg, input, deref(v.Input, v.InputHex))
	if !ok {
		return nil, false
	}
	if rejected {
		v.Reject = true
		if _, err := canon.Parse(input, canon.ReadOptions{Duplicates: canon.LastWins}); err != nil {
			if reading, err := relaxJSON(input); err == nil {
				if l, err := canon.JCS.Canonicalize(reading, canon.ReadOptions{Duplicates: canon.LastWins}); err == nil {
					v.Lenient = []string{string(l)}
				}
			}
		}
	} else {
		v.Output = &out
	}
	if v.Lenient != nil {
		var l [][]byte
		for _, x := range v.Lenient {
			l = append(l, []byte(x))
		}
		if _, err := analyze(groupOf(v.Name), input, nil, true, l); err != nil {
			v.Lenient = nil // a reading the suite's rules do not take
		}
	}
	return v, true
}

// referenceOutput is the reference's answer to op with args {arg: text}
// (input, as sent): the canonical text, or a rejection; ok is false when
// the answer is neither. A canonical text in UTF-8, what the reference
// makes of any input it accepts, is taken as it comes; the reply the
// reference's Handle makes of it is that text as a JSON string. Another is
// asked of Handle and read back from its reply.
func referenceOutput(op, arg string, input []byte, text string) (out string, rejected, ok bool) {
	canonical, err := fuzzReference.canonicalize(input)
	if err != nil {
		return "", true, true
	}
	if utf8.Valid(canonical) {
		return string(canonical), false, true
	}
	args, err := json.Marshal(map[string]string{arg: text})
	if err != nil {
		return "", false, false
	}
	reply, aerr := fuzzReference.Handle(context.Background(), op, args)
	if aerr != nil {
		return "", true, true
	}
	v, err := canon.Parse(reply, canon.ReadOptions{})
	if err != nil || v.Kind != canon.String {
		return "", false, false
	}
	return v.Str, false, true
}

func deref(a, b *string) string {
	if a != nil {
		return *a
	}
	return *b
}

// fuzzDoc renders vectors as a vectors.json.
func fuzzDoc(entries []any) ([]byte, error) {
	doc := vectorsDoc{Format: "referee-jcs/1", Vectors: []vector{}} // a list, even of none
	for _, e := range entries {
		v, ok := e.(vector)
		if !ok {
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, e)
		}
		doc.Vectors = append(doc.Vectors, v)
	}
	if len(doc.Vectors) == 0 {
		return corpus.MarshalJSON(doc)
	}
	return appendDoc(nil, &doc), nil
}

// appendDoc appends doc, of one vector or more, as corpus.MarshalJSON
// writes it (the same bytes), without reflection: the engine lays out
// every vector it makes.
func appendDoc(b []byte, doc *vectorsDoc) []byte {
	b = append(b, "{\n  \"format\": "...)
	b = jsonstring.Append(b, doc.Format)
	b = append(b, ",\n  \"vectors\": ["...)
	member := func(key string) { b = append(append(append(b, ",\n      \""...), key...), "\": "...) }
	for i := range doc.Vectors {
		v := &doc.Vectors[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\n      \"name\": "...)
		b = jsonstring.Append(b, v.Name)
		member("doc")
		b = jsonstring.Append(b, v.Doc)
		for _, m := range []struct {
			key string
			val *string
		}{{"input", v.Input}, {"input_hex", v.InputHex}, {"output", v.Output}} {
			if m.val != nil {
				member(m.key)
				b = jsonstring.Append(b, *m.val)
			}
		}
		if v.Reject {
			member("reject")
			b = append(b, "true"...)
		}
		if len(v.Lenient) > 0 {
			member("lenient_outputs")
			b = append(b, '[')
			for j, l := range v.Lenient {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n        "...)
				b = jsonstring.Append(b, l)
			}
			b = append(b, "\n      ]"...)
		}
		b = append(b, "\n    }"...)
	}
	return append(b, "\n  ]\n}\n"...)
}
