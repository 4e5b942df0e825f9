package canon

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// str is a string Value.
func str(s string) Value { return Value{Kind: String, Str: s} }

// num is a number Value.
func num(lex string) Value { return Value{Kind: Number, Num: lex} }

// obj is an object Value with the given keys and values in turn.
func obj(kv ...any) Value {
	v := Value{Kind: Object}
	for i := 0; i < len(kv); i += 2 {
		v.Members = append(v.Members, Member{Key: kv[i].(string), Value: kv[i+1].(Value)})
	}
	return v
}

// arr is an array Value.
func arr(elems ...Value) Value { return Value{Kind: Array, Elems: elems} }

// checkErr reports whether err matches want (nil for success) and, for a
// *ValueError, whether its path is path.
func checkValueErr(t *testing.T, what string, err, want error, path string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s: unexpected error %v", what, err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
		return
	}
	var ve *ValueError
	if !errors.As(err, &ve) {
		t.Errorf("%s: error %T %v, want *ValueError", what, err, err)
		return
	}
	if ve.Path != path {
		t.Errorf("%s: error %v has path %q, want %q", what, err, ve.Path, path)
	}
	if !strings.HasPrefix(err.Error(), "canon: ") {
		t.Errorf("%s: error %q lacks the canon: prefix", what, err)
	}
}

func TestAppendStrings(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		profile Profile
		want    string
		err     error
	}{
		{"plain", "abc", JCS, `"abc"`, nil},
		{"empty", "", JCS, `""`, nil},
		{"quote", `a"b`, JCS, `"a\"b"`, nil},
		{"backslash", `a\b`, JCS, `"a\\b"`, nil},
		{"backspace", "\b", JCS, `"\b"`, nil},
		{"tab", "\t", JCS, `"\t"`, nil},
		{"line feed", "\n", JCS, `"\n"`, nil},
		{"form feed", "\f", JCS, `"\f"`, nil},
		{"carriage return", "\r", JCS, `"\r"`, nil},
		{"NUL", "\x00", JCS, `"\u0000"`, nil},
		{"U+0001", "\x01", JCS, `"\u0001"`, nil},
		{"U+000B", "\x0b", JCS, `"\u000b"`, nil},
		{"U+000E", "\x0e", JCS, `"\u000e"`, nil},
		{"U+001A to U+001F lower-case", "\x1a\x1b\x1c\x1d\x1e\x1f", JCS, `"\u001a\u001b\u001c\u001d\u001e\u001f"`, nil},
		{"all C0 controls", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19", JCS,
			`"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019"`, nil},
		{"solidus raw", "</script>", JCS, `"</script>"`, nil},
		{"DEL raw", "\x7f", JCS, "\"\x7f\"", nil},
		{"U+0080 raw", "\u0080", JCS, "\"\u0080\"", nil},
		{"line separators raw", "\u2028\u2029", JCS, "\"\u2028\u2029\"", nil},
		{"non-ASCII raw", "é€\ufb33", JCS, "\"é€\ufb33\"", nil},
		{"astral raw", "😂\U0010FFFF", JCS, `"😂` + "\U0010FFFF" + `"`, nil},
		{"U+FFFF raw", "\uffff\ufffe", JCS, "\"\uffff\ufffe\"", nil},
		{"replacement character raw", "\ufffd", JCS, "\"\ufffd\"", nil},
		{"mixed", "a\"\\\n\x01é😂", JCS, `"a\"\\\n\u0001é😂"`, nil},
		{"lone high rejected", "a\xed\xa0\x80", JCS, "", ErrLoneSurrogate},
		{"lone low rejected", "\xed\xbf\xbf", CodePointInteger, "", ErrLoneSurrogate},
		{"lone high escaped", "a\xed\xa0\x80b", JSONStringify, `"a\ud800b"`, nil},
		{"lone low escaped", "\xed\xbf\xbf", JSONStringify, `"\udfff"`, nil},
		{"lone surrogates escaped lower-case", "\xed\xaf\xbf\xed\xaf\xbfx\xed\xbf\xbf", JSONStringify, `"\udbff\udbffx\udfff"`, nil},
		{"low then high escaped", "\xed\xb8\x82\xed\xa0\xbd", JSONStringify, `"\ude02\ud83d"`, nil},
		{"encoded pair is not WTF-8", "\xed\xa0\xbd\xed\xb8\x82", JSONStringify, "", ErrInvalidUTF8},
		{"encoded pair rejected by JCS too", "\xed\xa0\xbd\xed\xb8\x82", JCS, "", ErrInvalidUTF8},
		{"invalid byte", "a\xffb", JCS, "", ErrInvalidUTF8},
		{"invalid byte escaping profile", "a\xffb", JSONStringify, "", ErrInvalidUTF8},
		{"truncated sequence", "\xe2\x82", JSONStringify, "", ErrInvalidUTF8},
		{"overlong", "\xc0\xaf", JCS, "", ErrInvalidUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.profile.Append([]byte("prefix"), str(tc.in))
			checkValueErr(t, tc.name, err, tc.err, "")
			if tc.err != nil {
				if string(got) != "prefix" {
					t.Errorf("Append on error returned %q, want dst unchanged", got)
				}
				return
			}
			if string(got) != "prefix"+tc.want {
				t.Errorf("Append(%q) = %s, want %s", tc.in, got[len("prefix"):], tc.want)
			}
		})
	}
}

