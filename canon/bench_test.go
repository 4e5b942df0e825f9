package canon

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// benchDoc returns a deterministic mixed JSON document of about 1 MiB:
// records with unsorted keys, floats, integers, Unicode strings and
// escapes, nested arrays and objects.
func benchDoc() []byte {
	r := rand.New(rand.NewPCG(2024, 8785))
	words := []string{"alpha", "Beta", "gamma\\n", "δέλτα", "эпсилон", "ζήτα", "\\u00e9t\\u00e9", "😂emoji", "\\ud83d\\ude00", "tab\\there", "quote\\\"d", "日本語", "\\ufb33", "\\/slash", "\\u0007bell"}
	keys := []string{"zeta", "id", "name", "Ärger", "score", "tags", "active", "nested", "€uro", "😀", "\\ufb33", "ratio", "count", "a", "b"}
	b := []byte("[\n")
	for i := 0; len(b) < 1<<20; i++ {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "  {"...)
		for j, k := range r.Perm(len(keys)) {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = append(b, '"')
			b = append(b, keys[k]...)
			b = append(b, `": `...)
			switch k % 6 {
			case 0:
				b = strconv.AppendFloat(b, math.Float64frombits(r.Uint64()&^(1<<62)), 'g', -1, 64)
			case 1:
				b = strconv.AppendInt(b, r.Int64N(1<<40)-1<<39, 10)
			case 2:
				b = append(b, '"')
				for n := 1 + r.IntN(4); n > 0; n-- {
					b = append(b, words[r.IntN(len(words))]...)
					b = append(b, ' ')
				}
				b = append(b, '"')
			case 3:
				b = append(b, '[')
				for n := r.IntN(6); n > 0; n-- {
					b = strconv.AppendFloat(b, r.Float64()*1000, 'f', -1, 64)
					b = append(b, ", "...)
				}
				b = append(b, "true, null]"...)
			case 4:
				b = append(b, `{"y": [1, 2.50, 3e5], "x": {"`...)
				b = append(b, words[r.IntN(len(words))]...)
				b = append(b, `": false}, "w": -0.0001}`...)
			default:
				b = strconv.AppendFloat(b, r.NormFloat64()*1e6, 'e', -1, 64)
			}
		}
		b = append(b, '}')
	}
	return append(b, "\n]\n"...)
}

func BenchmarkCanonicalize1MiB(b *testing.B) {
	doc := benchDoc()
	want, err := JCS.Canonicalize(doc, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if theirs, err := jcs.Transform(doc); err != nil || string(theirs) != string(want) {
		b.Fatalf("gowebpki disagrees on the benchmark document: %v", err)
	}
	b.Run("referee", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := JCS.Canonicalize(doc, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gowebpki", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jcs.Transform(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLongStrings parses and canonicalises a 64 KB string of one
// kind of character: ASCII, characters beyond ASCII (taken a run at a
// time), and \u escapes. The fuzzer's inputs hold such strings across
// buffer sizes.
func BenchmarkLongStrings(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{{"ascii", "abcdefgh"}, {"euro", "€"}, {"escapes", `\u2028`}} {
		in := []byte(`["` + strings.Repeat(tc.unit, 64<<10/len(tc.unit)) + `"]`)
		b.Run(tc.name+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := Parse(in, ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/canonicalize", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := JCS.Canonicalize(in, ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseSmall parses the small documents the adapter protocol
// sends for every call, a request's args and a reply line, beside the
// 1 MiB document: what a parse costs before the first member is read.
func BenchmarkParseSmall(b *testing.B) {
	for _, tc := range []struct{ name, doc string }{
		{"args", `{"value_text":"[1,{\"b\":2,\"a\":\"x\"}]"}`},
		{"reply", `{"id":4711,"ok":true,"result":"[1,{\"a\":\"x\",\"b\":2}]"}`},
		{"records", `[{"id":1,"name":"a","tags":["x","y"]},{"id":2,"name":"b","tags":[]},{"id":3,"name":"c","tags":["z"]}]`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse([]byte(tc.doc), ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
