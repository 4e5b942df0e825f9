package corpus

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/refereehq/referee/jsongen"
)

// TestMarshalJSONIndented: MarshalJSON writes what json.Encoder writes
// with SetIndent("", "  "), for documents of every shape (deep, wide,
// empty objects and arrays, strings with escapes and brackets) and for
// structs with json.RawMessage members.
func TestMarshalJSONIndented(t *testing.T) {
	indented := func(v any) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	values := []any{nil, 1, "s", []any{}, map[string]any{}, []any{[]any{}, map[string]any{"": []any{}}},
		struct {
			A json.RawMessage `json:"a"`
			B []string        `json:"b,omitempty"`
		}{A: json.RawMessage(`{ "x" : [ 1 , "[\"{}\"]" ] }`)}}
	j := jsongen.JSON{Duplicates: true, Scalars: true}
	for i := range 3000 {
		doc := j.Value(rand.New(rand.NewPCG(5, uint64(i))))
		var v any
		if json.Unmarshal(doc, &v) == nil {
			values = append(values, v)
		}
	}
	if len(values) < 1000 {
		t.Fatalf("only %d documents", len(values))
	}
	for _, v := range values {
		got, err := MarshalJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := indented(v); !bytes.Equal(got, want) {
			t.Fatalf("MarshalJSON wrote\n%s\njson.Encoder\n%s", got, want)
		}
	}
}
