package canon

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// rejectCase is an input that Parse must reject with err at offset.
type rejectCase struct {
	name   string
	in     string
	opts   ReadOptions
	err    error
	offset int64
}

// nested returns n nested empty arrays.
func nested(n int) string {
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}

var rejectCases = []rejectCase{
	// Empty input and whitespace.
	{"empty", "", ReadOptions{}, ErrSyntax, 0},
	{"only whitespace", " \t\r\n", ReadOptions{}, ErrSyntax, 4},
	{"form feed", "\f1", ReadOptions{}, ErrSyntax, 0},
	{"vertical tab", "[1,\v2]", ReadOptions{}, ErrSyntax, 3},
	{"no-break space", "\u00a01", ReadOptions{}, ErrSyntax, 0},
	{"line separator", "[1\u2028]", ReadOptions{}, ErrSyntax, 2},
	{"byte order mark", "\ufeff{}", ReadOptions{}, ErrSyntax, 0},
	{"nul byte", "[\x00]", ReadOptions{}, ErrSyntax, 1},

	// Invalid UTF-8.
	{"bad byte in string", "\"a\xffb\"", ReadOptions{}, ErrInvalidUTF8, 2},
	{"raw lone surrogate", "\"\xed\xa0\x80\"", ReadOptions{}, ErrInvalidUTF8, 1},
	{"raw low surrogate", "[\"x\xed\xbf\xbf\"]", ReadOptions{}, ErrInvalidUTF8, 3},
	{"overlong slash", "\"\xc0\xaf\"", ReadOptions{}, ErrInvalidUTF8, 1},
	{"overlong three bytes", "\"\xe0\x80\xaf\"", ReadOptions{}, ErrInvalidUTF8, 1},
	{"truncated sequence", "\"\xe2\x82\"", ReadOptions{}, ErrInvalidUTF8, 1},
	{"truncated at end", "\"\xe2\x82", ReadOptions{}, ErrInvalidUTF8, 1},
	{"above U+10FFFF", "\"\xf4\x90\x80\x80\"", ReadOptions{}, ErrInvalidUTF8, 1},
	{"lone continuation", "\"ab\x80\"", ReadOptions{}, ErrInvalidUTF8, 3},
	{"bad byte in key", "{\"\xfe\":1}", ReadOptions{}, ErrInvalidUTF8, 2},
	{"bad byte after escape", "\"\\n\xff\"", ReadOptions{}, ErrInvalidUTF8, 3},
	{"bad byte in hex escape", "\"\\u12\xff4\"", ReadOptions{}, ErrInvalidUTF8, 5},
	{"bad byte as value", "\xff", ReadOptions{}, ErrInvalidUTF8, 0},
	{"bad byte in array", "[1,\xff]", ReadOptions{}, ErrInvalidUTF8, 3},
	{"bad byte after value", "1 \xc3", ReadOptions{}, ErrInvalidUTF8, 2},
	{"bad byte after characters", "\"aé€\xffé\"", ReadOptions{}, ErrInvalidUTF8, 7},
	{"bad byte after escaped characters", "\"\\né€\xffé\"", ReadOptions{}, ErrInvalidUTF8, 8},
	{"cut character before quote", "[\"éé\xc3\"]", ReadOptions{}, ErrInvalidUTF8, 6},
	{"cut character before escape", "\"é\xc3\\n\"", ReadOptions{}, ErrInvalidUTF8, 3},

	// Duplicate keys.
	{"duplicate key", `{"a": 1, "b": 2, "a": 3}`, ReadOptions{}, ErrDuplicateKey, 17},
	{"duplicate after decoding", `{"a":1,"\u0061":2}`, ReadOptions{}, ErrDuplicateKey, 7},
	{"duplicate escaped both", `{"\n":1,"\u000a":2}`, ReadOptions{}, ErrDuplicateKey, 8},
	{"duplicate nested", `[{"x":{"y":1,"y":2}}]`, ReadOptions{}, ErrDuplicateKey, 13},
	{"duplicate lone surrogate", `{"\ud800":1,"\uD800":2}`, ReadOptions{}, ErrDuplicateKey, 12},
	{"duplicate surrogate pair", `{"😂":1,"\ud83d\ude02":2}`, ReadOptions{}, ErrDuplicateKey, 10},
	{"duplicate in large object", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k5":0}`, ReadOptions{}, ErrDuplicateKey, 107},
	{"duplicate empty key", `{"":1,"":2}`, ReadOptions{}, ErrDuplicateKey, 6},

	// Trailing data.
	{"trailing word", "{} x", ReadOptions{}, ErrTrailingData, 3},
	{"two numbers", "1 2", ReadOptions{}, ErrTrailingData, 2},
	{"extra bracket", "[]]", ReadOptions{}, ErrTrailingData, 2},
	{"two strings", `"a""b"`, ReadOptions{}, ErrTrailingData, 3},
	{"two objects", "{}{}", ReadOptions{}, ErrTrailingData, 2},
	{"two literals", "null null", ReadOptions{}, ErrTrailingData, 5},
	{"trailing comma at top", "1,", ReadOptions{}, ErrTrailingData, 1},

	// Non-finite numbers.
	{"NaN", "NaN", ReadOptions{}, ErrNonFinite, 0},
	{"Infinity", "Infinity", ReadOptions{}, ErrNonFinite, 0},
	{"minus Infinity", "-Infinity", ReadOptions{}, ErrNonFinite, 0},
	{"plus Infinity", "+Infinity", ReadOptions{}, ErrNonFinite, 0},
	{"NaN in array", "[1,NaN]", ReadOptions{}, ErrNonFinite, 3},
	{"minus Infinity in object", `{"a":-Infinity}`, ReadOptions{}, ErrNonFinite, 5},

	// Numbers outside the grammar.
	{"leading zero", "01", ReadOptions{}, ErrSyntax, 1},
	{"double zero", "00", ReadOptions{}, ErrSyntax, 1},
	{"negative leading zero", "-01", ReadOptions{}, ErrSyntax, 2},
	{"leading zero in array", "[0123]", ReadOptions{}, ErrSyntax, 2},
	{"plus sign", "+1", ReadOptions{}, ErrSyntax, 0},
	{"bare fraction", ".5", ReadOptions{}, ErrSyntax, 0},
	{"bare point", "1.", ReadOptions{}, ErrSyntax, 2},
	{"point before exponent", "1.e5", ReadOptions{}, ErrSyntax, 2},
	{"point in array", "[1.]", ReadOptions{}, ErrSyntax, 3},
	{"lone minus", "-", ReadOptions{}, ErrSyntax, 1},
	{"minus letter", "-a", ReadOptions{}, ErrSyntax, 1},
	{"minus space", "- 1", ReadOptions{}, ErrSyntax, 1},
	{"double minus", "--1", ReadOptions{}, ErrSyntax, 1},
	{"bare exponent", "1e", ReadOptions{}, ErrSyntax, 2},
	{"signed bare exponent", "1e+", ReadOptions{}, ErrSyntax, 3},
	{"exponent letter", "1E5e", ReadOptions{}, ErrSyntax, 3},
	{"hex", "0x1F", ReadOptions{}, ErrSyntax, 1},
	{"hex in array", "[0xff]", ReadOptions{}, ErrSyntax, 2},
	{"two points", "1.5.3", ReadOptions{}, ErrSyntax, 3},
	{"minus after number", "[1-2]", ReadOptions{}, ErrSyntax, 2},
	{"lower-case nan", "nan", ReadOptions{}, ErrSyntax, 1},
	{"short Inf", "Inf", ReadOptions{}, ErrSyntax, 0},

	// Control characters in strings.
	{"raw NUL", "\"\x00\"", ReadOptions{}, ErrSyntax, 1},
	{"raw tab", "\"a\tb\"", ReadOptions{}, ErrSyntax, 2},
	{"raw newline in key", "{\"a\nb\":1}", ReadOptions{}, ErrSyntax, 3},
	{"raw U+001F", "\"\x1f\"", ReadOptions{}, ErrSyntax, 1},
	{"raw control after escape", "\"\\t\x01\"", ReadOptions{}, ErrSyntax, 3},

	// Bad escapes.
	{"unknown escape", `"\x"`, ReadOptions{}, ErrSyntax, 2},
	{"upper-case U", `"\U0041"`, ReadOptions{}, ErrSyntax, 2},
	{"single quote escape", `"\'"`, ReadOptions{}, ErrSyntax, 2},
	{"bad hex digit", `"\u12G4"`, ReadOptions{}, ErrSyntax, 5},
	{"short hex", `"\u12"`, ReadOptions{}, ErrSyntax, 5},
	{"bad hex in low half", `"\ud800\u12"`, ReadOptions{}, ErrSyntax, 11},
	{"escape at end", `"\`, ReadOptions{}, ErrSyntax, 2},
	{"hex at end", `"\u00`, ReadOptions{}, ErrSyntax, 5},
	{"escaped space", `"\ "`, ReadOptions{}, ErrSyntax, 2},

	// Unterminated and misplaced structure.
	{"unterminated string", `"abc`, ReadOptions{}, ErrSyntax, 4},
	{"unterminated escaped string", `"a\nbc`, ReadOptions{}, ErrSyntax, 6},
	{"unterminated array", "[1,2", ReadOptions{}, ErrSyntax, 4},
	{"unterminated object", `{"a":1`, ReadOptions{}, ErrSyntax, 6},
	{"key without colon at end", `{"a"`, ReadOptions{}, ErrSyntax, 4},
	{"colon at end", `{"a":`, ReadOptions{}, ErrSyntax, 5},
	{"open bracket", "[", ReadOptions{}, ErrSyntax, 1},
	{"open brace", "{", ReadOptions{}, ErrSyntax, 1},
	{"number key", "{1:2}", ReadOptions{}, ErrSyntax, 1},
	{"single-quoted key", "{'a':1}", ReadOptions{}, ErrSyntax, 1},
	{"missing colon", `{"a" 1}`, ReadOptions{}, ErrSyntax, 5},
	{"trailing comma in object", `{"a":1,}`, ReadOptions{}, ErrSyntax, 7},
	{"trailing comma in array", "[1,]", ReadOptions{}, ErrSyntax, 3},
	{"missing comma", "[1 2]", ReadOptions{}, ErrSyntax, 3},
	{"leading comma", "[,1]", ReadOptions{}, ErrSyntax, 1},
	{"lone comma in object", "{,}", ReadOptions{}, ErrSyntax, 1},
	{"closing bracket", "]", ReadOptions{}, ErrSyntax, 0},
	{"mismatched close", "[1}", ReadOptions{}, ErrSyntax, 2},
	{"mismatched close object", `{"a":1]`, ReadOptions{}, ErrSyntax, 6},
	{"colon", ":", ReadOptions{}, ErrSyntax, 0},
	{"short true", "tru", ReadOptions{}, ErrSyntax, 3},
	{"wrong true", "trux", ReadOptions{}, ErrSyntax, 3},
	{"long true", "truee", ReadOptions{}, ErrSyntax, 4},
	{"capital True", "True", ReadOptions{}, ErrSyntax, 0},
	{"short null", "nul", ReadOptions{}, ErrSyntax, 3},
	{"literals without comma", "[true false]", ReadOptions{}, ErrSyntax, 6},
	{"comment", "[1/*x*/]", ReadOptions{}, ErrSyntax, 2},
	{"identifier", "undefined", ReadOptions{}, ErrSyntax, 0},

	// Depth.
	{"66 nested arrays at limit 64", nested(66), ReadOptions{MaxDepth: 64}, ErrDepth, 65},
	{"100 nested arrays at limit 64", nested(100), ReadOptions{MaxDepth: 64}, ErrDepth, 65},
	{"scalar too deep", "[[1]]", ReadOptions{MaxDepth: 1}, ErrDepth, 2},
	{"member too deep", `{"a":{"b":1}}`, ReadOptions{MaxDepth: 1}, ErrDepth, 10},
	{"array in object too deep", `[{"a":[]}]`, ReadOptions{MaxDepth: 1}, ErrDepth, 6},
	{"depth before later syntax error", nested(3) + "x", ReadOptions{MaxDepth: 1}, ErrDepth, 2},
	{"end of input is not too deep", "[[", ReadOptions{MaxDepth: 1}, ErrSyntax, 2},
	{"comma is not too deep", "[[,", ReadOptions{MaxDepth: 1}, ErrSyntax, 2},
	{"non-finite too deep is non-finite", "[[NaN]]", ReadOptions{MaxDepth: 1}, ErrNonFinite, 2},
	{"literal too deep", "[[true]]", ReadOptions{MaxDepth: 1}, ErrDepth, 2},
}

func TestParseRejects(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.in), tc.opts)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want error %v", tc.in, v, tc.err)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T %v, want *SyntaxError", tc.in, err, err)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("Parse(%q) error %v, want %v", tc.in, err, tc.err)
			}
			if se.Offset != tc.offset {
				t.Errorf("Parse(%q) error %v: offset %d, want %d", tc.in, err, se.Offset, tc.offset)
			}
			if !strings.HasPrefix(err.Error(), "canon: ") {
				t.Errorf("error %q lacks the canon: prefix", err)
			}
		})
	}
}

