package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The groups of vectors that close what the corpus used to let through:
// text that is not JSON, input that is not UTF-8, member names a host
// language answers itself, broken surrogates, RFC 8785's Appendix B,
// top-level scalars and scale. Every input is written here; every output
// comes from the oracle.

// grammar returns texts that are not RFC 8259 JSON, JSONTestSuite n_
// style. readings are the lenient readings that keep the text's value (the
// relaxed-grammar broken mode reads each so); a text with none has no value
// to keep, so any output for it invents one.
func grammar() []vector {
	type g struct{ name, doc, in string }
	var vs []vector
	add := func(x g, readings ...string) {
		vs = append(vs, vector{Name: "grammar/" + x.name, Doc: x.doc, Input: x.in, Reject: true, Readings: readings})
	}
	// Numbers.
	add(g{"number-leading-zero", "01 has a leading zero", "[01]"}, "[1]")
	add(g{"number-leading-zeros-negative", "-012 has a leading zero", "[-012]"}, "[-12]")
	add(g{"number-plus", "+1: JSON has no plus sign", "[+1]"}, "[1]")
	add(g{"number-leading-dot", ".5 has no integer part", "[.5]"}, "[0.5]")
	add(g{"number-trailing-dot", "1. has no fraction digits", "[1.]"}, "[1]")
	add(g{"number-trailing-dot-exponent", "1.e2 has no fraction digits", "[1.e2]"}, "[100]")
	add(g{"number-hex", "0x1F is not a JSON number", "[0x1F]"}, "[31]")
	add(g{"number-octal", "0o17 is not a JSON number", "[0o17]"}, "[15]")
	add(g{"number-binary", "0b101 is not a JSON number", "[0b101]"}, "[5]")
	add(g{"number-underscores", "1_000 is not a JSON number", "[1_000]"}, "[1000]")
	add(g{"number-minus-space", "- 1: the sign belongs to the number", "[- 1]"}, "[-1]")
	add(g{"number-space-inside", "1 000 is two numbers with no separator, not a thousand", "[1 000]"}, "[1,0]")
	add(g{"number-exponent-without-digits", "1e has no exponent digits", "[1e]"})
	add(g{"number-exponent-sign-only", "1e+ has no exponent digits", "[1e+]"})
	add(g{"number-two-points", "1.2.3 is no number", "[1.2.3]"})
	// Separators and brackets.
	add(g{"no-separator-numbers", "[1 2]: values need a comma, and are not one number", "[1 2]"}, "[1,2]")
	add(g{"no-separator-strings", `["a" "b"] has no comma`, `["a" "b"]`}, `["a","b"]`)
	add(g{"no-separator-literals", "[true false] has no comma", "[true false]"}, "[true,false]")
	add(g{"no-separator-members", "members need a comma", `{"a":1 "b":2}`}, `{"a":1,"b":2}`)
	add(g{"no-colon", "a member needs a colon", `{"a" 1}`}, `{"a":1}`)
	add(g{"trailing-comma-array", "[1,] has a trailing comma", "[1,]"}, "[1]")
	add(g{"trailing-comma-object", `{"a":1,} has a trailing comma`, `{"a":1,}`}, `{"a":1}`)
	add(g{"trailing-comma-nested", "trailing commas at two levels", `{"a":[1,2,],}`}, `{"a":[1,2]}`)
	add(g{"double-comma", "[1,,2]: an elision is no value", "[1,,2]"})
	add(g{"leading-comma", "[,1]: an elision is no value", "[,1]"})
	add(g{"missing-value", `{"a":} has no value`, `{"a":}`})
	add(g{"mismatched-close-array", "[1} closes an array with a brace", "[1}"})
	add(g{"mismatched-close-object", `{"a":1] closes an object with a bracket`, `{"a":1]`})
	add(g{"extra-close", "[1]] closes one array too many", "[1]]"})
	add(g{"two-texts", "[1] [2] is two texts", "[1] [2]"})
	add(g{"two-top-level-numbers", "1 2 is two texts", "1 2"})
	add(g{"trailing-word", `{"a":1} x has data after the value`, `{"a":1} x`})
	// Literals.
	add(g{"literal-misspelt-true", "ture is no literal", "[ture]"})
	add(g{"literal-misspelt-false", "flase is no literal", "[flase]"})
	add(g{"literal-misspelt-null", "nill is no literal", "[nill]"})
	add(g{"literal-split", "t rue is no literal", "[t rue]"})
	add(g{"literal-capitalised", "True: literals are lowercase", "[True]"}, "[true]")
	add(g{"literal-uppercase", "NULL: literals are lowercase", "[NULL]"}, "[null]")
	add(g{"literal-undefined", "undefined is not JSON", "[undefined]"})
	// Member names.
	add(g{"key-unquoted", "member names are strings", `{a:1}`}, `{"a":1}`)
	add(g{"key-single-quoted", "strings are in double quotes", `{'a':1}`}, `{"a":1}`)
	add(g{"key-number", "member names are strings, not numbers", `{1:2}`}, `{"1":2}`)
	// Strings.
	add(g{"string-single-quotes", "strings are in double quotes", `['a']`}, `["a"]`)
	add(g{"string-raw-control", "U+0001 must be escaped in a string", "[\"a\x01b\"]"}, `["a\u0001b"]`)
	add(g{"string-raw-tab", "a tab must be escaped in a string", "[\"a\tb\"]"}, `["a\tb"]`)
	add(g{"string-raw-newline", "a line feed must be escaped in a string", "[\"a\nb\"]"}, `["a\nb"]`)
	add(g{"string-raw-nul", "U+0000 must be escaped in a string", "[\"\x00\"]"}, `["\u0000"]`)
	add(g{"string-unterminated", "a string needs its closing quote", `["abc]`})
	add(g{"escape-x", `\x41 is not a JSON escape`, `["\x41"]`}, `["A"]`)
	add(g{"escape-identity", `\q is not a JSON escape`, `["\q"]`}, `["q"]`)
	add(g{"escape-single-quote", `\' is not a JSON escape`, `["\'"]`}, `["'"]`)
	add(g{"escape-zero", `\0 is not a JSON escape`, `["\0"]`}, `["\u0000"]`)
	add(g{"escape-vertical-tab", `\v is not a JSON escape`, `["\v"]`}, `["\u000b"]`)
	add(g{"escape-short-u", `\u12xy has two hex digits, not four`, `["\u12xy"]`})
	add(g{"escape-not-hex", `\uZZZZ has no hex digits`, `["\uZZZZ"]`})
	add(g{"escape-at-end", `a backslash before the closing quote escapes it`, `["\"]`})
	// Comments.
	add(g{"comment-block", "JSON has no comments", "[1/*c*/]"}, "[1]")
	add(g{"comment-line", "JSON has no comments", "[1]// c"}, "[1]")
	add(g{"comment-hash", "JSON has no comments", "# c\n[1]"}, "[1]")
	add(g{"comment-unterminated", "an unterminated comment after the value", "[1]/* c"})
	// Whitespace JSON does not have.
	add(g{"space-nbsp", "U+00A0 is not JSON whitespace", "[1,\u00a02]"}, "[1,2]")
	add(g{"space-vertical-tab", "U+000B is not JSON whitespace", "[\v1]"}, "[1]")
	add(g{"space-form-feed", "U+000C is not JSON whitespace", "[\f1]"}, "[1]")
	add(g{"space-line-separator", "U+2028 is not JSON whitespace", "[1\u2028]"}, "[1]")
	add(g{"space-ideographic", "U+3000 is not JSON whitespace", "\u3000[1]"}, "[1]")

	// Truncation at every byte of one text, and of top-level scalars: no
	// reading keeps a value a truncated text does not have.
	doc := `{"a":[1,-2.5e3,{"b":"c\"\u00e9"}],"t":true,"n":null}`
	for k := 1; k < len(doc); k++ {
		add(g{fmt.Sprintf("truncated/%02d", k), fmt.Sprintf("the first %d bytes of %s", k, doc), doc[:k]})
	}
	add(g{"truncated/top-level-string", "a string cut before its closing quote", `"abc`})
	add(g{"truncated/top-level-literal", "false cut after four letters", `fals`})
	add(g{"truncated/top-level-escape", `a string cut inside \u00e9`, `"\u00`})
	return vs
}

