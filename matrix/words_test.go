package matrix_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/shell"
	"github.com/refereehq/referee/matrix"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "node a.js", want: []string{"node", "a.js"}},
		{in: "  node \t  'my adapter.js'\n", want: []string{"node", "my adapter.js"}},
		{in: `python3 -c "print(\"x\")"`, want: []string{"python3", "-c", `print("x")`}},
		{in: `a\ b c`, want: []string{"a b", "c"}},
		{in: `'' ""`, want: []string{"", ""}},
		{in: `a""b'c'd`, want: []string{"abcd"}},
		{in: `"a\\b" "a\nb" "\$x" '\'`, want: []string{`a\b`, `a\nb`, "$x", `\`}},
		{in: "a\\\nb", want: []string{"ab"}},
		{in: "\"a\\\nb\"", want: []string{"ab"}},
		{in: "a~b x#y", want: []string{"a~b", "x#y"}},
		{in: "'a|b' \"c;d\" e\\&f", want: []string{"a|b", "c;d", "e&f"}},
		{in: "", want: nil},
		{in: "   ", want: nil},
		{in: "a | b", err: `'|' at byte 2 needs a shell`},
		{in: "a;b", err: `';' at byte 1`},
		{in: "a > out", err: `'>'`},
		{in: "$HOME/bin/x", err: `'$' at byte 0`},
		{in: `"$HOME"`, err: `'$' inside double quotes`},
		{in: "`date`", err: "'`'"},
		{in: "(x)", err: "'('"},
		{in: "~/x", err: `starting with '~'`},
		{in: "a #comment", err: `starting with '#'`},
		{in: "'open", err: "unterminated '"},
		{in: `"open`, err: `unterminated "`},
		{in: `a\`, err: "backslash ends the line"},
	} {
		got, err := matrix.SplitWords(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("SplitWords(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("SplitWords(%q): %v", tc.in, err)
		case tc.err == "" && !slices.Equal(got, tc.want):
			t.Errorf("SplitWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSplitWords holds the splitter to two properties on any input: it
// never panics, and words it returns, quoted for a shell, split back into
// themselves.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"node a.js", `a "b c" 'd'`, `a\ b`, "a\\\nb", `"x\"y"`, "", "'", `"$x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := matrix.SplitWords(s)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shell.Quote(w)
		}
		again, err := matrix.SplitWords(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("SplitWords(%q) = %q, whose quoting %q does not split: %v", s, words, quoted, err)
		}
		if !slices.Equal(again, words) {
			t.Fatalf("SplitWords(%q) = %q; quoted and split again: %q", s, words, again)
		}
	})
}

func TestParseImpl(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want matrix.Impl
		err  string
	}{
		{in: "node=node examples/adapters/node/jcs.mjs", want: matrix.Impl{Name: "node", Spec: check.Spec{Argv: []string{"node", "examples/adapters/node/jcs.mjs"}}}},
		{in: "py-3.12=python3 'my adapter.py' --flag=x", want: matrix.Impl{Name: "py-3.12", Spec: check.Spec{Argv: []string{"python3", "my adapter.py", "--flag=x"}}}},
		{in: "svc=url:http://127.0.0.1:8785/", want: matrix.Impl{Name: "svc", Spec: check.Spec{URL: "http://127.0.0.1:8785/"}}},
		{in: "node", err: "want NAME=COMMAND"},
		{in: "=node a.js", err: "the name"},
		{in: "a b=node", err: "the name"},
		{in: "x=", err: "no command"},
		{in: "x=url:", err: "no URL"},
		{in: "x=node a.js | tee", err: "needs a shell"},
	} {
		got, err := matrix.ParseImpl(tc.in)
		var ue *check.UsageError
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ue)):
			t.Errorf("ParseImpl(%q) = %+v, %v; want a usage error containing %q", tc.in, got, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("ParseImpl(%q): %v", tc.in, err)
		case tc.err == "" && (got.Name != tc.want.Name || got.Spec.URL != tc.want.Spec.URL || !slices.Equal(got.Spec.Argv, tc.want.Spec.Argv)):
			t.Errorf("ParseImpl(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if _, err := matrix.ParseImpls([]string{"a=x", "b=y", "a=z"}); err == nil || !strings.Contains(err.Error(), `two implementations named "a"`) {
		t.Errorf("ParseImpls with a repeated name: %v", err)
	}
}
