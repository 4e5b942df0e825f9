package mutant

import (
	"testing"

	"github.com/refereehq/referee/canon"
)

func TestWriters(t *testing.T) {
	const in = `{"\ufb33":1,"\ud83d\ude02":{"b":1E21,"a":"</\u2028\u001f\n\u00e9"},"s":"\ud800"}`
	v, err := canon.Parse([]byte(in), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const ls = "\u2028"    // written raw unless a style escapes it
	const dalet = "\ufb33" // sorts after the astral key by UTF-16, before it by code point
	tests := []struct {
		name string
		w    Writer
		want string // "" means an error
	}{
		{"zero is RFC 8785: no lone surrogates", Writer{}, ""},
		{"escape", Writer{Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"</` + ls + `\u001f\né","b":1e+21},"` + dalet + `":1}`},
		{"escape upper", Writer{Surrogates: EscapeUpper}, `{"s":"\uD800","😂":{"a":"</` + ls + `\u001f\né","b":1e+21},"` + dalet + `":1}`},
		{"codepoint", Writer{Keys: CodePoint, Surrogates: Escape}, `{"s":"\ud800","` + dalet + `":1,"😂":{"a":"</` + ls + `\u001f\né","b":1e+21}}`},
		{"unsorted", Writer{Keys: Unsorted, Surrogates: Escape}, `{"` + dalet + `":1,"😂":{"b":1e+21,"a":"</` + ls + `\u001f\né"},"s":"\ud800"}`},
		{"shallow", Writer{Keys: Shallow, Surrogates: Escape}, `{"s":"\ud800","😂":{"b":1e+21,"a":"</` + ls + `\u001f\né"},"` + dalet + `":1}`},
		{"go float", Writer{Numbers: GoFloat, Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"</` + ls + `\u001f\né","b":1e+21},"` + dalet + `":1}`},
		{"plain", Writer{Numbers: Plain, Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"</` + ls + `\u001f\né","b":1000000000000000000000},"` + dalet + `":1}`},
		{"lexeme", Writer{Numbers: Lexeme, Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"</` + ls + `\u001f\né","b":1E21},"` + dalet + `":1}`},
		{"html", Writer{Strings: HTML}, `{"s":"\ufffd\ufffd\ufffd","😂":{"a":"\u003c/\u2028\u001f\né","b":1e+21},"` + dalet + `":1}`},
		{"ascii", Writer{Strings: ASCII, Surrogates: Escape}, `{"s":"\ud800","\ud83d\ude02":{"a":"</\u2028\u001f\n\u00e9","b":1e+21},"\ufb33":1}`},
		{"upper hex", Writer{Strings: UpperHex, Surrogates: Escape}, `{"s":"\uD800","😂":{"a":"</` + ls + `\u001F\né","b":1e+21},"` + dalet + `":1}`},
		{"long", Writer{Strings: Long, Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"</` + ls + `\u001f\u000aé","b":1e+21},"` + dalet + `":1}`},
		{"slash", Writer{Strings: Slash, Surrogates: Escape}, `{"s":"\ud800","😂":{"a":"<\/` + ls + `\u001f\né","b":1e+21},"` + dalet + `":1}`},
	}
	for _, tt := range tests {
		got, err := tt.w.Append(nil, v)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: accepted a lone surrogate: %s", tt.name, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

func TestZeroWriterIsJCS(t *testing.T) {
	for _, in := range []string{`[1.0,-0,1e-7,5e-324]`, `{"b":[{"d":1,"c":"\u0000\"\\"}],"a":null,"":true}`, `"\ud83d\ude02\ue000"`} {
		v, err := canon.Parse([]byte(in), canon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := canon.JCS.Append(nil, v)
		got, err := Writer{}.Append(nil, v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: zero Writer %s (%v), canon.JCS %s", in, got, err, want)
		}
	}
	v, _ := canon.Parse([]byte(`[1e400]`), canon.ReadOptions{})
	if _, err := (Writer{}).Append(nil, v); err == nil {
		t.Error("1e400 accepted")
	}
	if got, _ := (Writer{OverflowNull: true}).Append(nil, v); string(got) != "[null]" {
		t.Errorf("OverflowNull: %s", got)
	}
}

func TestDropProto(t *testing.T) {
	v, err := canon.Parse([]byte(`{"b":{"__proto__":{"x":1},"a":1},"__proto__":2}`), canon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Writer{DropProto: true}.Append(nil, v)
	if err != nil || string(got) != `{"b":{"a":1}}` {
		t.Errorf("DropProto: %s (%v)", got, err)
	}
	if got, _ := (Writer{}).Append(nil, v); string(got) != `{"__proto__":2,"b":{"__proto__":{"x":1},"a":1}}` {
		t.Errorf("zero Writer: %s", got)
	}
}
