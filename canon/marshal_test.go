package canon

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestMarshal(t *testing.T) {
	cycMap := map[string]any{}
	cycMap["self"] = cycMap
	cycSlice := []any{nil}
	cycSlice[0] = cycSlice
	deep := any("leaf")
	for i := 0; i < 500; i++ {
		deep = []any{deep}
	}
	value := obj("z", num("1.0"), "a", str("x"))

	tests := []struct {
		name    string
		profile Profile
		in      any
		want    string
		err     error
		path    string
	}{
		{"nil", JCS, nil, "null", nil, ""},
		{"bool", JCS, true, "true", nil, ""},
		{"string", JCS, "a\"b\n", `"a\"b\n"`, nil, ""},
		{"float64", JCS, 1.5, "1.5", nil, ""},
		{"float64 big", JCS, 1e21, "1e+21", nil, ""},
		{"float64 minus zero", JCS, math.Copysign(0, -1), "0", nil, ""},
		{"float32 exact", JCS, float32(0.1), "0.10000000149011612", nil, ""},
		{"int", JCS, -42, "-42", nil, ""},
		{"int8", JCS, int8(-128), "-128", nil, ""},
		{"int16", JCS, int16(300), "300", nil, ""},
		{"int32", JCS, int32(-70000), "-70000", nil, ""},
		{"int64 rounds as a double", JCS, int64(9007199254740993), "9007199254740992", nil, ""},
		{"uint", JCS, uint(7), "7", nil, ""},
		{"uint8", JCS, uint8(255), "255", nil, ""},
		{"uint16", JCS, uint16(65535), "65535", nil, ""},
		{"uint32", JCS, uint32(4294967295), "4294967295", nil, ""},
		{"uint64 max", JCS, uint64(math.MaxUint64), "18446744073709552000", nil, ""},
		{"uintptr", JCS, uintptr(9), "9", nil, ""},
		{"json.Number", JCS, json.Number("1E3"), "1000", nil, ""},
		{"json.Number bad", JCS, json.Number("12abc"), "", ErrSyntax, ""},
		{"map sorted", JCS, map[string]any{"b": 1, "a": []any{nil, true}, "\ufb33": 0, "😂": 0}, "{\"a\":[null,true],\"b\":1,\"😂\":0,\"\ufb33\":0}", nil, ""},
		{"map code point order", CodePointInteger, map[string]any{"\ufb33": 0, "😂": 0}, "{\"\ufb33\":0,\"😂\":0}", nil, ""},
		{"empty map", JCS, map[string]any{}, "{}", nil, ""},
		{"nil map", JCS, map[string]any(nil), "null", nil, ""},
		{"empty slice", JCS, []any{}, "[]", nil, ""},
		{"nil slice", JCS, []any(nil), "null", nil, ""},
		{"Value", JCS, value, `{"a":"x","z":1}`, nil, ""},
		{"*Value", JCS, &value, `{"a":"x","z":1}`, nil, ""},
		{"nil *Value", JCS, (*Value)(nil), "null", nil, ""},
		{"Value inside map", JCS, map[string]any{"v": value}, `{"v":{"a":"x","z":1}}`, nil, ""},
		{"RawMessage", JCS, json.RawMessage(` {"z": 1.0, "a": [2e0]} `), `{"a":[2],"z":1}`, nil, ""},
		{"nil RawMessage", JCS, json.RawMessage(nil), "null", nil, ""},
		{"RawMessage duplicate", JCS, map[string]any{"r": json.RawMessage(`{"a":1,"a":2}`)}, "", ErrDuplicateKey, "/r"},
		{"RawMessage syntax", JCS, []any{json.RawMessage(`[1,]`)}, "", ErrSyntax, "/0"},
		{"RawMessage empty", JCS, json.RawMessage{}, "", ErrSyntax, ""},
		{"RawMessage number range", JCS, map[string]any{"r": json.RawMessage(`[1e999]`)}, "", ErrNumberRange, "/r/0"},
		{"deep slice", JCS, deep, strings.Repeat("[", 500) + `"leaf"` + strings.Repeat("]", 500), nil, ""},
		{"NaN", JCS, map[string]any{"a/b~c": math.NaN()}, "", ErrNonFinite, "/a~1b~0c"},
		{"Inf", JCS, []any{0, math.Inf(1)}, "", ErrNonFinite, "/1"},
		{"float32 Inf", JCS, float32(math.Inf(-1)), "", ErrNonFinite, ""},
		{"unsupported struct", JCS, struct{}{}, "", ErrUnsupportedType, ""},
		{"unsupported map type", JCS, map[string]any{"a": []any{1, map[string]int{}}}, "", ErrUnsupportedType, "/a/1"},
		{"unsupported slice type", JCS, []string{"a"}, "", ErrUnsupportedType, ""},
		{"unsupported complex", JCS, complex(1, 2), "", ErrUnsupportedType, ""},
		{"unsupported pointer", JCS, new(int), "", ErrUnsupportedType, ""},
		{"cyclic map", JCS, cycMap, "", ErrUnsupportedType, strings.Repeat("/self", marshalCycleDepth+1)},
		{"cyclic slice", JCS, cycSlice, "", ErrUnsupportedType, strings.Repeat("/0", marshalCycleDepth+1)},
		{"invalid UTF-8", JCS, []any{"ok", "a\xffb"}, "", ErrInvalidUTF8, "/1"},
		{"invalid UTF-8 key", JCS, map[string]any{"k\xff": 1}, "", ErrInvalidUTF8, "/k\xff"},
		{"lone surrogate rejected", JCS, "\xed\xa0\x80", "", ErrLoneSurrogate, ""},
		{"lone surrogate escaped", JSONStringify, "\xed\xa0\x80", `"\ud800"`, nil, ""},
		{"integer float", CodePointInteger, 3.0, "3", nil, ""},
		{"integer minus zero", CodePointInteger, math.Copysign(0, -1), "0", nil, ""},
		{"integer max float", CodePointInteger, float64(maxSafeInteger), "9007199254740991", nil, ""},
		{"integer min float", CodePointInteger, -float64(maxSafeInteger), "-9007199254740991", nil, ""},
		{"integer fraction", CodePointInteger, []any{2.5}, "", ErrNotInteger, "/0"},
		{"integer float too big", CodePointInteger, 9007199254740992.0, "", ErrNumberRange, ""},
		{"integer 1e21", CodePointInteger, 1e21, "", ErrNumberRange, ""},
		{"integer NaN", CodePointInteger, math.NaN(), "", ErrNonFinite, ""},
		{"integer int64 too big", CodePointInteger, int64(1 << 53), "", ErrNumberRange, ""},
		{"integer int64 max safe", CodePointInteger, int64(maxSafeInteger), "9007199254740991", nil, ""},
		{"integer uint64 max", CodePointInteger, uint64(math.MaxUint64), "", ErrNumberRange, ""},
		{"integer json.Number", CodePointInteger, json.Number("-12"), "-12", nil, ""},
		{"integer json.Number fraction", CodePointInteger, map[string]any{"n": json.Number("1.0")}, "", ErrNotInteger, "/n"},
		{"integer json.Number exponent", CodePointInteger, json.Number("1e3"), "", ErrNotInteger, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.profile.Marshal(tc.in)
			checkValueErr(t, tc.name, err, tc.err, tc.path)
			if tc.err == nil && string(got) != tc.want {
				t.Errorf("Marshal = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestMarshalErrorNamesType(t *testing.T) {
	_, err := JCS.Marshal(map[string]any{"x": []int{1}})
	if err == nil || !strings.Contains(err.Error(), "[]int") || !strings.Contains(err.Error(), "/x") {
		t.Errorf("Marshal([]int) error %v, want it to name []int and /x", err)
	}
}

func TestMarshalMatchesCanonicalize(t *testing.T) {
	in := `{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`
	var generic any
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		t.Fatal(err)
	}
	want, err := JCS.Canonicalize([]byte(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := JCS.Marshal(generic)
	if err != nil || string(got) != string(want) {
		t.Errorf("Marshal(decoded) = %s, %v; want %s", got, err, want)
	}
	var floats any
	if err := json.Unmarshal([]byte(in), &floats); err != nil {
		t.Fatal(err)
	}
	got, err = JCS.Marshal(floats)
	if err != nil || string(got) != string(want) {
		t.Errorf("Marshal(decoded with float64) = %s, %v; want %s", got, err, want)
	}
}
