package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/internal/shell"
)

// takesProgram reports whether cmd runs an adapter program given after --.
func takesProgram(cmd *cobra.Command) bool { return strings.Contains(cmd.Use, "-- PROGRAM") }

// dashFix is the error for a program given without --: the command line
// as it should have been, the program (from its first word, word) after --.
// raw are referee's arguments as given.
func dashFix(raw []string, word string) error {
	return usageError("%q looks like the adapter program: put it after --, as in\n  %s", word, withDash(raw, word))
}

// withDash rewrites raw (referee's arguments, after the binary's name) so
// that everything from the program's first word on follows --.
func withDash(raw []string, word string) string {
	at := -1
	// The program is the first such word after the suite: run SUITE WORD.
	for i := 2; i < len(raw); i++ {
		if raw[i] == word {
			at = i
			break
		}
	}
	quote := func(words []string) []string {
		out := make([]string, len(words))
		for i, w := range words {
			out[i] = shell.Quote(w)
		}
		return out
	}
	if at < 0 || slices.Contains(raw[:at], "--") {
		return "referee " + strings.Join(quote(raw), " ")
	}
	line := append([]string{"referee"}, quote(raw[:at])...)
	line = append(line, "--")
	line = append(line, quote(raw[at:])...)
	return strings.Join(line, " ")
}

// flagErrorHint turns a flag error of a command that takes a program into
// the hint to put the program after --, when a word that is not a flag came
// before the flag: `referee run jcs java -cp . Main` fails on -cp, which is
// java's.
func flagErrorHint(cmd *cobra.Command, err error, raw []string) error {
	if !takesProgram(cmd) || cmd.ArgsLenAtDash() >= 0 {
		return nil
	}
	words := cmd.Flags().Args()
	if len(words) == 0 {
		return nil
	}
	return usageError("%v, after %q, which looks like the adapter program: put the program after --, as in\n  %s", err, words[0], withDash(raw, words[0]))
}

// startHint says what most likely fixes an implementation that could not be
// started or never said hello, or "" when nothing specific is known. argv
// is the adapter program, dir the directory it was started in.
func startHint(err error, argv []string, dir string) string {
	var f *adapter.Fault
	if !errors.As(err, &f) {
		return ""
	}
	// The innermost fault says what happened; the hello fault wraps it.
	for {
		var inner *adapter.Fault
		if f.Err == nil || !errors.As(f.Err, &inner) {
			break
		}
		f = inner
	}
	switch {
	case f.Kind == adapter.FaultTimeout && len(argv) > 0 && strings.Contains(f.Msg, "hello"):
		return "the adapter wrote no line to stdout before the timeout. The usual cause is buffered stdout: " +
			"flush after each reply line (Python: print(..., flush=True) or python3 -u; Java: System.out.flush(); " +
			"C: fflush(stdout); Go: write to os.Stdout unbuffered or Flush a bufio.Writer)."
	case f.Kind == adapter.FaultBadLine && len(f.Line) > 0 && !strings.HasPrefix(strings.TrimSpace(string(f.Line)), "{"):
		return fmt.Sprintf("the adapter wrote %q on stdout, which is not a reply: stdout carries protocol lines only; write logs and banners to stderr", clipLine(string(f.Line)))
	case f.Kind == adapter.FaultStart && len(argv) > 0:
		return programHint(f.Err, argv[0], dir)
	}
	return ""
}

// programHint explains why program could not be started.
func programHint(err error, program, dir string) string {
	path := program
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	interp := interpreterOf(program)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s is not executable: chmod +x %s, or name its interpreter first (-- %s %s)", program, shell.Quote(program), interp, shell.Quote(program))
	case errors.Is(err, exec.ErrNotFound) && !strings.ContainsRune(program, filepath.Separator) && !strings.ContainsRune(program, '/'):
		if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
			return fmt.Sprintf("%s is a file here, but a program name without a / is looked up on PATH: write ./%s, or name its interpreter first (-- %s %s)", program, program, interp, program)
		}
		return fmt.Sprintf("%s is not on PATH: give its path, or install it", program)
	case errors.Is(err, fs.ErrNotExist):
		if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
			return fmt.Sprintf("%s exists, so the interpreter its #! line names is missing: fix that line, or name an interpreter first (-- %s %s)", program, interp, shell.Quote(program))
		}
		where := "the current directory"
		if dir != "" {
			where = "--dir " + dir
		}
		return fmt.Sprintf("there is no file %s (a relative path is read from %s)", program, where)
	}
	return ""
}

// interpreterOf guesses the interpreter of a script from its extension.
func interpreterOf(program string) string {
	switch strings.ToLower(filepath.Ext(program)) {
	case ".py":
		return "python3"
	case ".js", ".mjs", ".cjs":
		return "node"
	case ".sh":
		return "sh"
	case ".rb":
		return "ruby"
	case ".pl":
		return "perl"
	case ".php":
		return "php"
	case ".jar":
		return "java -jar"
	}
	return "INTERPRETER"
}
