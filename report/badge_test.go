package report

import (
	"bytes"
	"testing"
)

func TestBadge(t *testing.T) {
	mk := func(complete, strict bool, spec ...string) *Report {
		return New(Tool{}, Suite{Name: "jcs"}, Implementation{}, results(complete, spec...), strict)
	}
	withBaseline := func(r *Report, stale int) *Report {
		r.Baseline = &Baseline{Stale: stale}
		return r
	}
	known := mk(true, false, "must:pass", "must:fail")
	known.Checks[1].Known = "failing"
	known.Baseline = &Baseline{KnownFailing: 1}
	tests := []struct {
		name           string
		r              *Report
		message, color string
	}{
		{"conformant", mk(true, false, "must:pass", "must:pass"), "2/2 passed", "brightgreen"},
		{"conformant with a warning", mk(true, false, "must:pass", "should:fail"), "1/2 passed", "yellowgreen"},
		{"conformant with a not-checked", mk(true, false, "must:pass", "must:not-checked"), "1/2 passed", "yellowgreen"},
		{"failures the baseline lists", known, "1/2 passed", "yellow"},
		{"a stale baseline", withBaseline(mk(true, false, "must:pass"), 1), "1/1 passed", "red"},
		{"a failure", mk(true, false, "must:pass", "must:fail", "must:pass"), "2/3 passed", "red"},
		{"strict with a warning", mk(true, true, "must:pass", "should:fail"), "1/2 passed", "red"},
		{"incomplete", mk(false, false, "must:pass", "must:error"), "1/2 passed, incomplete", "lightgrey"},
	}
	for _, tt := range tests {
		got := NewBadge(tt.r)
		if got != (Badge{SchemaVersion: 1, Label: "jcs", Message: tt.message, Color: tt.color}) {
			t.Errorf("%s: %+v, want %s, %s", tt.name, got, tt.message, tt.color)
		}
	}
	var b bytes.Buffer
	if err := WriteBadge(&b, mk(true, false, "must:pass", "must:fail")); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"schemaVersion\": 1,\n  \"label\": \"jcs\",\n  \"message\": \"1/2 passed\",\n  \"color\": \"red\"\n}\n"
	if b.String() != want {
		t.Errorf("badge JSON\n%s\nwant\n%s", b.String(), want)
	}
}
