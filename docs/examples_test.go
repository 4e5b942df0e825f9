package docs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/refereehq/referee/internal/sharedtest"
	"github.com/refereehq/referee/matrix"
)

// TestDocExamples holds the pages' example output to what referee prints.
//
// An example is a fenced block marked by an HTML comment on the line right
// before its opening fence, which a rendered page does not show:
//
//	<!-- example: ARGS -->  the block is the stdout of `referee ARGS`
//	<!-- example -->        the block's first line is `$ referee ARGS` (a line
//	                        ending in a backslash goes on on the next one),
//	                        and the lines after it are its stdout
//
// ARGS are split into words as a POSIX shell splits them (matrix.SplitWords:
// quotes, backslashes, nothing expanded). referee is built from
// ../cmd/referee and run as a child process from a directory laid out as the
// pages assume: the repository root (each of its entries linked), with
// ../shared beside it (the directory REFEREE_SHARED names) and that referee
// first on PATH, so an adapter command such as `referee serve jcs` is the same
// binary. What the run writes (`--out found`) stays in that directory. A file
// a page tells the reader to save is marked `<!-- file: NAME -->` before its
// block, and written there when a word of ARGS names it.
//
// The block must equal stdout line for line, with two allowances:
//
//   - a line of exactly `...` in the block stands for any number of lines,
//     none included;
//   - what differs from one run to the next is masked, in the block and in
//     the output alike (masks below): the elapsed time on a verdict line
//     `(0.12s)`, fuzz's `in 4.22s (237 inputs/s)`, the id on a text report's
//     `sent:` and `received:` lines (checks run concurrently take ids in
//     the order they send), and the start time and durations of a JSON or
//     JUnit report.
//
// An example that needs ../shared, node, python3 or the Node adapters' npm
// packages is skipped, saying so, when they are not there.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	suites, err := filepath.Glob(filepath.Join("suites", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, suites...), filepath.Join("..", "README.md"))
	var examples []docExample
	files := map[string]string{}
	for _, page := range pages {
		ex, fs, err := readExamples(page)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, ex...)
		for name, text := range fs {
			if _, dup := files[name]; dup {
				t.Fatalf("%s: a second <!-- file: %s -->", page, name)
			}
			files[name] = text
		}
	}
	if len(examples) == 0 {
		t.Fatal("no page marks an example (<!-- example: ARGS --> before a fenced block)")
	}
	for _, ex := range examples {
		t.Run(ex.where(), func(t *testing.T) {
			t.Parallel()
			runExample(t, ex, files)
		})
	}
}

// docExample is one marked block.
type docExample struct {
	page    string
	line    int      // the opening fence's line
	command string   // as the page writes it, after `referee`
	args    []string // command's words
	want    []docLine
}

// docLine is a line of a block and its line number in the page.
type docLine struct {
	n    int
	text string
}

func (ex docExample) where() string { return fmt.Sprintf("%s:%d", filepath.ToSlash(ex.page), ex.line) }

var (
	exampleMark = regexp.MustCompile(`^<!-- example(?:: (.*))? -->$`)
	fileMark    = regexp.MustCompile(`^<!-- file: ([A-Za-z0-9._-]+) -->$`)
)