// notUTF8 returns inputs that are not UTF-8, which travel as value_hex.
func notUTF8() []vector {
	var vs []vector
	add := func(name, doc string, parts ...string) {
		var b strings.Builder
		for _, p := range parts {
			if strings.HasPrefix(p, "x") {
				raw, err := hex.DecodeString(p[1:])
				if err != nil {
					panic(err)
				}
				b.Write(raw)
			} else {
				b.WriteString(p)
			}
		}
		vs = append(vs, vector{Name: "utf8/" + name, Doc: doc, InputHex: hex.EncodeToString([]byte(b.String())), Reject: true})
	}
	add("overlong-solidus", "C0 AF is an overlong '/'", `["`, "xc0af", `"]`)
	add("overlong-nul", "C0 80 is an overlong U+0000 (Java's modified UTF-8)", `["a`, "xc080", `b"]`)
	add("overlong-three-bytes", "E0 80 AF is an overlong '/'", `["`, "xe080af", `"]`)
	add("overlong-four-bytes", "F0 80 80 AF is an overlong '/'", `["`, "xf08080af", `"]`)
	add("encoded-high-surrogate", "ED A0 80 encodes the surrogate U+D800", `["`, "xeda080", `"]`)
	add("encoded-low-surrogate", "ED BF BF encodes the surrogate U+DFFF", `["`, "xedbfbf", `"]`)
	add("encoded-surrogate-pair", "CESU-8: the surrogate pair of U+1F602 encoded half by half", `["`, "xeda0bdedb882", `"]`)
	add("truncated-two-bytes", "C3 without its continuation byte", `["`, "xc3", `"]`)
	add("truncated-three-bytes", "E2 82 without its last byte (a cut €)", `["`, "xe282", `"]`)
	add("truncated-four-bytes", "F0 9F 98 without its last byte (a cut 😀)", `["`, "xf09f98", `"]`)
	add("continuation-alone", "a continuation byte with no lead byte", `["`, "x80", `"]`)
	add("continuation-run", "three continuation bytes with no lead byte", `["`, "x80bf80", `"]`)
	add("lead-then-ascii", "C3 followed by an ASCII byte", `["`, "xc341", `"]`)
	add("byte-fe", "FE is never UTF-8", `["`, "xfe", `"]`)
	add("byte-ff", "FF is never UTF-8", `["`, "xff", `"]`)
	add("beyond-unicode", "F4 90 80 80 would be U+110000, beyond Unicode", `["`, "xf4908080", `"]`)
	add("five-bytes", "F8 88 80 80 80 is a five-byte form UTF-8 does not have", `["`, "xf888808080", `"]`)
	add("latin-1", "é in ISO-8859-1 (E9), not UTF-8", `["caf`, "xe9", `"]`)
	add("in-key", "a member name with a stray continuation byte", `{"`, "x80", `":1}`)
	add("utf16le-bom", "[1] in UTF-16LE with its byte order mark", "xfffe5b0031005d00")
	add("utf16be-bom", "[1] in UTF-16BE with its byte order mark", "xfeff005b0031005d")
	add("utf32le-bom", "[1] in UTF-32LE with its byte order mark", "xfffe00005b000000310000005d000000")
	return vs
}

