package jcs

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
)

// fuzzInputs are the first n inputs the canonical target makes from seed
// 1, a quarter of them mutated as the engine mutates them.
func fuzzInputs(n int) [][]byte {
	var ins [][]byte
	for i := range n {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		in := fuzzSpec.Targets[0].Generate(r)
		if r.IntN(4) == 0 {
			in = fuzz.Mutate(r, in, false)
		}
		ins = append(ins, in)
	}
	return ins
}

// TestFuzzDocAsMarshalled: the vectors.json the fuzzer lays out is the
// bytes corpus.MarshalJSON writes, for one vector and several, of every
// kind the fuzzer makes (outputs, rejections with and without lenient
// outputs, hex inputs).
func TestFuzzDocAsMarshalled(t *testing.T) {
	var entries []any
	kinds := map[string]int{}
	for i, in := range fuzzInputs(1500) {
		e, ok := fuzzVector("fuzz-"+string(rune('a'+i%26)), in)
		if !ok {
			continue
		}
		v := e.(vector)
		switch {
		case v.InputHex != nil:
			kinds["hex"]++
		case len(v.Lenient) > 0:
			kinds["lenient"]++
		case v.Reject:
			kinds["reject"]++
		default:
			kinds["output"]++
		}
		entries = append(entries, e)
	}
	for _, k := range []string{"hex", "lenient", "reject", "output"} {
		if kinds[k] == 0 {
			t.Fatalf("no vector of kind %s among %v", k, kinds)
		}
	}
	for i := range entries {
		for _, part := range [][]any{entries[i : i+1], entries[i:min(i+3, len(entries))]} {
			got, err := fuzzDoc(part)
			if err != nil {
				t.Fatal(err)
			}
			doc := vectorsDoc{Format: "referee-jcs/1"}
			for _, e := range part {
				doc.Vectors = append(doc.Vectors, e.(vector))
			}
			want, err := corpus.MarshalJSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("vectors %d..: got\n%s\nMarshalJSON\n%s", i, got, want)
			}
		}
	}
}

// TestReferenceOutputAsHandle: the reference's answer the fuzzer takes
// for an input is what the reference's Handle replies to it.
func TestReferenceOutputAsHandle(t *testing.T) {
	outputs := 0
	for _, in := range fuzzInputs(1500) {
		op, arg, text := Op, "value_text", string(in)
		if !utf8.Valid(in) {
			op, arg, text = OpBytes, "value_hex", hex.EncodeToString(in)
		}
		args, err := json.Marshal(map[string]string{arg: text})
		if err != nil {
			t.Fatal(err)
		}
		var want string
		reply, aerr := fuzzReference.Handle(context.Background(), op, args)
		if aerr == nil {
			v, err := canon.Parse(reply, canon.ReadOptions{})
			if err != nil || v.Kind != canon.String {
				t.Fatalf("%q: reply %s", in, reply)
			}
			want = v.Str
			outputs++
		}
		out, rejected, ok := referenceOutput(op, arg, in, text)
		if !ok || rejected != (aerr != nil) || out != want {
			t.Errorf("%q: %q, rejected %v, ok %v; Handle replies %s, %v", in, out, rejected, ok, reply, aerr)
		}
	}
	if outputs == 0 {
		t.Fatal("no input canonicalised")
	}
}

// TestIndexPlainAsStream: a vectors.json in the shape referee writes (the
// embedded corpus's, and what the fuzzer lays out) is indexed in one pass
// into the checks the stream reader makes of it; one in any other shape
// is left to the stream reader.
func TestIndexPlainAsStream(t *testing.T) {
	embedded, err := fs.ReadFile(embedded, "corpus/"+VectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var entries []any
	for i, in := range fuzzInputs(600) {
		if e, ok := fuzzVector(fmt.Sprintf("fuzz-%012x", i), in); ok {
			entries = append(entries, e)
		}
	}
	docs := [][]byte{embedded}
	for i := 0; i < len(entries); i += 50 {
		doc, err := fuzzDoc(entries[i:min(i+50, len(entries))])
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	for _, doc := range docs {
		r := bytes.NewReader(doc)
		stream, ok := indexVectors("c", bytes.NewReader(doc), r)
		if !ok {
			t.Fatalf("not indexed as a stream: %.200s", doc)
		}
		want := describeChecks(stream)
		// Read back from the file, or kept as decoded (a corpus in memory).
		for _, keep := range []bool{false, true} {
			plain, ok := indexPlain("c", doc, r, keep)
			if !ok {
				t.Fatalf("not indexed in one pass: %.200s", doc)
			}
			if got := describeChecks(plain); got != want {
				t.Fatalf("in one pass (keep %v):\n%s\nas a stream:\n%s", keep, got, want)
			}
		}
	}
	// Other shapes, valid or not, are the stream reader's.
	for _, doc := range []string{
		`{"Format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"}]}`,
		`{"format":"referee-jcs/1","vectors":[{"NAME":"a","input":"1","output":"1"}]}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"\ud800","reject":true}]}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1","extra":1}]}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"}],"format":"referee-jcs/1"}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"},{"name":"a","input":"2","output":"2"}]}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"}] x}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","input":"1","output":"1"},]}`,
		`{"format":"referee-jcs/1","vectors":[]}`,
		`{"format":"referee-jcs/2","vectors":[{"name":"a","input":"1","output":"1"}]}`,
		`{"format":"referee-jcs/1","vectors":[{"name":"a","name":"b","input":"1","output":"1"}]}`,
	} {
		if _, ok := indexPlain("c", []byte(doc), bytes.NewReader([]byte(doc)), false); ok {
			t.Errorf("indexed in one pass: %s", doc)
		}
	}
}

// describeChecks renders what a reader makes of checks.
func describeChecks(cs []check.Check) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %q %q %v %q\n  %s\n", c.ID, c.LevelOf(), c.Doc, c.Clause, c.Needs, c.MissingReason, c.Explanation())
	}
	return b.String()
}