// readExamples returns page's marked examples, and the files it marks by
// name with their text.
func readExamples(page string) ([]docExample, map[string]string, error) {
	raw, err := os.ReadFile(page)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	var examples []docExample
	files := map[string]string{}
	for i := 0; i < len(lines); i++ {
		em, fm := exampleMark.FindStringSubmatch(lines[i]), fileMark.FindStringSubmatch(lines[i])
		if em == nil && fm == nil {
			continue
		}
		fence := i + 2 // 1-based line number of the fence
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, nil, fmt.Errorf("%s:%d: %s is not right before a fenced block", page, i+1, lines[i])
		}
		var block []docLine
		end := i + 2
		for ; end < len(lines) && !strings.HasPrefix(lines[end], "```"); end++ {
			block = append(block, docLine{end + 1, lines[end]})
		}
		if end == len(lines) {
			return nil, nil, fmt.Errorf("%s:%d: the block does not end", page, fence)
		}
		if fm != nil {
			var text strings.Builder
			for _, l := range block {
				text.WriteString(l.text + "\n")
			}
			files[fm[1]] = text.String()
			i = end
			continue
		}
		command := em[1]
		if strings.HasPrefix(command, "referee ") {
			return nil, nil, fmt.Errorf("%s:%d: name the words after `referee`, not referee itself", page, i+1)
		}
		if command == "" {
			// The block's first line is the command, with its continuations.
			if len(block) == 0 || !strings.HasPrefix(block[0].text, "$ referee ") {
				return nil, nil, fmt.Errorf("%s:%d: <!-- example --> without ARGS marks a block whose first line is `$ referee ARGS`", page, i+1)
			}
			command = strings.TrimPrefix(block[0].text, "$ referee ")
			block = block[1:]
			for strings.HasSuffix(command, `\`) && len(block) > 0 {
				command = strings.TrimRight(strings.TrimSuffix(command, `\`), " \t") + " " + strings.TrimLeft(block[0].text, " \t")
				block = block[1:]
			}
		} else if len(block) > 0 && strings.HasPrefix(block[0].text, "$ ") {
			return nil, nil, fmt.Errorf("%s:%d: the block shows its command; mark it <!-- example --> alone", page, i+1)
		}
		args, err := matrix.SplitWords(command)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", page, i+1, err)
		}
		if !slices.ContainsFunc(block, func(l docLine) bool { return l.text != "..." }) {
			return nil, nil, fmt.Errorf("%s:%d: the example's block shows no output", page, fence)
		}
		examples = append(examples, docExample{page: page, line: fence, command: command, args: args, want: block})
		i = end
	}
	return examples, files, nil
}

// builtReferee is referee built from ../cmd/referee, once; its directory
// goes first on the examples' PATH. -buildvcs=false keeps the
// version what the pages show (0.1.0-dev), as a test binary reports it, in
// a checkout whose revision would otherwise be stamped in.
var builtReferee = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(scratch, "bin")
	name := "referee"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-buildvcs=false", "-o", exe, "../cmd/referee").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ../cmd/referee: %v\n%s", err, out)
	}
	return exe, nil
})

// exampleLimit bounds one example's run, far beyond what any takes.
const exampleLimit = 2 * time.Minute

// npmNeeds names, for a Node adapter that imports npm packages, one it
// needs: `npm ci --prefix examples/adapters/node` installs them.
var npmNeeds = map[string]string{"examples/adapters/node/cdc.mjs": "ajv"}

func runExample(t *testing.T, ex docExample, files map[string]string) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the examples run a referee built from ../cmd/referee")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// What the command needs: every word, and each word of an --impl
	// command, is looked at.
	var fields []string
	for _, a := range ex.args {
		fields = append(fields, strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == '=' })...)
	}
	base := t.TempDir()
	for _, f := range fields {
		switch {
		case strings.Contains(f, "../shared"):
			dir := sharedtest.Dir(t, ex.where()+" reads ../shared")
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			if err := os.Symlink(dir, filepath.Join(base, "shared")); err != nil && !errors.Is(err, os.ErrExist) {
				t.Skipf("cannot link ../shared here: %v", err)
			}
		case f == "node" || f == "python3":
			if _, err := exec.LookPath(f); err != nil {
				t.Skipf("%s is not on PATH", f)
			}
		case npmNeeds[f] != "":
			if _, err := os.Stat(filepath.Join(root, filepath.Dir(f), "node_modules", npmNeeds[f])); err != nil {
				t.Skipf("%s needs %s: run `npm ci --prefix %s` first", f, npmNeeds[f], filepath.Dir(f))
			}
		}
	}
	exe, err := builtReferee()
	if err != nil {
		t.Fatal(err)
	}
	// The repository root, as a directory of links, so that what the run
	// writes stays here.
	wd := filepath.Join(base, "main")
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(wd, e.Name())); err != nil {
			t.Skipf("cannot link the repository's entries: %v", err)
		}
	}
	for name, text := range files {
		if slices.Contains(ex.args, name) {
			os.Remove(filepath.Join(wd, name)) // a link to the root's own, if it has one
			if err := os.WriteFile(filepath.Join(wd, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), exampleLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, ex.args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: `referee %s` still running after %v", ex.where(), ex.command, exampleLimit)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if diff, ok := matchBlock(ex.page, ex.want, got); !ok {
		t.Errorf("%s: the block is not what `referee %s` prints (exit %d); - the page, + referee:\n%s%s",
			ex.where(), ex.command, cmd.ProcessState.ExitCode(), diff, stderrTail(stderr.String()))
	}
}

// masks replace what differs from one run to the next, in the block and in
// referee's output alike.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\(\d+\.\d+s\)$`), "(…s)"},                                  // a verdict line's elapsed time
	{regexp.MustCompile(` in [0-9.hmsµn]+ \(\d+ inputs/s\)`), " in … (… inputs/s)"}, // referee fuzz's summary
	{regexp.MustCompile(`^(\s+(?:sent|received): +\{"id":)\d+`), `$1…`},             // a request's id, in the order concurrent checks sent theirs
	{regexp.MustCompile(`^(\s*"started": )"[^"]*"`), `$1"…"`},                       // JSON report
	{regexp.MustCompile(`^(\s*"duration_ms": )[0-9.eE+-]+`), `$1…`},                 // JSON report and check
	{regexp.MustCompile(` (time|timestamp)="[^"]*"`), ` $1="…"`},                    // JUnit
}

