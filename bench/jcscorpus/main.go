// Jcscorpus writes a generated jcs corpus (referee-jcs/1, one vectors.json)
// for bench/jcs.sh: N vectors of random JSON documents, about 670 bytes of
// vectors.json each, whose expected outputs are RFC 8785 canonical forms
// computed by package canon, and one vector in twenty an input that is not
// JSON, to be rejected.
//
// Usage: jcscorpus -n N [-seed S] DIR
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

func main() {
	n := flag.Int("n", 100000, "vectors to write")
	seed := flag.Uint64("seed", 1, "the generator's seed: the same seed gives the same corpus")
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: jcscorpus -n N [-seed S] DIR")
		os.Exit(2)
	}
	if err := write(flag.Arg(0), *n, rand.New(rand.NewPCG(*seed, 0))); err != nil {
		fmt.Fprintln(os.Stderr, "jcscorpus:", err)
		os.Exit(1)
	}
}

func write(dir string, n int, r *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "vectors.json")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("{\n  \"format\": \"referee-jcs/1\",\n  \"vectors\": [\n")
	for i := range n {
		input := document(r)
		v := map[string]any{"name": fmt.Sprintf("gen/v%07d", i), "doc": "a generated document", "input": input}
		if i%20 == 19 {
			v["input"] = input[:len(input)-1] // truncated: not JSON
			v["reject"] = true
		} else {
			out, err := canon.JCS.Canonicalize([]byte(input), canon.ReadOptions{})
			if err != nil {
				return fmt.Errorf("vector %d: %w", i, err)
			}
			v["output"] = string(out)
		}
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.WriteString("    ")
		w.Write(line)
		if i < n-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString("  ]\n}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// document returns a JSON object text of about 330 bytes: unsorted keys
// (some non-ASCII), integers, floats and exponents, strings with escapes,
// and nesting.
func document(r *rand.Rand) string {
	var b strings.Builder
	object(&b, r, 0)
	return b.String()
}

func object(b *strings.Builder, r *rand.Rand, depth int) {
	b.WriteByte('{')
	members := 5 + r.IntN(5)
	if depth > 0 {
		members = 1 + r.IntN(4)
	}
	for i := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(fmt.Sprintf("%s%d", keys[r.IntN(len(keys))], i)))
		b.WriteString(": ")
		value(b, r, depth+1)
	}
	b.WriteByte('}')
}

var keys = []string{"zeta", "alpha", "Beta", "€uro", "\u00e9t\u00e9", "日本", "\U0001F600", "a\tb", "_x", "10"}

var texts = []string{"plain", "line\nbreak", "quote \" and \\ backslash", "caf\u00e9", "\u2028", "emoji \U0001F389", "\x01control"}

func value(b *strings.Builder, r *rand.Rand, depth int) {
	kind := r.IntN(7)
	if depth > 2 && kind >= 5 {
		kind = r.IntN(5)
	}
	switch kind {
	case 0:
		b.WriteString(strconv.Itoa(r.IntN(2_000_000) - 1_000_000))
	case 1:
		b.WriteString(strconv.FormatFloat((r.Float64()-0.5)*math.Pow(10, float64(r.IntN(40)-20)), 'g', -1, 64))
	case 2:
		fmt.Fprintf(b, "%d.%de%d", r.IntN(100), r.IntN(1000), r.IntN(30)-15)
	case 3:
		q, _ := json.Marshal(texts[r.IntN(len(texts))])
		b.Write(q)
	case 4:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	case 5:
		b.WriteByte('[')
		for i := range 1 + r.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			value(b, r, depth+1)
		}
		b.WriteByte(']')
	default:
		object(b, r, depth)
	}
}
