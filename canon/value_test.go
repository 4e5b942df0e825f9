package canon

import "testing"

func TestLookup(t *testing.T) {
	v, err := Parse([]byte(`{"a":1,"b":{"a":2},"":"empty"}`), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key, want string
		ok        bool
	}{
		{"a", "1", true},
		{"b", `{"a":2}`, true},
		{"", `"empty"`, true},
		{"c", "", false},
	}
	for _, tt := range tests {
		got, ok := v.Lookup(tt.key)
		if ok != tt.ok || (ok && got.String() != tt.want) {
			t.Errorf("Lookup(%q) = %s, %v; want %s, %v", tt.key, got.String(), ok, tt.want, tt.ok)
		}
	}
	if _, ok := (Value{Kind: Array}).Lookup("a"); ok {
		t.Error("Lookup on an array found a member")
	}
}

// TestAt: JSON Pointers (RFC 6901) name members by their decoded names and
// elements by indexes without leading zeros; anything else names nothing.
func TestAt(t *testing.T) {
	v, err := Parse([]byte(`{"a":[10,{"b/c":1,"d~e":2,"":3}],"x":null}`), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ptr  string
		want string // "" when the pointer names nothing
	}{
		{"", `{"a":[10,{"b/c":1,"d~e":2,"":3}],"x":null}`},
		{"/a/0", "10"},
		{"/a/1/b~1c", "1"},
		{"/a/1/d~0e", "2"},
		{"/a/1/", "3"},
		{"/x", "null"},
		{"/a/01", ""},
		{"/a/2", ""},
		{"/a/-1", ""},
		{"/a/0/y", ""},
		{"/missing", ""},
		{"a", ""},
	} {
		got, ok := v.At(tt.ptr)
		if ok != (tt.want != "") || ok && got.String() != tt.want {
			t.Errorf("At(%q) = %s, %v; want %q", tt.ptr, got.String(), ok, tt.want)
		}
	}
}

// TestPointerToken: a member name escaped as a token is found again by At.
func TestPointerToken(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"a", "a"}, {"a/b", "a~1b"}, {"m~n", "m~0n"}, {"~/", "~0~1"}, {"~1", "~01"}, {"", ""},
	} {
		if got := PointerToken(tc.name); got != tc.want {
			t.Errorf("PointerToken(%q) = %q, want %q", tc.name, got, tc.want)
		}
		v := Value{Kind: Object, Members: []Member{{Key: tc.name, Value: Value{Kind: Number, Num: "7"}}}}
		if x, ok := v.At("/" + PointerToken(tc.name)); !ok || x.Num != "7" {
			t.Errorf("At(/%s) found %v, %v", PointerToken(tc.name), x, ok)
		}
	}
}