func mask(s string) string {
	for _, m := range masks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return s
}

// matchBlock says whether got matches the block want, where a line `...`
// stands for any number of lines. When it does not, it returns a diff of the
// first stretch of the block (between two `...` lines) that does not match.
func matchBlock(page string, want []docLine, got []string) (string, bool) {
	for i := range got {
		got[i] = mask(got[i])
	}
	var segs [][]docLine
	seg := []docLine{}
	for _, l := range want {
		if l.text == "..." {
			segs, seg = append(segs, seg), []docLine{}
			continue
		}
		seg = append(seg, docLine{l.n, mask(l.text)})
	}
	segs = append(segs, seg)
	equal := func(seg []docLine, at int) bool {
		if at < 0 || at+len(seg) > len(got) {
			return false
		}
		for i, l := range seg {
			if l.text != got[at+i] {
				return false
			}
		}
		return true
	}
	pos := 0
	for k, seg := range segs {
		first, last := k == 0, k == len(segs)-1 // held to the start, to the end
		at := -1
		switch {
		case first && last:
			if len(got) == len(seg) && equal(seg, 0) {
				at = 0
			}
		case first:
			if equal(seg, 0) {
				at = 0
			}
		case last:
			if start := len(got) - len(seg); start >= pos && equal(seg, start) {
				at = start
			}
		default:
			for i := pos; i+len(seg) <= len(got); i++ {
				if equal(seg, i) {
					at = i
					break
				}
			}
		}
		if at < 0 {
			return lineDiff(page, seg, got[pos:], !first, !last), false
		}
		pos = at + len(seg)
	}
	return "", true
}

