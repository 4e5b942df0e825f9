package report

import (
	"slices"
	"strings"
	"testing"
)

func TestStderrExcerpt(t *testing.T) {
	node := `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/tmp/adapter.mjs'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`
	java := "Exception in thread \"main\" java.lang.IllegalStateException: no config\n\tat M.load(M.java:9)\n\tat M.main(M.java:1)\n"
	python := `Traceback (most recent call last):
  File "/tmp/a.py", line 1, in <module>
    import jcs
ModuleNotFoundError: No module named 'jcs'
`
	many := strings.Repeat("working\n", 20) + "done\n"
	tests := []struct {
		name string
		log  string
		n    int
		want []string
	}{
		{"node's missing module: the cause, then the end", node, 8, []string{
			"… 4 lines left out …",
			"Error: Cannot find module '/tmp/adapter.mjs'",
			"… 4 lines left out …",
			"  code: 'MODULE_NOT_FOUND',",
			"  requireStack: []",
			"}",
			"",
			"Node.js v20.20.2",
		}},
		{"java, short: whole, tabs as spaces", java, 8, []string{
			`Exception in thread "main" java.lang.IllegalStateException: no config`,
			"    at M.load(M.java:9)",
			"    at M.main(M.java:1)",
		}},
		{"python, short: whole", python, 8, []string{
			"Traceback (most recent call last):",
			`  File "/tmp/a.py", line 1, in <module>`,
			"    import jcs",
			"ModuleNotFoundError: No module named 'jcs'",
		}},
		{"no error named: the first lines and the last", many, 5, []string{"working", "working", "… 17 lines left out …", "working", "done"}},
		{"an error among the first lines: the first lines", "starting\nerror: no config\n" + many, 6, []string{"starting", "error: no config", "working", "… 18 lines left out …", "working", "done"}},
		{"control characters stay escaped", "a\x1b[2K\n", 8, []string{"a‹U+001B›[2K"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StderrExcerpt(tt.log, tt.n)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if len(got) > tt.n {
				t.Errorf("%d lines, more than %d", len(got), tt.n)
			}
		})
	}
}