// acceptCase is an input that Parse must accept; want is the Value's
// String form.
type acceptCase struct {
	name string
	in   string
	opts ReadOptions
	want string
}

var acceptCases = []acceptCase{
	{"null", "null", ReadOptions{}, "null"},
	{"true", " true ", ReadOptions{}, "true"},
	{"false", "\t\r\nfalse\n", ReadOptions{}, "false"},
	{"zero", "0", ReadOptions{}, "0"},
	{"minus zero", "-0", ReadOptions{}, "-0"},
	{"lexemes kept", `[1.0, -0.0e+00, 1E30, 2e-3, 1e007, 123456789012345678901234567890]`, ReadOptions{}, "[1.0,-0.0e+00,1E30,2e-3,1e007,123456789012345678901234567890]"},
	{"huge number kept", "1e400", ReadOptions{}, "1e400"},
	{"empty containers", ` [ ] `, ReadOptions{}, "[]"},
	{"empty object", "{ }", ReadOptions{}, "{}"},
	{"nested", `{"a" : [1, {"b": null}, [] ], "c": {}}`, ReadOptions{}, `{"a":[1,{"b":null},[]],"c":{}}`},
	{"source order", `{"b":1,"a":2}`, ReadOptions{}, `{"b":1,"a":2}`},
	{"escapes", `"\"\\\/\b\f\n\r\t\u0000\u001F\u00e9\u20AC"`, ReadOptions{}, `"\"\\/\b\f\n\r\t\u0000\u001fé€"`},
	{"raw non-ASCII", "\"é\u2028\u2029\x7f\uffff\U0010FFFF😂\"", ReadOptions{}, "\"é\u2028\u2029\x7f\uffff\U0010FFFF😂\""},
	{"surrogate pair escape", `"\ud83d\ude02"`, ReadOptions{}, `"😂"`},
	{"upper-case pair escape", `"\uD83D\uDE02"`, ReadOptions{}, `"😂"`},
	{"lone high", `"\ud800"`, ReadOptions{}, `"\ud800"`},
	{"lone low", `"\uDC00"`, ReadOptions{}, `"\udc00"`},
	{"high then letter", `"\ud800A"`, ReadOptions{}, `"\ud800A"`},
	{"high then escaped letter", `"\ud800\u0041"`, ReadOptions{}, `"\ud800A"`},
	{"two highs", `"\ud800\ud800"`, ReadOptions{}, `"\ud800\ud800"`},
	{"low then high", `"\ude02\ud83d"`, ReadOptions{}, `"\ude02\ud83d"`},
	{"pair then high", `"\ud83d\ude02\ud83d"`, ReadOptions{}, `"😂\ud83d"`},
	{"high then raw astral", `"\ud83d😂"`, ReadOptions{}, `"\ud83d😂"`},
	{"high then short escape", `"\ud800\n"`, ReadOptions{}, `"\ud800\n"`},
	{"lone surrogate key", `{"\udfff":1}`, ReadOptions{}, `{"\udfff":1}`},
	{"last wins", `{"a":1,"b":2,"a":3}`, ReadOptions{Duplicates: LastWins}, `{"a":3,"b":2}`},
	{"last wins decoded", `{"a":1,"\u0061":[2]}`, ReadOptions{Duplicates: LastWins}, `{"a":[2]}`},
	{"last wins large", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k5":"x","k14":14,"k0":"y"}`, ReadOptions{Duplicates: LastWins},
		`{"k0":"y","k1":1,"k2":2,"k3":3,"k4":4,"k5":"x","k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14}`},
	{"last wins nested", `[{"a":{"x":1,"x":2},"a":{"y":3,"y":4}}]`, ReadOptions{Duplicates: LastWins}, `[{"a":{"y":4}}]`},
	{"keep duplicates", `{"a":1,"b":2,"a":3}`, ReadOptions{Duplicates: KeepDuplicates}, `{"a":1,"b":2,"a":3}`},
	{"keep duplicates decoded", `{"a":1,"\u0061":[2]}`, ReadOptions{Duplicates: KeepDuplicates}, `{"a":1,"a":[2]}`},
	{"keep duplicates nested", `[{"a":{"x":1,"x":2},"a":{"y":3,"y":4}}]`, ReadOptions{Duplicates: KeepDuplicates}, `[{"a":{"x":1,"x":2},"a":{"y":3,"y":4}}]`},
	{"keep duplicates large", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k0":"y","k5":"x"}`, ReadOptions{Duplicates: KeepDuplicates},
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k0":"y","k5":"x"}`},
	{"64 nested arrays at limit 64", nested(64), ReadOptions{MaxDepth: 64}, nested(64)},
	{"65 nested arrays at limit 64", nested(65), ReadOptions{MaxDepth: 64}, nested(65)},
	{"scalar at limit", "[[1]]", ReadOptions{MaxDepth: 2}, "[[1]]"},
	{"member at limit", `{"a":{"b":1}}`, ReadOptions{MaxDepth: 2}, `{"a":{"b":1}}`},
	{"scalar at depth limit 0 means none", nested(200), ReadOptions{MaxDepth: 0}, nested(200)},
	{"numbers touching delimiters", `[-1,0,1.5e3,{"a":2}]`, ReadOptions{}, `[-1,0,1.5e3,{"a":2}]`},
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range acceptCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.in), tc.opts)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("Parse(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`"\ud800"`, Value{Kind: String, Str: "\xed\xa0\x80"}},
		{`"\udbff\udfff"`, Value{Kind: String, Str: "\U0010FFFF"}},
		{`"\udc00x"`, Value{Kind: String, Str: "\xed\xb0\x80x"}},
		{`"\ud83d\ude02"`, Value{Kind: String, Str: "\U0001F602"}},
		{`"a\u0000b"`, Value{Kind: String, Str: "a\x00b"}},
		{`[true,false,null,-0]`, Value{Kind: Array, Elems: []Value{{Kind: Bool, Bool: true}, {Kind: Bool}, {}, {Kind: Number, Num: "-0"}}}},
		{`{"\u00e9":{}}`, Value{Kind: Object, Members: []Member{{Key: "é", Value: Value{Kind: Object}}}}},
	}
	for _, tc := range tests {
		v, err := Parse([]byte(tc.in), ReadOptions{})
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !Equal(v, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.in, v, tc.want)
		}
	}
}

