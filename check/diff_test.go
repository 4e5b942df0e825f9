package check

import (
	"strings"
	"testing"
)

func TestDiffBytes(t *testing.T) {
	tests := []struct {
		exp, act   string
		offset     int
		start      int
		expHex     string
		actHex     string
		wantNilDif bool
	}{
		{exp: "abc", act: "abc", wantNilDif: true},
		{exp: "", act: "", wantNilDif: true},
		{exp: "abc", act: "abd", offset: 2, start: 0, expHex: "616263", actHex: "616264"},
		{exp: "abc", act: "ab", offset: 2, start: 0, expHex: "616263", actHex: "6162"},
		{exp: "", act: "x", offset: 0, start: 0, expHex: "", actHex: "78"},
		{exp: "0123456789abcdefXYZ", act: "0123456789abcdefXYz", offset: 18, start: 10, expHex: "61626364656658595a", actHex: "61626364656658597a"},
	}
	for _, tt := range tests {
		d := DiffBytes([]byte(tt.exp), []byte(tt.act))
		if tt.wantNilDif {
			if d != nil {
				t.Errorf("DiffBytes(%q, %q) = %+v, want nil", tt.exp, tt.act, d)
			}
			continue
		}
		if d == nil || d.Offset != tt.offset || d.WindowStart != tt.start || d.ExpectedHex != tt.expHex || d.ActualHex != tt.actHex {
			t.Errorf("DiffBytes(%q, %q) = %+v", tt.exp, tt.act, d)
		}
	}
}

// TestDiffValidate: every diff DiffBytes makes validates; a diff changed in
// any one member does not.
func TestDiffValidate(t *testing.T) {
	long := strings.Repeat("abcdefghij", 10)
	pairs := [][2]string{
		{"abc", "abd"}, {"abc", "ab"}, {"", "x"}, {"x", ""}, {long, long + "!"},
		{long, long[:50] + "X" + long[51:]}, {long[:3] + "X", long[:3] + "Y"}, {"\x00\xff", "\x00\xfe"},
	}
	for _, p := range pairs {
		d := DiffBytes([]byte(p[0]), []byte(p[1]))
		if err := d.Validate(); err != nil {
			t.Errorf("DiffBytes(%q, %q) = %+v does not validate: %v", p[0], p[1], d, err)
		}
	}
	good := *DiffBytes([]byte(long), []byte(long[:50]+"X"+long[51:]))
	for _, tc := range []struct {
		name   string
		change func(d *Diff)
		want   string
	}{
		{"offset below the window", func(d *Diff) { d.Offset = d.WindowStart - 1 }, "window_start"},
		{"negative offset", func(d *Diff) { d.Offset = -1 }, "outside"},
		{"offset past both lengths", func(d *Diff) { d.Offset = 1 << 40 }, "outside"},
		{"negative length", func(d *Diff) { d.ExpectedLen = -1 }, "negative"},
		{"window elsewhere", func(d *Diff) { d.WindowStart = 0 }, "window_start"},
		{"no difference", func(d *Diff) { d.Offset, d.ExpectedLen, d.ActualLen = 100, 100, 100 }, "do not differ"},
		{"hex with an escape", func(d *Diff) { d.ExpectedHex = "\x1b[2K" + d.ExpectedHex[4:] }, "not hex"},
		{"uppercase hex", func(d *Diff) { d.ActualHex = strings.ToUpper(d.ActualHex) }, "lowercase"},
		{"hex too long", func(d *Diff) { d.ExpectedHex += "00" }, "hex digits"},
		{"odd hex", func(d *Diff) { d.ActualHex = d.ActualHex[1:] }, "hex digits"},
		{"windows equal at the offset", func(d *Diff) { d.ActualHex = d.ExpectedHex }, "do not differ at offset"},
		{"windows differ before it", func(d *Diff) { d.ActualHex = "ff" + d.ActualHex[2:] }, "differ before"},
	} {
		d := good
		tc.change(&d)
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestDiffLinesUnchecked: Lines sizes its caret from the rows, never from
// the numbers alone: an offset below the window, or far beyond it, makes
// no caret line rather than a panic or megabytes of spaces.
func TestDiffLinesUnchecked(t *testing.T) {
	for _, d := range []Diff{
		{Offset: 0, WindowStart: 8, ExpectedHex: "6162", ActualHex: "6163"},
		{Offset: 100_000_000, WindowStart: 0, ExpectedHex: "6162", ActualHex: "6163"},
	} {
		lines := d.Lines()
		for _, l := range lines {
			if len(l) > 200 {
				t.Errorf("%+v: a line of %d bytes", d, len(l))
			}
		}
		if len(lines) != 3 {
			t.Errorf("%+v: %d lines, want 3 (no caret)", d, len(lines))
		}
	}
	good := DiffBytes([]byte("abc"), []byte("abd")).Lines()
	if len(good) != 4 || !strings.HasSuffix(good[3], "^^") || strings.Index(good[3], "^") != strings.Index(good[1], "63") {
		t.Errorf("a good diff's caret is not under its first differing byte:\n%s", strings.Join(good, "\n"))
	}
}