// hostNames returns objects whose member names a host language answers
// itself: Object.prototype's in JavaScript, __proto__, a length that makes
// an object look like an array, then (thenables), Python's dunders. Their
// outputs are sorted like any other names.
func hostNames() []vector {
	type n struct{ name, doc, in string }
	var vs []vector
	for _, x := range []n{
		{"proto", "__proto__ is a member like any other", `{"__proto__":1}`},
		{"proto-object", "__proto__ holding an object, which stays a member and is sorted", `{"__proto__":{"b":1,"a":2}}`},
		{"proto-among-others", "__proto__ among other members", `{"b":1,"__proto__":[2],"a":3}`},
		{"proto-nested", "__proto__ deep inside", `[{"x":{"y":0,"__proto__":null}}]`},
		{"to-json-object", "toJSON holding an object, among other members", `{"toJSON":{"b":1,"a":0},"a":1}`},
		{"constructor", "constructor holding an object", `{"constructor":{"name":"Object"}}`},
		{"has-own-property", "hasOwnProperty beside another member", `{"hasOwnProperty":1,"a":2}`},
		{"value-of-to-string", "valueOf and toString", `{"valueOf":0,"toString":"s"}`},
		{"inherited-names", "every name Object.prototype answers, none a duplicate", `{"toString":1,"constructor":2,"__defineGetter__":3,"isPrototypeOf":4,"propertyIsEnumerable":5,"toLocaleString":6,"__lookupGetter__":7,"__lookupSetter__":8,"__defineSetter__":9,"hasOwnProperty":10,"valueOf":11}`},
		{"length", "length holding a number", `{"length":1}`},
		{"length-array-like", "length with members 0 and 1 is an object, not an array", `{"length":2,"0":"a","1":"b"}`},
		{"prototype-then", "prototype and then", `{"then":null,"prototype":{}}`},
		{"python-dunders", "names Python objects answer", `{"__class__":1,"__dict__":2,"keys":3,"items":4,"get":5,"__init__":6}`},
		{"all-together", "every host name in one object", `{"then":1,"length":2,"valueOf":3,"__proto__":4,"toJSON":5,"constructor":6,"hasOwnProperty":7,"__class__":8,"prototype":9,"toString":10,"a":11,"":12}`},
	} {
		vs = append(vs, vector{Name: "names/" + x.name, Doc: x.doc, Input: x.in})
	}
	return vs
}

