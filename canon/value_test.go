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