// lineDiff is a diff of the block's lines want against got, from the longest
// common subsequence; free at either end, got's lines before (after) the
// first (last) common line are left out, as a `...` there allows them.
func lineDiff(page string, want []docLine, got []string, freeStart, freeEnd bool) string {
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i].text == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-' or '+'
		text string
	}
	var ops []op
	base := filepath.ToSlash(page)
	for i, j := 0, 0; i < n || j < m; {
		switch {
		case i < n && j < m && want[i].text == got[j]:
			ops = append(ops, op{' ', fmt.Sprintf("%s:%d  %s", base, want[i].n, got[j])})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', fmt.Sprintf("%s:%d  %s", base, want[i].n, want[i].text)})
			i++
		default:
			ops = append(ops, op{'+', got[j]})
			j++
		}
	}
	for freeStart && len(ops) > 0 && ops[0].kind == '+' {
		ops = ops[1:]
	}
	for freeEnd && len(ops) > 0 && ops[len(ops)-1].kind == '+' {
		ops = ops[:len(ops)-1]
	}
	// Show the changes with two lines of context, at most 40 lines.
	const around, most = 2, 40
	var b strings.Builder
	shown, gap := 0, false
	for k, o := range ops {
		near := false
		for d := -around; d <= around; d++ {
			if k+d >= 0 && k+d < len(ops) && ops[k+d].kind != ' ' {
				near = true
			}
		}
		if !near {
			gap = true
			continue
		}
		if shown == most {
			fmt.Fprintf(&b, "  (and more)\n")
			break
		}
		if gap && shown > 0 {
			b.WriteString("  ...\n")
		}
		gap = false
		fmt.Fprintf(&b, "%c %s\n", o.kind, o.text)
		shown++
	}
	if len(ops) == 0 || shown == 0 {
		b.WriteString("  (referee printed too few lines)\n")
	}
	return b.String()
}

// stderrTail is the last lines of referee's stderr, to say why, if it says.
func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "referee's stderr ends:\n  " + strings.Join(lines, "\n  ") + "\n"
}

// TestDocExamplesMatch holds matchBlock to what TestDocExamples says a
// block means.
func TestDocExamplesMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		block, out string // lines joined by |
		ok         bool
	}{
		{"a|b", "a|b", true},
		{"a|b", "a|b|c", false},
		{"a|b|c", "a|b", false},
		{"a|...|c", "a|c", true},
		{"a|...|c", "a|x|y|c", true},
		{"a|...|c", "a|x|y|c|d", false},
		{"...|c", "x|c", true},
		{"a|...", "a|x", true},
		{"a|...|b|...|c", "a|x|b|y|b|c", true},
		{"a|...|b|c|...|d", "a|b|x|b|c|d", true},
		{"a|...|b|c|...|d", "a|b|x|c|d", false},
		{"a|...|c|...|c", "a|c", false},
		{"NOT CONFORMANT (0.01s)", "NOT CONFORMANT (12.34s)", true},
		{`      sent:     {"id":4,"op":"x"}`, `      sent:     {"id":42,"op":"x"}`, true},
		{`      sent:     {"id":4,"op":"x"}`, `      sent:     {"id":4,"op":"y"}`, false},
		{`  "started": "2026-12-01T19:52:25Z",`, `  "started": "2027-01-01T00:00:00Z",`, true},
		{`<testcase name="x" time="0.000">`, `<testcase name="x" time="1.250">`, true},
		{`<testcase name="x" time="0.000">`, `<testcase name="y" time="0.000">`, false},
		{"seed 1, 1000 inputs in 5.156s (194 inputs/s), 942 judged", "seed 1, 1000 inputs in 1m2.5s (16 inputs/s), 942 judged", true},
		{"seed 1, 1000 inputs in 5.156s (194 inputs/s), 942 judged", "seed 1, 1000 inputs in 5.156s (194 inputs/s), 941 judged", false},
	} {
		var block []docLine
		for i, l := range strings.Split(tc.block, "|") {
			block = append(block, docLine{i + 1, l})
		}
		diff, ok := matchBlock("page.md", block, strings.Split(tc.out, "|"))
		if ok != tc.ok {
			t.Errorf("block %q, output %q: match %v, want %v\n%s", tc.block, tc.out, ok, tc.ok, diff)
		}
		if !ok && diff == "" {
			t.Errorf("block %q, output %q: no diff", tc.block, tc.out)
		}
	}
}
