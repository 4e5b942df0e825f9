package cgp

import (
	"errors"
	"testing"
)

func TestRangeBytes(t *testing.T) {
	const lf = "alpha\nbeta\ngamma\n"
	tests := []struct {
		resource, rng string
		has           bool
		want, reason  string
	}{
		{lf, "", false, lf, ""},
		{lf, "L1", true, "alpha\n", ""},
		{lf, "L2-3", true, "beta\ngamma\n", ""},
		{lf, "L3-9999", true, "gamma\n", ""},
		{lf, "L2-99999999999999999999999999", true, "beta\ngamma\n", ""},
		{lf, "L4", true, "", RangeStartPastEnd},
		{lf, "L3-2", true, "", RangeInverted},
		{lf, "L99999999999999999999999999-2", true, "", RangeInverted},
		{"one\ntwo", "L2", true, "two", ""},
		{"a\rb\rc", "L1", true, "a\rb\rc", ""},
		{"first\r\nsecond\n", "L1", true, "first\r\n", ""},
		{"\n\nx\n", "L2-3", true, "\nx\n", ""},
		{"", "L1", true, "", RangeStartPastEnd},
		{"", "", false, "", ""},
	}
	for _, bad := range []string{"L0", "L01", "L+1", "2-3", "l2-3", "L2-L3", "L2-", " L2", "B0-5", "", "L1-0", "L1 ", "L-1", "L٣"} {
		tests = append(tests, struct {
			resource, rng string
			has           bool
			want, reason  string
		}{lf, bad, true, "", RangeUnrecognised})
	}
	for _, tt := range tests {
		got, err := RangeBytes([]byte(tt.resource), tt.rng, tt.has)
		var re *RangeError
		switch {
		case tt.reason == "" && (err != nil || string(got) != tt.want):
			t.Errorf("RangeBytes(%q, %q) = %q, %v; want %q", tt.resource, tt.rng, got, err, tt.want)
		case tt.reason != "" && (!errors.As(err, &re) || re.Reason != tt.reason):
			t.Errorf("RangeBytes(%q, %q) error = %v, want %s", tt.resource, tt.rng, err, tt.reason)
		}
	}
}

func FuzzRangeBytes(f *testing.F) {
	f.Add([]byte("a\nb\n"), "L1-2")
	f.Add([]byte(""), "L01")
	f.Fuzz(func(t *testing.T, resource []byte, r string) {
		got, err := RangeBytes(resource, r, true)
		if err == nil && len(got) > len(resource) {
			t.Fatalf("range %q addresses %d bytes of a %d-byte resource", r, len(got), len(resource))
		}
	})
}
