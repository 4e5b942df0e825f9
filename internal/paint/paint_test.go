package paint

import "testing"

// TestPainter: each colour is the SGR sequence ECMA-48 gives it, ended by
// a full reset, except faint, which ends with "normal intensity" (22) so
// that it can sit inside a coloured span; off, the text is left as it is.
func TestPainter(t *testing.T) {
	for _, tc := range []struct {
		c    Color
		on   bool
		args []any
		want string
	}{
		{Red, true, []any{"FAIL"}, "\x1b[31mFAIL\x1b[0m"},
		{Green, true, []any{"PASS"}, "\x1b[32mPASS\x1b[0m"},
		{Yellow, true, []any{"WARN"}, "\x1b[33mWARN\x1b[0m"},
		{Magenta, true, []any{"ERROR"}, "\x1b[35mERROR\x1b[0m"},
		{Faint, true, []any{"why"}, "\x1b[2mwhy\x1b[22m"},
		{Red, true, []any{"n=", 3}, "\x1b[31mn=3\x1b[0m"},
		{Red, false, []any{"FAIL"}, "FAIL"},
		{Faint, false, []any{"n=", 3}, "n=3"},
	} {
		if got := Painter(tc.on)(tc.c)(tc.args...); got != tc.want {
			t.Errorf("Painter(%v)(%d)(%v) = %q, want %q", tc.on, tc.c, tc.args, got, tc.want)
		}
	}
}