// surrogates returns every broken surrogate shape, which RFC 8785 §3.2.2.2
// must reject, and valid pairs spelt in upper and mixed case, which it must
// join.
func surrogates() []vector {
	var vs []vector
	reject := func(name, doc, in string) {
		vs = append(vs, vector{Name: "surrogates/" + name, Doc: doc, Input: in, Reject: true})
	}
	reject("high-high", "two high surrogates", `["\ud800\ud800"]`)
	reject("high-high-low", "a high surrogate before a valid pair", `["\ud800\ud800\udc00"]`)
	reject("low-low", "two low surrogates", `["\udc00\udc00"]`)
	reject("high-bmp-escape", "a high surrogate, then an escaped BMP character", `["\ud83d\u0041"]`)
	reject("high-escaped-quote", "a high surrogate, then an escaped quote", `["\ud83d\""]`)
	reject("high-short-escape", `a high surrogate, then \n`, `["\ud83d\n"]`)
	reject("high-raw-ascii", "a high surrogate, then a raw A", `["\ud83dA"]`)
	reject("high-raw-non-ascii", "a high surrogate, then a raw é", "[\"\\ud83d\u00e9\"]")
	reject("high-raw-astral", "a high surrogate, then a raw astral character", "[\"\\ud83d\U0001F600\"]")
	reject("high-at-end-of-text", "a top-level string ending in a high surrogate", `"\ud83d"`)
	reject("high-before-pair", "a high surrogate before a valid pair of the same high", `["\ud83d\ud83d\ude00"]`)
	reject("key-high-high", "two high surrogates in a member name", `{"\ud800\ud800":1}`)
	reject("key-high-bmp-escape", "a high surrogate, then an escaped BMP character, in a member name", `{"\ud83d\u0041":1}`)
	reject("key-high-at-end", "a member name ending in a high surrogate", `{"a\ud83d":1}`)
	reject("key-low-low", "two low surrogates in a member name", `{"\udc00\udc00":1}`)
	output := func(name, doc, in string) {
		vs = append(vs, vector{Name: "surrogates/" + name, Doc: doc, Input: in})
	}
	output("pair-uppercase", "a pair spelt in uppercase hex is one character", `["\uD83D\uDE00"]`)
	output("pair-mixed-case", "a pair spelt in mixed case is one character", `["\uD83d\uDe00"]`)
	output("pair-uppercase-key", "a member name holding an uppercase pair sorts by its UTF-16 units", `{"\uE000":2,"\uD800\uDC00":1}`)
	return vs
}