func TestParseDepthBoundaries(t *testing.T) {
	for _, tc := range []struct {
		n, max int
		ok     bool
	}{
		{64, 64, true},
		{65, 64, true},
		{66, 64, false},
		{1, 1, true},
		{2, 1, true},
		{3, 1, false},
		{1, 0, true},
		{1000, -1, true},
	} {
		_, err := Parse([]byte(nested(tc.n)), ReadOptions{MaxDepth: tc.max})
		if tc.ok && err != nil {
			t.Errorf("%d nested arrays, MaxDepth %d: %v", tc.n, tc.max, err)
		}
		if !tc.ok {
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrDepth) || se.Offset != int64(tc.max+1) {
				t.Errorf("%d nested arrays, MaxDepth %d: error %v, want ErrDepth at offset %d", tc.n, tc.max, err, tc.max+1)
			}
		}
	}
}

func TestParseDeepNesting(t *testing.T) {
	const depth = 100000
	in := []byte(nested(depth))
	v, err := Parse(in, ReadOptions{})
	if err != nil {
		t.Fatalf("Parse of %d nested arrays: %v", depth, err)
	}
	out, err := JCS.Append(nil, v)
	if err != nil {
		t.Fatalf("Append of %d nested arrays: %v", depth, err)
	}
	if string(out) != string(in) {
		t.Errorf("Append of %d nested arrays changed them", depth)
	}
	if v.String() != string(in) {
		t.Errorf("String of %d nested arrays changed them", depth)
	}
	if !Equal(v, v) {
		t.Errorf("Equal(v, v) is false for %d nested arrays", depth)
	}
	objs := []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	if _, err := JCS.Canonicalize(objs, ReadOptions{}); err != nil {
		t.Errorf("Canonicalize of %d nested objects: %v", depth, err)
	}
	if _, err := Parse(objs, ReadOptions{MaxDepth: depth - 1}); !errors.Is(err, ErrDepth) {
		t.Errorf("Parse of %d nested objects at MaxDepth %d: %v, want ErrDepth", depth, depth-1, err)
	}
}

