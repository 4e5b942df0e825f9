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
	"github.com/refereehq/referee/fuzz"
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
	Write: func(dir string, vectors []check.FuzzVector) ([]string, error) {
		doc, err := fuzzDoc(vectors)
		if err != nil {
			return nil, err
		}
		return fuzz.WriteFiles(dir, map[string][]byte{VectorsFile: doc})
	},
}

var fuzzJSON = fuzz.JSON{Duplicates: true, Space: true, Scalars: true}

// fuzzReference is the built-in implementation the vectors' outcomes come from.
var fuzzReference = &Handler{}

// fuzzVector is the vectors.json entry fuzz/NAME for input: the
// reference's canonical text, or a rejection with the canonical text of a
// relaxed parser's reading as its lenient output; and the checks the suite
// makes of it.
func fuzzVector(name string, input []byte) (check.FuzzVector, bool) {
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
		return check.FuzzVector{}, false
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
			return check.FuzzVector{}, false
		}
		v.Output = &ok.Str
	}
	fv, ok := fuzzLoad(v)
	if !ok && v.Lenient != nil {
		v.Lenient = nil // a reading the suite's rules do not take
		fv, ok = fuzzLoad(v)
	}
	return fv, ok
}

func deref(a, b *string) string {
	if a != nil {
		return *a
	}
	return *b
}

// fuzzLoad makes the checks of v through the suite's own reader.
func fuzzLoad(v vector) (check.FuzzVector, bool) {
	doc, err := fuzzDoc([]check.FuzzVector{{Entry: v}})
	if err != nil {
		return check.FuzzVector{}, false
	}
	c, err := fuzz.CorpusOf(map[string][]byte{VectorsFile: doc})
	if err != nil {
		return check.FuzzVector{}, false
	}
	suite, err := suiteOf(c)
	if err != nil {
		return check.FuzzVector{}, false
	}
	return check.FuzzVector{Entry: v, Checks: suite.Checks}, true
}

// fuzzDoc renders vectors as a vectors.json.
func fuzzDoc(vectors []check.FuzzVector) ([]byte, error) {
	doc := vectorsDoc{Format: "referee-jcs/1"}
	for _, fv := range vectors {
		v, ok := fv.Entry.(vector)
		if !ok {
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, fv.Entry)
		}
		doc.Vectors = append(doc.Vectors, v)
	}
	return fuzz.MarshalJSON(doc)
}