// appendixB returns every value of RFC 8785 Appendix B, as a number
// written in Go's 'E' form (never canonical) alone in an array, with the
// JSON the RFC gives for it: the oracle must agree. In an array, so that an
// implementation that refuses top-level scalars (top-level/ judges that) is
// still judged on every value's formatting. NaN and the infinities, which the
// RFC says must fail, are the texts that would stand for them.
func appendixB() []vector {
	var vs []vector
	for _, row := range []struct{ bits, json string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	} {
		bits, err := strconv.ParseUint(row.bits, 16, 64)
		if err != nil {
			panic(err)
		}
		f := math.Float64frombits(bits)
		vs = append(vs, vector{
			Name:   "appendix-b/" + row.bits,
			Doc:    fmt.Sprintf("RFC 8785 Appendix B: the double %s is %s", row.bits, row.json),
			Input:  "[" + strconv.FormatFloat(f, 'E', -1, 64) + "]",
			Output: "[" + row.json + "]",
		})
	}
	for _, row := range []struct{ bits, text, doc string }{
		{"7fffffffffffffff", "NaN", "RFC 8785 Appendix B: NaN must fail, and NaN is not JSON"},
		{"7ff0000000000000", "Infinity", "RFC 8785 Appendix B: Infinity must fail, and Infinity is not JSON"},
		{"fff0000000000000", "-Infinity", "RFC 8785 §3.2.2.3: -Infinity must fail, and -Infinity is not JSON"},
	} {
		vs = append(vs, vector{Name: "appendix-b/" + row.bits, Doc: row.doc, Input: "[" + row.text + "]", Reject: true})
	}
	return vs
}

// topLevel returns scalars and literals alone, with whitespace around them.
func topLevel() []vector {
	var vs []vector
	for _, x := range []struct{ name, doc, in string }{
		{"number-spaces", "a number with spaces around it (below 2^53, so no implementation may refuse it)", " 1E3 "},
		{"negative-zero-tabs", "-0.0 with tabs around it", "\t-0.0\t"},
		{"string-newlines", "a string with line feeds around it", "\n\"\\u00e9\"\n"},
		{"true-tabs", "true with tabs around it", "\ttrue\t"},
		{"false-crlf", "false with CRLF around it", "\r\nfalse\r\n"},
		{"null-leading-space", "null after a space", " null"},
		{"null-trailing-space", "null before a space", "null "},
		{"object-spaces", "an object with whitespace around it", " \r\n\t{\"b\":1,\"a\":2} \n"},
	} {
		vs = append(vs, vector{Name: "top-level/" + x.name, Doc: x.doc, Input: x.in})
	}
	return vs
}

