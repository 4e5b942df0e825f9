// Gen writes the jcs suite's embedded corpus, suites/jcs/corpus/vectors.json,
// and its manifest.
//
// Inputs are written here by hand. Expected outputs are not: they come from
// Node.js, whose JSON.stringify is the ECMAScript definition that RFC 8785
// builds on, with keys sorted by UTF-16 code units. A vector that gives an
// output by hand must agree with Node's, or gen stops. Rejections need no
// oracle: RFC 8785 and I-JSON forbid them.
//
// The suite's test regenerates it and compares; to rewrite the corpus, run
// from the repository root:
//
//	go test ./suites/jcs -run TestCorpusIsGenerated -update
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/refereehq/referee/corpus"
)

type vector struct {
	Name     string   `json:"name"`
	Doc      string   `json:"doc"`
	Input    string   `json:"input,omitempty"`
	InputHex string   `json:"input_hex,omitempty"`
	Output   string   `json:"output,omitempty"`
	Reject   bool     `json:"reject,omitempty"`
	Lenient  []string `json:"lenient_outputs,omitempty"`
	// Readings are the lenient readings of an input that is not JSON, as
	// JSON text written by hand; the oracle's canonical texts of them
	// become Lenient.
	Readings []string `json:"-"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "corpus", "write the corpus into `DIR`")
	flag.Parse()
	vs := vectors()
	if err := fillOutputs(vs); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.Name] {
			return fmt.Errorf("duplicate vector name %s", v.Name)
		}
		seen[v.Name] = true
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"format\": \"referee-jcs/1\",\n  \"vectors\": [\n")
	for i, v := range vs {
		line, err := marshal(v)
		if err != nil {
			return err
		}
		b.WriteString("    ")
		b.Write(line)
		if i < len(vs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "vectors.json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := corpus.Lock(*out, corpus.DefaultMaxFileSize)
	return err
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// oracle canonicalises each NDJSON line (a JSON string holding a JSON text) the
// ECMAScript way and prints the result as a JSON string.
const oracle = `
const rl = require('readline').createInterface({input: process.stdin});
function canon(v) {
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  if (v !== null && typeof v === 'object')
    return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
  return JSON.stringify(v);
}
rl.on('line', l => process.stdout.write(JSON.stringify(canon(JSON.parse(JSON.parse(l)))) + '\n'));
`

func fillOutputs(vs []vector) error {
	type job struct {
		i       int // the vector
		reading int // its reading, or -1 for its output
	}
	var in bytes.Buffer
	var jobs []job
	add := func(text string, j job) {
		line, _ := marshal(text)
		in.Write(line)
		in.WriteByte('\n')
		jobs = append(jobs, j)
	}
	for i, v := range vs {
		if !v.Reject {
			add(v.Input, job{i, -1})
		}
		for r, text := range v.Readings {
			add(text, job{i, r})
		}
	}
	cmd := exec.Command("node", "--stack-size=65500", "-e", oracle)
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node oracle: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(jobs) {
		return fmt.Errorf("node oracle gave %d lines for %d inputs", len(lines), len(jobs))
	}
	for k, j := range jobs {
		v := &vs[j.i]
		var got string
		if err := json.Unmarshal([]byte(lines[k]), &got); err != nil {
			return fmt.Errorf("%s: node oracle line: %w", v.Name, err)
		}
		if j.reading >= 0 {
			v.Lenient = append(v.Lenient, got)
			continue
		}
		if v.Output != "" && v.Output != got {
			return fmt.Errorf("%s: written output %q, node says %q", v.Name, v.Output, got)
		}
		v.Output = got
	}
	return nil
}

func vectors() []vector {
	vs := []vector{
		// Numbers: ECMAScript Number::toString (RFC 8785 §3.2.2.3). Every input
		// lexeme differs from its canonical form, so copying lexemes fails.
		{Name: "numbers/zero-fraction", Doc: "0.0 is written 0", Input: "[0.0]", Output: "[0]"},
		{Name: "numbers/minus-zero", Doc: "-0 is written 0", Input: "[-0]", Output: "[0]"},
		{Name: "numbers/minus-zero-exponent", Doc: "-0.0e5 is written 0", Input: "[-0.0e5]", Output: "[0]"},
		{Name: "numbers/trailing-zeros", Doc: "an integral value loses its fraction", Input: "[1.000]", Output: "[1]"},
		{Name: "numbers/fraction-trailing-zeros", Doc: "4.50 is written 4.5", Input: "[4.50]", Output: "[4.5]"},
		{Name: "numbers/exponent-integer", Doc: "1E3 is written 1000", Input: "[1E3]", Output: "[1000]"},
		{Name: "numbers/million", Doc: "1e6 is plain 1000000, not 1e+06", Input: "[1e6]", Output: "[1000000]"},
		{Name: "numbers/1e20", Doc: "1e20 is still written in full", Input: "[1E+20]", Output: "[100000000000000000000]"},
		{Name: "numbers/below-1e21", Doc: "the largest double below 1e21 is written in full", Input: "[9.999999999999999e20]", Output: "[999999999999999900000]"},
		{Name: "numbers/1e21", Doc: "1e21 switches to exponent form with an explicit +", Input: "[1E21]", Output: "[1e+21]"},
		{Name: "numbers/2-pow-68", Doc: "2^68 is written in full with zeros past the 17 significant digits", Input: "[2.9514790517935283e20]", Output: "[295147905179352830000]"},
		{Name: "numbers/below-1e23", Doc: "shortest round-trip digits near 1e23", Input: "[9.999999999999997E22]", Output: "[9.999999999999997e+22]"},
		{Name: "numbers/1e23", Doc: "1e23 in exponent form", Input: "[1.0E23]", Output: "[1e+23]"},
		{Name: "numbers/above-1e23", Doc: "the double after 1e23 needs 17 digits", Input: "[1.0000000000000001E23]", Output: "[1.0000000000000001e+23]"},
		{Name: "numbers/1e-6", Doc: "1e-6 is still plain 0.000001", Input: "[1E-6]", Output: "[0.000001]"},
		{Name: "numbers/below-1e-6", Doc: "the double below 1e-6 switches to exponent form", Input: "[0.0000009999999999999997]", Output: "[9.999999999999997e-7]"},
		{Name: "numbers/1e-7", Doc: "1e-7 is exponent form with a two-character exponent, not 1e-07", Input: "[0.0000001]", Output: "[1e-7]"},
		{Name: "numbers/negative-small", Doc: "a negative value in plain form with 17 significant digits", Input: "[-3.3333333333333333E-6]", Output: "[-0.0000033333333333333333]"},
		{Name: "numbers/min-subnormal", Doc: "the smallest subnormal is 5e-324", Input: "[4.9406564584124654e-324]", Output: "[5e-324]"},
		{Name: "numbers/min-subnormal-negative", Doc: "the smallest negative subnormal is -5e-324", Input: "[-4.9406564584124654E-324]", Output: "[-5e-324]"},
		{Name: "numbers/max-double", Doc: "the largest double", Input: "[1.7976931348623157E308]", Output: "[1.7976931348623157e+308]"},
		{Name: "numbers/max-double-negative", Doc: "the most negative double", Input: "[-17976931348623157e292]", Output: "[-1.7976931348623157e+308]"},
		{Name: "numbers/2-pow-53", Doc: "2^53 written as an integer", Input: "[9007199254740992.0]", Output: "[9007199254740992]"},
		{Name: "numbers/2-pow-53-plus-1", Doc: "2^53+1 rounds to the nearest double, 2^53", Input: "[9007199254740993]", Output: "[9007199254740992]"},
		{Name: "numbers/large-integer", Doc: "a 20-digit integer keeps 17 significant digits", Input: "[12345678901234567890]", Output: "[12345678901234567000]"},
		{Name: "numbers/thirds", Doc: "333333333.33333329 is the double 333333333.3333333", Input: "[333333333.33333329]", Output: "[333333333.3333333]"},
		{Name: "numbers/round-half", Doc: "a lexeme halfway between digits rounds to the nearest double", Input: "[1424953923781206.25]", Output: "[1424953923781206.2]"},
		{Name: "numbers/scaled-fraction", Doc: "123.456e-2 is 1.23456", Input: "[123.456e-2]", Output: "[1.23456]"},
		{Name: "numbers/negative-exponent", Doc: "-1.5E-10 is -1.5e-10", Input: "[-1.5E-10]", Output: "[-1.5e-10]"},
		{Name: "numbers/point-one", Doc: "0.1 stays 0.1, not 0.1000000000000000055", Input: "[1e-1]", Output: "[0.1]"},
		{Name: "numbers/sum-like", Doc: "0.30000000000000004 needs 17 digits", Input: "[3.0000000000000004E-1]", Output: "[0.30000000000000004]"},
		{Name: "numbers/top-level", Doc: "a number alone is a JSON text too (below 2^53, so no implementation may refuse it)", Input: "1E15", Output: "1000000000000000"},

		// Strings: escaped exactly as JSON.stringify does, everything else raw.
		{Name: "strings/quote", Doc: `the quotation mark is \"`, Input: `["\u0022"]`, Output: `["\""]`},
		{Name: "strings/backslash", Doc: `the reverse solidus is \\`, Input: `["\u005c"]`, Output: `["\\"]`},
		{Name: "strings/short-escapes", Doc: `U+0008, U+0009, U+000A, U+000C and U+000D use \b \t \n \f \r`, Input: `["\u0008\u0009\u000A\u000C\u000D"]`, Output: `["\b\t\n\f\r"]`},
		{Name: "strings/other-controls", Doc: `the other C0 controls are \u00xx in lowercase hex`, Input: `["\u0000\u0001\u000B\u000E\u001F"]`, Output: `["\u0000\u0001\u000b\u000e\u001f"]`},
		{Name: "strings/solidus", Doc: `"/" is written raw, not \/`, Input: `["\/"]`, Output: `["/"]`},
		{Name: "strings/delete", Doc: "U+007F is written raw", Input: `["\u007f"]`, Output: "[\"\x7f\"]"},
		{Name: "strings/line-separators", Doc: "U+2028 and U+2029 are written raw", Input: `["\u2028\u2029"]`, Output: "[\"\u2028\u2029\"]"},
		{Name: "strings/html", Doc: "<, > and & are written raw", Input: `["\u003c/script\u003e \u0026"]`, Output: `["</script> &"]`},
		{Name: "strings/non-ascii", Doc: "non-ASCII characters are written raw as UTF-8", Input: `["\u00e9\u20ac\u00F6"]`, Output: `["é€ö"]`},
		{Name: "strings/astral", Doc: "a surrogate pair escape becomes the raw 4-byte character", Input: `["\ud83d\ude02"]`, Output: `["😂"]`},
		{Name: "strings/private-use", Doc: "U+E000 and U+F8FF, private-use characters, are written raw", Input: `["\ue000\uF8FF"]`, Output: "[\"\ue000\uf8ff\"]"},
		{Name: "strings/ffff", Doc: "U+FFFF, a noncharacter, is written raw or refused", Input: `["\uFFFF"]`, Output: "[\"\uffff\"]"},
		{Name: "strings/no-normalization", Doc: "strings are not Unicode-normalised", Input: `["A\u030a"]`, Output: "[\"A\u030a\"]"},
		{Name: "strings/mixed", Doc: "every class in one string", Input: `["\"\\\/\b\f\n\r\t\u0000\u007f\u00e9\u2028\ud83d\ude02"]`},
		{Name: "strings/top-level", Doc: "a string alone is a JSON text too", Input: `"\u00e9"`, Output: `"é"`},
		{Name: "strings/specials", Doc: "U+FFFD and U+FFFC are written raw", Input: `["\ufffd\uFFFC"]`, Output: "[\"\ufffd\ufffc\"]"},

		// Keys: sorted by UTF-16 code units, recursively.
		{Name: "keys/utf16-vs-codepoint", Doc: "an astral key (D83D...) sorts before U+FB33 by UTF-16 units, after it by code point", Input: `{"\ufb33":1,"\ud83d\ude02":2}`, Output: "{\"\U0001F602\":2,\"\ufb33\":1}"},
		{Name: "keys/utf16-private-use", Doc: "U+10000 (D800 DC00) sorts before U+E000 by UTF-16 units", Input: `{"\ue000":1,"\ud800\udc00":2}`, Output: "{\"\U00010000\":2,\"\ue000\":1}"},
		{Name: "keys/utf16-ffff", Doc: "U+FFFF sorts after every astral character by UTF-16 units", Input: `{"\uffff":1,"\udbff\udfff":2,"\u00ff":3}`},
		{Name: "keys/utf16-fffd", Doc: "U+FFFD sorts after every astral character by UTF-16 units", Input: `{"\ufffd":1,"\udbff\udffd":2,"\u00ff":3}`},
		{Name: "keys/ascii", Doc: "ASCII keys sort by code unit: empty, digits, upper, lower", Input: `{"b":1,"a":2,"B":3,"A":4,"1":5,"":6}`, Output: `{"":6,"1":5,"A":4,"B":3,"a":2,"b":1}`},
		{Name: "keys/prefix", Doc: "a key sorts before the keys it is a prefix of", Input: `{"ab":1,"a":2,"abc":3}`, Output: `{"a":2,"ab":1,"abc":3}`},
		{Name: "keys/numeric-strings", Doc: "numeric keys sort as strings: 10 before 9", Input: `{"9":1,"10":2,"1":3}`, Output: `{"1":3,"10":2,"9":1}`},
		{Name: "keys/nested", Doc: "members are sorted at every level, in arrays too", Input: `{"b":{"z":1,"y":2},"a":[{"d":1,"c":2}]}`, Output: `{"a":[{"c":2,"d":1}],"b":{"y":2,"z":1}}`},
		{Name: "keys/escaped", Doc: "keys sort by their decoded value, not their escapes", Input: `{"\u0062":1,"a":2}`, Output: `{"a":2,"b":1}`},
		{Name: "keys/french", Doc: "no locale collation: pêche before péché is wrong", Input: `{"sin":4,"pêche":3,"péché":2,"peach":1}`, Output: `{"peach":1,"péché":2,"pêche":3,"sin":4}`},
		{Name: "keys/controls", Doc: "control-character keys sort by code unit", Input: `{" ":1,"\r":2,"\n":3}`, Output: `{"\n":3,"\r":2," ":1}`},

		// Structure.
		{Name: "structure/whitespace", Doc: "insignificant whitespace is removed", Input: "{ \"b\" : [ 1 , 2 ] ,\n\t\"a\" : { } }\r\n", Output: `{"a":{},"b":[1,2]}`},
		{Name: "structure/empty", Doc: "empty containers and strings are kept", Input: `{"c":"","b":[],"a":{}}`, Output: `{"a":{},"b":[],"c":""}`},
		{Name: "structure/literals", Doc: "true, false and null are kept", Input: `{"t":true,"n":null,"f":false}`, Output: `{"f":false,"n":null,"t":true}`},
		{Name: "structure/array-order", Doc: "arrays keep their order", Input: `[3,1,2,{"b":0,"a":0}]`, Output: `[3,1,2,{"a":0,"b":0}]`},

		// Rejections: lone surrogates (RFC 8785 §3.2.2.2) and numbers beyond
		// the double range (§3.2.2.3) must be rejected; duplicate names should
		// be (§3.1 requires I-JSON, RFC 7493, of the data).
		{Name: "rejects/duplicate-key", Doc: "duplicate keys are not I-JSON", Input: `{"a":1,"a":2}`, Reject: true},
		{Name: "rejects/duplicate-key-nested", Doc: "a duplicate key deep inside is not I-JSON", Input: `{"x":[{"b":1,"c":0,"b":1}]}`, Reject: true},
		{Name: "rejects/duplicate-key-escaped", Doc: `"a" and "\u0061" are the same key`, Input: `{"a":1,"\u0061":2}`, Reject: true},
		{Name: "rejects/lone-high-surrogate", Doc: "a lone high surrogate is not I-JSON", Input: `["\ud800"]`, Reject: true},
		{Name: "rejects/lone-low-surrogate", Doc: "a lone low surrogate is not I-JSON", Input: `["x\udc00y"]`, Reject: true},
		{Name: "rejects/lone-surrogate-key", Doc: "a lone surrogate in a key is not I-JSON", Input: `{"\udead":1}`, Reject: true},
		{Name: "rejects/reversed-pair", Doc: "a low surrogate before a high one pairs with nothing", Input: `["\ude02\ud83d"]`, Reject: true},
		{Name: "rejects/overflow", Doc: "1e400 is beyond IEEE 754 double precision", Input: `[1e400]`, Reject: true},
		{Name: "rejects/overflow-negative", Doc: "-1E400 is beyond IEEE 754 double precision", Input: `{"a":-1E400}`, Reject: true},
		{Name: "rejects/overflow-just-above-max", Doc: "1.8e308 rounds to infinity", Input: `[1.8e308]`, Reject: true},
	}

	// Nesting. RFC 8259 §9 lets a parser limit it; depth 64 (arrays and
	// objects on the deepest path) must work, deeper may be rejected.
	sorted := `{"b":1,"a":2}`
	for _, depth := range []int{33, 64, 65} {
		in := strings.Repeat("[", depth-1) + sorted + strings.Repeat("]", depth-1)
		doc := fmt.Sprintf("depth %d: %d nested arrays around an object", depth, depth-1)
		if depth > 64 {
			doc += ", one deeper than must work"
		}
		vs = append(vs, vector{Name: fmt.Sprintf("nesting/depth-%d", depth), Doc: doc, Input: in})
	}
	vs = append(vs, vector{
		Name:  "nesting/depth-64-objects",
		Doc:   "depth 64: 64 nested objects, each sorted",
		Input: strings.Repeat(`{"z":0,"a":`, 63) + `{"z":0,"a":1}` + strings.Repeat("}", 63),
	})
	for _, depth := range []int{129, 1000, 10001} {
		in := strings.Repeat("[", depth) + `{"b":1,"a":2}` + strings.Repeat("]", depth)
		vs = append(vs, vector{
			Name:  fmt.Sprintf("nesting/arrays-%d", depth),
			Doc:   fmt.Sprintf("%d nested arrays around an object", depth),
			Input: in,
		})
	}
	obj := strings.Repeat(`{"z":0,"a":`, 1000) + "[]" + strings.Repeat("}", 1000)
	vs = append(vs, vector{Name: "nesting/objects-1000", Doc: "1000 nested objects, each sorted", Input: obj})

	// Random doubles from uniformly random bit patterns, written in a form
	// that is never the canonical one.
	r := rand.New(rand.NewPCG(8785, 1))
	for i := 0; i < 256; {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		i++
		vs = append(vs, vector{
			Name:  fmt.Sprintf("numbers/random/%03d", i),
			Doc:   fmt.Sprintf("the double with bits %016x", math.Float64bits(f)),
			Input: "[" + strconv.FormatFloat(f, 'E', -1, 64) + "]",
		})
	}
	for _, group := range [][]vector{grammar(), notUTF8(), hostNames(), surrogates(), appendixB(), topLevel(), scale()} {
		vs = append(vs, group...)
	}
	return vs
}