func TestCanonicalizeStrings(t *testing.T) {
	// Escapes in the input are decoded and written minimally.
	in := `["\u0041\u00e9\u002F\u007f\u2028\uD83D\uDE02\u001F\"\\\/"]`
	want := "[\"Aé/\x7f\u2028😂\\u001f\\\"\\\\/\"]"
	got, err := JCS.Canonicalize([]byte(in), ReadOptions{})
	if err != nil || string(got) != want {
		t.Errorf("Canonicalize(%s) = %s, %v; want %s", in, got, err, want)
	}
	_, err = JCS.Canonicalize([]byte(`{"a":["x","\ud800"]}`), ReadOptions{})
	checkValueErr(t, "JCS lone surrogate", err, ErrLoneSurrogate, "/a/1")
	got, err = JSONStringify.Canonicalize([]byte(`{"a":["x","\ud800"]}`), ReadOptions{})
	if err != nil || string(got) != `{"a":["x","\ud800"]}` {
		t.Errorf("JSONStringify lone surrogate: %s, %v", got, err)
	}
	_, err = JCS.Canonicalize([]byte(`{"a":{"\udc00":1}}`), ReadOptions{})
	checkValueErr(t, "JCS lone surrogate key", err, ErrLoneSurrogate, "/a/\xed\xb0\x80")
}

// codePointEscaping is the code point order with escaped surrogates.
var codePointEscaping = Profile{Name: "test-codepoint-escape", Keys: CodePoint, Surrogates: EscapeSurrogates}

