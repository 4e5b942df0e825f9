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
	args, err := json.Marshal(map[string]string{arg: deref(v.Input, v.InputHex)})
	if err != nil {
		return nil, false
	}
	if out, aerr := fuzzReference.Handle(context.Background(), op, args); aerr != nil {
		v.Reject = true
		if _, err := canon.Parse(input, canon.ReadOptions{Duplicates: canon.LastWins}); err != nil {
			if reading, err := relaxJSON(input); err == nil {
				if l, err := canon.JCS.Canonicalize(reading, canon.ReadOptions{Duplicates: canon.LastWins}); err == nil {
					v.Lenient = []string{string(l)}
				}
			}
		}
	} else {
		ok, err := canon.Parse(out, canon.ReadOptions{})
		if err != nil || ok.Kind != canon.String {
			return nil, false
		}
		v.Output = &ok.Str
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
	return corpus.MarshalJSON(doc)
}
