package canon

import (
	"slices"
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	v, err := Parse([]byte(`{"a":[1,{"b":2}],"c":"x"}`), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	v.Walk(func(x *Value) bool { kinds = append(kinds, x.Kind); return true })
	// Every value once: the object, its array, 1, the inner object, 2, "x".
	if len(kinds) != 6 || kinds[0] != Object || slices.Index(kinds, String) < 0 || slices.Index(kinds, Array) < 0 {
		t.Errorf("visited %v", kinds)
	}
	n := 0
	v.Walk(func(x *Value) bool { n++; return x.Kind != Array })
	if n >= 6 {
		t.Errorf("Walk went on after visit returned false (%d visits)", n)
	}
}

func TestLoneSurrogates(t *testing.T) {
	v, err := Parse([]byte(`["\ud800", "\ud83d\ude00", "a\udfffb"]`), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true} {
		if got := HasLoneSurrogate(v.Elems[i].Str); got != want {
			t.Errorf("HasLoneSurrogate(%q) = %v, want %v", v.Elems[i].Str, got, want)
		}
	}
	if r, n := DecodeRune(v.Elems[0].Str); r != 0xD800 || n != 3 {
		t.Errorf("DecodeRune(lone \\ud800) = %U, %d", r, n)
	}
	if r, n := DecodeRune(v.Elems[1].Str); r != 0x1F600 || n != 4 {
		t.Errorf("DecodeRune(U+1F600) = %U, %d", r, n)
	}
	if r, n := DecodeRune(v.Elems[2].Str[1:]); r != 0xDFFF || n != 3 {
		t.Errorf("DecodeRune(lone \\udfff) = %U, %d", r, n)
	}
}

// TestLengths counts code points and UTF-16 code units of parsed strings:
// a lone surrogate escape is one of each, whatever its three stored bytes.
func TestLengths(t *testing.T) {
	for _, c := range []struct {
		json          string
		points, units int
	}{
		{`""`, 0, 0},
		{`"abc"`, 3, 3},
		{`"é€"`, 2, 2},
		{`"😀"`, 1, 2},
		{`"\ud83d\ude00"`, 1, 2},
		{`"\ud800"`, 1, 1},
		{`"a\udfffb"`, 3, 3},
		{`"\ude00\ud83d"`, 2, 2},
		{`"` + strings.Repeat(`\ud800`, 86) + `"`, 86, 86},
		{`"` + strings.Repeat(`\udc00`, 257) + `😀"`, 258, 259},
	} {
		v, err := Parse([]byte(c.json), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := CodePoints(v.Str); got != c.points {
			t.Errorf("CodePoints(%s) = %d, want %d", clip(c.json), got, c.points)
		}
		if got := UTF16Len(v.Str); got != c.units {
			t.Errorf("UTF16Len(%s) = %d, want %d", clip(c.json), got, c.units)
		}
	}
	// A byte that begins no code point counts as one of each.
	if p, u := CodePoints("a\xffb"), UTF16Len("a\xffb"); p != 3 || u != 3 {
		t.Errorf("a stray byte: %d code points, %d units", p, u)
	}
}

// clip clips a JSON text for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func TestHoldsLoneSurrogate(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"a":["x",{"b":"😀 \ud83d\ude00"}]}`, false},
		{`"\ud800"`, true},
		{`["ok","\udfff"]`, true},
		{`{"a":{"b":[1,"x\ud83dy"]}}`, true},
		{`{"\udc00":1}`, true},
		{`{"a":{"\ud800z":null}}`, true},
		{`[1,true,null,{}]`, false},
	} {
		v, err := Parse([]byte(tc.doc), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.HoldsLoneSurrogate(); got != tc.want {
			t.Errorf("%s: HoldsLoneSurrogate = %v, want %v", tc.doc, got, tc.want)
		}
	}
}