func TestParseHugeUnterminated(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MB")
	}
	const size = 10 << 20
	in := []byte(strings.Repeat("[", size))
	_, err := Parse(in, ReadOptions{})
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || se.Offset != size {
		t.Fatalf("Parse of %d '[': %v, want ErrSyntax at offset %d", size, err, size)
	}
	_, err = Parse(in, ReadOptions{MaxDepth: 1000})
	if !errors.As(err, &se) || !errors.Is(err, ErrDepth) || se.Offset != 1001 {
		t.Fatalf("Parse of %d '[' at MaxDepth 1000: %v, want ErrDepth at 1001", size, err)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse([]byte(`{"a": 1, "b": 2, "a": 3}`), ReadOptions{})
	if got, want := err.Error(), `canon: duplicate key "a" at offset 17`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e := &SyntaxError{Offset: 3, Err: ErrTrailingData}
	if got, want := e.Error(), "canon: trailing data at offset 3"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Unwrap() != ErrTrailingData {
		t.Errorf("Unwrap() = %v", e.Unwrap())
	}
}

func TestParseDoesNotAlias(t *testing.T) {
	in := []byte(`{"key":"value","n":12}`)
	v, err := Parse(in, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'x'
	}
	if got := v.String(); got != `{"key":"value","n":12}` {
		t.Errorf("Value changed with its input: %s", got)
	}
}

