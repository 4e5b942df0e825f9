package canon

import (
	"slices"
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