// scale returns large inputs: thousands of doubles from all bit patterns,
// below and above 2^53, objects of hundreds of members, strings and keys
// of tens of thousands of characters, and a long array.
func scale() []vector {
	r := rand.New(rand.NewPCG(8785, 2))
	var vs []vector
	doubles := func(lo, hi uint64) string {
		parts := make([]string, 256)
		for i := range parts {
			exp := lo + r.Uint64N(hi-lo+1)
			bits := r.Uint64N(2)<<63 | exp<<52 | r.Uint64N(1<<52)
			parts[i] = strconv.FormatFloat(math.Float64frombits(bits), 'E', -1, 64)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	// Exponent fields 0 to 1075 are doubles below 2^53 (subnormals among
	// them); 1076 to 2046, those at or above it (2047 is NaN and Infinity).
	for i := 1; i <= 8; i++ {
		vs = append(vs, vector{Name: fmt.Sprintf("scale/doubles-below-2-53/%d", i), Doc: "256 doubles from random bit patterns below 2^53, subnormals included", Input: doubles(0, 1075)})
	}
	for i := 1; i <= 8; i++ {
		vs = append(vs, vector{Name: fmt.Sprintf("scale/doubles-from-2-53/%d", i), Doc: "256 doubles from random bit patterns of magnitude 2^53 or more, up to the largest", Input: doubles(1076, 2046)})
	}
	chars := []rune{'a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', 0x01, 0x1f, 0x7f, 'é', 'ß', '€', 0x2028, 0xFB33, 0xFF61, 0xE000, 0xFFFD, 0x1F600, 0x10000, 0x10FFFD}
	str := func(n int) string {
		var b strings.Builder
		for range n {
			c := chars[r.IntN(len(chars))]
			switch {
			case r.IntN(3) > 0 && c >= 0x20 && c != '"' && c != '\\':
				b.WriteRune(c)
			case c > 0xFFFF:
				hi, lo := utf16.EncodeRune(c)
				fmt.Fprintf(&b, `\u%04x\u%04X`, hi, lo)
			default:
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		}
		return `"` + b.String() + `"`
	}
	seen := map[string]bool{}
	var members []string
	for len(members) < 500 {
		k := str(1 + r.IntN(6))
		var name string
		if err := json.Unmarshal([]byte(k), &name); err != nil {
			panic(err)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		var v string
		switch r.IntN(3) {
		case 0:
			v = strconv.Itoa(r.IntN(1000) - 500)
		case 1:
			v = str(r.IntN(4))
		default:
			v = fmt.Sprintf(`{"b":%d,"a":[%d.0]}`, r.IntN(10), r.IntN(10))
		}
		members = append(members, k+":"+v)
	}
	vs = append(vs, vector{Name: "scale/object-500", Doc: "an object of 500 members, names from every Unicode class", Input: "{" + strings.Join(members, ",") + "}"})
	numeric := r.Perm(1000)
	members = members[:0]
	for _, k := range numeric {
		members = append(members, fmt.Sprintf(`"%d":%d`, k, k))
	}
	vs = append(vs, vector{Name: "scale/object-1000-numeric-names", Doc: "an object of 1000 members named 0 to 999, which sort as strings (10 before 9)", Input: "{" + strings.Join(members, ",") + "}"})
	vs = append(vs, vector{Name: "scale/string-50000", Doc: "a string of 50,000 characters of every class, raw and escaped", Input: "[" + str(50000) + "]"})
	vs = append(vs, vector{Name: "scale/name-20000", Doc: "a member name of 20,000 characters", Input: "{" + str(20000) + `:1,"a":2}`})
	elems := make([]string, 10000)
	for i := range elems {
		switch r.IntN(4) {
		case 0:
			elems[i] = strconv.FormatFloat(float64(r.IntN(2000000)-1000000)/8, 'E', -1, 64)
		case 1:
			elems[i] = []string{"true", "false", "null"}[r.IntN(3)]
		case 2:
			elems[i] = str(r.IntN(3))
		default:
			elems[i] = "[]"
		}
	}
	vs = append(vs, vector{Name: "scale/array-10000", Doc: "an array of 10,000 scalars", Input: "[" + strings.Join(elems, ",") + "]"})
	return vs
}