func TestParseContainerSizes(t *testing.T) {
	// Containers of every size up to past the shared block size, in one
	// document, keep their own elements.
	var b strings.Builder
	b.WriteString("[")
	for n := 0; n <= 1100; n += 1 + n/8 {
		if n > 0 {
			b.WriteString(",")
		}
		b.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString(`],{`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	in := b.String()
	v, err := Parse([]byte(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != in {
		t.Fatalf("String() differs from the input")
	}
	for i := 0; i < len(v.Elems); i += 2 {
		a, o := v.Elems[i], v.Elems[i+1]
		if len(a.Elems) != len(o.Members) || cap(a.Elems) != len(a.Elems) || cap(o.Members) != len(o.Members) {
			t.Errorf("container %d: %d elements (cap %d), %d members (cap %d)", i/2, len(a.Elems), cap(a.Elems), len(o.Members), cap(o.Members))
		}
	}
}

// TestMaxValues: every value counts toward ReadOptions.MaxValues, at any
// depth, containers and object member values alike (keys do not).
func TestMaxValues(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		fail bool
	}{
		{`[1,2,3]`, 4, false},
		{`[1,2,3]`, 3, true},
		{`{"a":[1],"b":{}}`, 4, false},
		{`{"a":[1],"b":{}}`, 3, true},
		{`"s"`, 1, false},
		{`[[],[[]]]`, 4, false},
		{`[[],[[]]]`, 3, true},
		{`[1,2,3]`, 0, false},
	} {
		_, err := Parse([]byte(tt.in), ReadOptions{MaxValues: tt.max})
		if got := errors.Is(err, ErrTooMany); got != tt.fail || (err != nil && !tt.fail) {
			t.Errorf("Parse(%s, MaxValues %d) = %v, want too many: %v", tt.in, tt.max, err, tt.fail)
		}
	}
}

// TestCanonicalizeOwnsItsResult: Canonicalize reads its input in place, yet
// neither the canonical text nor an error it returns shares the input's
// bytes: overwriting the input afterwards changes neither.
func TestCanonicalizeOwnsItsResult(t *testing.T) {
	for _, in := range []string{
		`{"b": "x\u00e9", "a": [1.0, "plain", {"k": "v"}]}`,
		`{"dup": 1, "dup": 2}`,
		`{"deep": {"key with spaces": [1e999]}}`,
		`["\ud800"]`,
		`{"a": tru}`,
	} {
		data := []byte(in)
		out, err := JCS.Canonicalize(data, ReadOptions{})
		wantOut, wantErr := string(out), fmt.Sprint(err)
		for i := range data {
			data[i] = 'X'
		}
		if string(out) != wantOut || fmt.Sprint(err) != wantErr {
			t.Errorf("%s: after the input changed: %q, %v; want %q, %s", in, out, err, wantOut, wantErr)
		}
	}
}
