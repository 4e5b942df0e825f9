package check

import "testing"

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
