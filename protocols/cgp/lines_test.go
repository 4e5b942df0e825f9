package cgp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestReadLines: lines end at LF only (a bare CR is part of a line), a CR
// before the LF is dropped only with crlf, a last line without LF is a
// line, and a line past MaxLine is reported too long without its bytes.
func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", MaxLine+1)
	for _, tc := range []struct {
		name, in string
		crlf     bool
		want     []string // a line too long is "TOO LONG"
	}{
		{"lf", "a\nb\n", false, []string{"a", "b"}},
		{"no last lf", "a\nb", false, []string{"a", "b"}},
		{"bare cr", "y\r{\n", false, []string{"y\r{"}},
		{"bare cr, crlf", "y\r{\n", true, []string{"y\r{"}},
		{"crlf kept", "a\r\n", false, []string{"a\r"}},
		{"crlf dropped", "a\r\n", true, []string{"a"}},
		{"blank", "\n\n", false, []string{"", ""}},
		{"empty", "", false, nil},
		{"at the limit", strings.Repeat("x", MaxLine) + "\nz\n", false, []string{strings.Repeat("x", MaxLine), "z"}},
		{"too long", long + "\nz\n", false, []string{"TOO LONG", "z"}},
		{"too long at the end", long, false, []string{"TOO LONG"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := make(chan Line)
			go ReadLines(context.Background(), strings.NewReader(tc.in), tc.crlf, out)
			var got []string
			for l := range out {
				switch {
				case l.Err != nil:
					got = append(got, "ERROR "+l.Err.Error())
				case l.TooLong:
					got = append(got, "TOO LONG")
				default:
					got = append(got, string(l.Data))
				}
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("lines %.80q, want %.80q", got, tc.want)
			}
		})
	}
}