func TestKeyOrder(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		utf16     string
		codePoint string
	}{
		{"ASCII", `{"b":1,"a":2,"aa":3,"":4,"B":5}`, `{"":4,"B":5,"a":2,"aa":3,"b":1}`, `{"":4,"B":5,"a":2,"aa":3,"b":1}`},
		{"digits are strings", `{"10":1,"9":2,"1":3}`, `{"1":3,"10":1,"9":2}`, `{"1":3,"10":1,"9":2}`},
		{"Hebrew and emoji", `{"\ufb33":1,"\ud83d\ude02":2}`, "{\"😂\":2,\"\ufb33\":1}", "{\"\ufb33\":1,\"😂\":2}"},
		{"U+E000 and U+10000", `{"\ue000":1,"\ud800\udc00":2}`, "{\"\U00010000\":2,\"\ue000\":1}", "{\"\ue000\":1,\"\U00010000\":2}"},
		{"U+FFFF and U+10FFFF", `{"\uffff":1,"\udbff\udfff":2}`, "{\"\U0010FFFF\":2,\"\uffff\":1}", "{\"\uffff\":1,\"\U0010FFFF\":2}"},
		{"U+D7FF and U+10000 agree", `{"\ud800\udc00":1,"\ud7ff":2}`, "{\"\ud7ff\":2,\"\U00010000\":1}", "{\"\ud7ff\":2,\"\U00010000\":1}"},
		{"private use after astral in UTF-16", `{"x\uf8ff":1,"x\ud83d\ude00":2,"x":3}`, "{\"x\":3,\"x😀\":2,\"x\uf8ff\":1}", "{\"x\":3,\"x\uf8ff\":1,\"x😀\":2}"},
		{"RFC 8785 weird keys", `{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude02":5,"\u0080":6,"\u00f6":7,"</script>":8}`,
			"{\"\\r\":2,\"1\":4,\"</script>\":8,\"\u0080\":6,\"ö\":7,\"€\":1,\"😂\":5,\"\ufb33\":3}",
			"{\"\\r\":2,\"1\":4,\"</script>\":8,\"\u0080\":6,\"ö\":7,\"€\":1,\"\ufb33\":3,\"😂\":5}"},
		{"lone low against astral", `{"\udc00":1,"\ud83d\ude02":2}`, `{"😂":2,"\udc00":1}`, `{"\udc00":1,"😂":2}`},
		{"lone high prefix of pair", `{"\ud83d\ude02":1,"\ud83d":2}`, `{"\ud83d":2,"😂":1}`, `{"\ud83d":2,"😂":1}`},
		{"lone high then BMP", `{"\ud83d\uffff":1,"\ud83d\ude02":2}`, "{\"😂\":2,\"\\ud83d\uffff\":1}", "{\"\\ud83d\uffff\":1,\"😂\":2}"},
		{"lone high then ASCII", `{"\ud83dA":1,"\ud83d\ude02":2}`, `{"\ud83dA":1,"😂":2}`, `{"\ud83dA":1,"😂":2}`},
		{"lone high below pair", `{"\ud83d\ude02":1,"\ud800":2}`, `{"\ud800":2,"😂":1}`, `{"\ud800":2,"😂":1}`},
		{"lone surrogate before U+E000", `{"\ue000":1,"\udfff":2}`, `{"\udfff":2,"` + "\ue000" + `":1}`, `{"\udfff":2,"` + "\ue000" + `":1}`},
		{"nested objects sorted", `[{"b":{"d":1,"c":2},"a":[{"z":0,"y":1}]}]`, `[{"a":[{"y":1,"z":0}],"b":{"c":2,"d":1}}]`, `[{"a":[{"y":1,"z":0}],"b":{"c":2,"d":1}}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := JSONStringify.Canonicalize([]byte(tc.in), ReadOptions{})
			if err != nil || string(got) != tc.utf16 {
				t.Errorf("UTF-16 order of %s = %s, %v; want %s", tc.in, got, err, tc.utf16)
			}
			got, err = codePointEscaping.Canonicalize([]byte(tc.in), ReadOptions{})
			if err != nil || string(got) != tc.codePoint {
				t.Errorf("code point order of %s = %s, %v; want %s", tc.in, got, err, tc.codePoint)
			}
		})
	}
}

// utf16Reference returns the UTF-16 code units of a WTF-8 string.
func utf16Reference(s string) []uint16 {
	var u []uint16
	for i := 0; i < len(s); {
		if r, ok := wtf8Surrogate(s, i); ok {
			u = append(u, uint16(r))
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		u = utf16.AppendRune(u, r)
		i += size
	}
	return u
}

// randomKeyRune returns a rune from the ranges where key orders differ.
func randomKeyRune(r *rand.Rand) rune {
	switch r.IntN(6) {
	case 0:
		return rune('a' + r.IntN(3))
	case 1:
		return rune(0xD7F0 + r.IntN(0x10))
	case 2:
		return rune(0xE000 + r.IntN(4))
	case 3:
		return rune(0xFFFC + r.IntN(4))
	case 4:
		return rune(0x10000 + r.IntN(3))
	default:
		return rune(0x1F600 + r.IntN(3))
	}
}

func TestCompareUTF16Random(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gen := func() string {
		var b []byte
		for n := r.IntN(4); n > 0; n-- {
			if r.IntN(5) == 0 {
				b = appendWTF8Surrogate(b, rune(0xD800+r.IntN(0x800)))
			} else {
				b = utf8.AppendRune(b, randomKeyRune(r))
			}
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		a, b := gen(), gen()
		want := slices.Compare(utf16Reference(a), utf16Reference(b))
		if got := compareUTF16(a, b); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func TestAppendDuplicateKeys(t *testing.T) {
	v := obj("x", arr(obj("b", num("1"), "a", num("2"), "b", num("3"))))
	_, err := JCS.Append(nil, v)
	checkValueErr(t, "duplicate", err, ErrDuplicateKey, "/x/0/b")
	_, err = CodePointInteger.Append(nil, obj("k", Value{}, "k", Value{}))
	checkValueErr(t, "duplicate at root", err, ErrDuplicateKey, "/k")
}

func TestIntegerProfile(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"0", "0", nil},
		{"-0", "0", nil},
		{"7", "7", nil},
		{"-123", "-123", nil},
		{"9007199254740991", "9007199254740991", nil},
		{"-9007199254740991", "-9007199254740991", nil},
		{"1000000000000000", "1000000000000000", nil},
		{"9007199254740992", "", ErrNumberRange},
		{"-9007199254740992", "", ErrNumberRange},
		{"9999999999999999", "", ErrNumberRange},
		{"12345678901234567890", "", ErrNumberRange},
		{"1.0", "", ErrNotInteger},
		{"-0.0", "", ErrNotInteger},
		{"0.5", "", ErrNotInteger},
		{"1e3", "", ErrNotInteger},
		{"1E0", "", ErrNotInteger},
		{"1e400", "", ErrNotInteger},
		{"10e-1", "", ErrNotInteger},
	}
	for _, tc := range tests {
		got, err := CodePointInteger.Canonicalize([]byte(`{"a":[0,`+tc.in+`]}`), ReadOptions{})
		checkValueErr(t, tc.in, err, tc.err, "/a/1")
		if tc.err == nil && string(got) != `{"a":[0,`+tc.want+`]}` {
			t.Errorf("Integer %s = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// appendixB is the number table of RFC 8785 Appendix B, as IEEE 754 bits.
var appendixB = []struct {
	bits uint64
	want string
}{
	{0x0000000000000000, "0"},
	{0x8000000000000000, "0"},
	{0x0000000000000001, "5e-324"},
	{0x8000000000000001, "-5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e+308"},
	{0xffefffffffffffff, "-1.7976931348623157e+308"},
	{0x4340000000000000, "9007199254740992"},
	{0xc340000000000000, "-9007199254740992"},
	{0x4430000000000000, "295147905179352830000"},
	{0x44b52d02c7e14af5, "9.999999999999997e+22"},
	{0x44b52d02c7e14af6, "1e+23"},
	{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
	{0x444b1ae4d6e2ef4e, "999999999999999700000"},
	{0x444b1ae4d6e2ef4f, "999999999999999900000"},
	{0x444b1ae4d6e2ef50, "1e+21"},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
	{0x3eb0c6f7a0b5ed8d, "0.000001"},
	{0x41b3de4355555553, "333333333.3333332"},
	{0x41b3de4355555554, "333333333.33333325"},
	{0x41b3de4355555555, "333333333.3333333"},
	{0x41b3de4355555556, "333333333.3333334"},
	{0x41b3de4355555557, "333333333.33333343"},
	{0xbecbf647612f3696, "-0.0000033333333333333333"},
	{0x43143ff3c1cb0959, "1424953923781206.2"},
}

func TestFormatES6(t *testing.T) {
	for _, tc := range appendixB {
		f := math.Float64frombits(tc.bits)
		got, err := FormatES6(f)
		if err != nil || got != tc.want {
			t.Errorf("FormatES6(%#016x) = %q, %v; want %q", tc.bits, got, err, tc.want)
		}
	}
	more := []struct {
		f    float64
		want string
	}{
		{1, "1"},
		{-1, "-1"},
		{0.1, "0.1"},
		{-0.5, "-0.5"},
		{123.456, "123.456"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1.5e21, "1.5e+21"},
		{123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"},
		{1.5e-6, "0.0000015"},
		{1e-7, "1e-7"},
		{1.25e-7, "1.25e-7"},
		{1.5e300, "1.5e+300"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{1e15, "1000000000000000"},
		{1e16, "10000000000000000"},
		{999999999999999.9, "999999999999999.9"},
		{4.35, "4.35"},
		{9007199254740993, "9007199254740992"},
		{-1e-300, "-1e-300"},
		{0.000001234, "0.000001234"},
	}
	for _, tc := range more {
		got, err := FormatES6(tc.f)
		if err != nil || got != tc.want {
			t.Errorf("FormatES6(%v) = %q, %v; want %q", tc.f, got, err, tc.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if s, err := FormatES6(f); !errors.Is(err, ErrNonFinite) {
			t.Errorf("FormatES6(%v) = %q, %v; want ErrNonFinite", f, s, err)
		}
	}
}

func TestES6Numbers(t *testing.T) {
	tests := []struct {
		lex  string
		want string
		err  error
	}{
		{"0", "0", nil},
		{"-0", "0", nil},
		{"-0.0", "0", nil},
		{"0e5", "0", nil},
		{"1.0", "1", nil},
		{"1E30", "1e+30", nil},
		{"4.50", "4.5", nil},
		{"2e-3", "0.002", nil},
		{"0.000000000000000000000000001", "1e-27", nil},
		{"333333333.33333329", "333333333.3333333", nil},
		{"1e007", "10000000", nil},
		{"123456789012345", "123456789012345", nil},
		{"-999999999999999", "-999999999999999", nil},
		{"9007199254740993", "9007199254740992", nil},
		{"123456789012345678901234567890", "1.2345678901234568e+29", nil},
		{"100000000000000000000", "100000000000000000000", nil},
		{"1000000000000000000000", "1e+21", nil},
		{"1e-7", "1e-7", nil},
		{"0.0000010", "0.000001", nil},
		{"1.7976931348623157e308", "1.7976931348623157e+308", nil},
		{"1.7976931348623158e308", "1.7976931348623157e+308", nil},
		{"4.9e-324", "5e-324", nil},
		{"1e-400", "0", nil},
		{"-1e-400", "0", nil},
		{"1e400", "", ErrNumberRange},
		{"-1e400", "", ErrNumberRange},
		{"1.8e308", "", ErrNumberRange},
	}
	for _, tc := range tests {
		got, err := JCS.Canonicalize([]byte(`{"a":[`+tc.lex+`]}`), ReadOptions{})
		checkValueErr(t, tc.lex, err, tc.err, "/a/0")
		if tc.err == nil && string(got) != `{"a":[`+tc.want+`]}` {
			t.Errorf("ES6 %s = %s, want %s", tc.lex, got, tc.want)
		}
	}
}

func TestAppendBadLexemes(t *testing.T) {
	for _, lex := range []string{"", "abc", "NaN", "Infinity", "-Inf", "0x10", "1_000", "+1", ".5", "1.", "01", "1e", "--1", " 1", "1 "} {
		for _, p := range []Profile{JCS, CodePointInteger} {
			_, err := p.Append(nil, arr(num(lex)))
			checkValueErr(t, p.Name+" lexeme "+lex, err, ErrSyntax, "/0")
		}
	}
}

func TestValueErrorMessage(t *testing.T) {
	_, err := JCS.Canonicalize([]byte(`{"a":[1e400]}`), ReadOptions{})
	if got, want := err.Error(), "canon: /a/0: number 1e400 out of range"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = JCS.Append(nil, num("1e400"))
	if got, want := err.Error(), "canon: number 1e400 out of range"; got != want {
		t.Errorf("Error() at the root = %q, want %q", got, want)
	}
	_, err = JCS.Append(nil, obj("a/b", obj("c~d", num("1.5e999"))))
	checkValueErr(t, "escaped pointer", err, ErrNumberRange, "/a~1b/c~0d")
	e := &ValueError{Path: "/x", Err: ErrNotInteger}
	if got, want := e.Error(), "canon: /x: number is not an integer"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Unwrap() != ErrNotInteger {
		t.Errorf("Unwrap() = %v", e.Unwrap())
	}
}

func TestAppendInvalid(t *testing.T) {
	_, err := JCS.Append(nil, arr(Value{}, Value{Kind: 9}))
	checkValueErr(t, "kind 9", err, ErrUnsupportedType, "/1")

	for _, p := range []Profile{
		{Name: "bad-keys", Keys: 2},
		{Name: "bad-numbers", Numbers: 2},
		{Name: "bad-surrogates", Surrogates: 2},
	} {
		if _, err := p.Append(nil, Value{}); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("profile %s: Append error %v, want ErrUnsupportedType", p.Name, err)
		}
		if _, err := p.Canonicalize([]byte("1"), ReadOptions{}); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("profile %s: Canonicalize error %v, want ErrUnsupportedType", p.Name, err)
		}
		if _, err := p.Marshal(1); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("profile %s: Marshal error %v, want ErrUnsupportedType", p.Name, err)
		}
	}
	if got, err := (Profile{}).Canonicalize([]byte(`{"b":1.0,"a":2}`), ReadOptions{}); err != nil || string(got) != `{"a":2,"b":1}` {
		t.Errorf("zero Profile: %s, %v; want JCS rules", got, err)
	}
}

func TestAppendCyclic(t *testing.T) {
	cyc := make([]Value, 1)
	cyc[0] = Value{Kind: Array, Elems: cyc}
	_, err := JCS.Append(nil, cyc[0])
	if !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("Append of a cyclic array: %v, want ErrUnsupportedType", err)
	}
	ms := make([]Member, 1)
	ms[0] = Member{Key: "a", Value: Value{Kind: Object, Members: ms}}
	_, err = JCS.Append(nil, ms[0].Value)
	if !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("Append of a cyclic object: %v, want ErrUnsupportedType", err)
	}
	if s := ms[0].Value.String(); !strings.HasPrefix(s, `{"a":{"a":`) {
		t.Errorf("String of a cyclic object = %.40s...", s)
	}
}

func TestAppendScalars(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{Value{}, "null"},
		{Value{Kind: Bool, Bool: true}, "true"},
		{Value{Kind: Bool}, "false"},
		{arr(), "[]"},
		{obj(), "{}"},
		{arr(Value{}, arr(), obj(), str("x")), `[null,[],{},"x"]`},
		{Value{Kind: Number, Num: "1", Str: "ignored", Elems: []Value{{}}}, "1"},
	}
	for _, tc := range tests {
		got, err := JCS.Append(nil, tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("Append(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
}

func TestEqual(t *testing.T) {
	a := obj("x", arr(num("1.0"), str("s"), Value{Kind: Bool, Bool: true}, Value{}), "y", obj())
	tests := []struct {
		name string
		a, b Value
		want bool
	}{
		{"same", a, obj("x", arr(num("1.0"), str("s"), Value{Kind: Bool, Bool: true}, Value{}), "y", obj()), true},
		{"itself", a, a, true},
		{"lexemes differ", num("1.0"), num("1"), false},
		{"kinds differ", num("1"), str("1"), false},
		{"bools differ", Value{Kind: Bool, Bool: true}, Value{Kind: Bool}, false},
		{"strings differ", str("a"), str("b"), false},
		{"lengths differ", arr(Value{}), arr(), false},
		{"member order matters", obj("a", Value{}, "b", Value{}), obj("b", Value{}, "a", Value{}), false},
		{"keys differ", obj("a", Value{}), obj("b", Value{}), false},
		{"deep difference", arr(arr(arr(num("1")))), arr(arr(arr(num("2")))), false},
		{"nil and empty", Value{Kind: Array}, Value{Kind: Array, Elems: []Value{}}, true},
		{"irrelevant fields", Value{Kind: Null, Str: "x"}, Value{Kind: Null}, true},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestValueString(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{obj("b", num("1.50"), "a", arr(str("\xed\xa0\x80\n"), Value{})), `{"b":1.50,"a":["\ud800\n",null]}`},
		{str("bad\xff"), `"bad\ufffd"`},
		{str("\xed\xa0\xbd\xed\xb8\x82"), `"\ud83d\ude02"`},
		{arr(Value{Kind: 42}), "[<invalid Kind(42)>]"},
		{obj("a", obj("a", obj())), `{"a":{"a":{}}}`},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
	}
}

func TestKindString(t *testing.T) {
	want := []string{"null", "bool", "number", "string", "array", "object", "Kind(6)"}
	for k, w := range want {
		if got := Kind(k).String(); got != w {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, w)
		}
	}
}
