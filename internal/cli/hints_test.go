package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
)

func TestWithDash(t *testing.T) {
	tests := []struct {
		raw  []string
		word string
		want string
	}{
		{[]string{"run", "jcs", "java", "-cp", ".", "JcsAdapter"}, "java", "referee run jcs -- java -cp . JcsAdapter"},
		{[]string{"run", "jcs", "--timeout", "2s", "node", "x.mjs"}, "node", "referee run jcs --timeout 2s -- node x.mjs"},
		{[]string{"fuzz", "jcs", "--count", "9", "python3", "my adapter.py"}, "python3", "referee fuzz jcs --count 9 -- python3 'my adapter.py'"},
		// The word is not found after the suite: the line as given.
		{[]string{"run", "jcs", "x"}, "y", "referee run jcs x"},
	}
	for _, tt := range tests {
		if got := withDash(tt.raw, tt.word); got != tt.want {
			t.Errorf("withDash(%q, %q) = %q, want %q", tt.raw, tt.word, got, tt.want)
		}
	}
}

func TestStartHint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "adapter.py")
	if err := os.WriteFile(script, []byte("#!/nonexistent/python\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hello := func(inner *adapter.Fault) error {
		return &adapter.StartError{Err: &adapter.Fault{Kind: adapter.FaultHello, Msg: "no valid hello reply", Err: inner}}
	}
	start := func(err error) error {
		return &adapter.Fault{Kind: adapter.FaultStart, Msg: "cannot start", Err: err}
	}
	tests := []struct {
		name string
		err  error
		argv []string
		dir  string
		want string // "" for no hint
	}{
		{"silent on stdio", hello(&adapter.Fault{Kind: adapter.FaultTimeout, Msg: "no reply to hello (id 0) in time"}), []string{"./a"}, "", "buffered stdout: flush after each reply line"},
		{"silent over http", hello(&adapter.Fault{Kind: adapter.FaultTimeout, Msg: "no reply to hello (id 0) in time"}), nil, "", ""},
		{"banner", hello(&adapter.Fault{Kind: adapter.FaultBadLine, Msg: "not JSON", Line: []byte("Adapter ready!")}), []string{"./a"}, "", `wrote "Adapter ready!" on stdout`},
		{"bad json reply", hello(&adapter.Fault{Kind: adapter.FaultBadLine, Msg: "not JSON", Line: []byte(`{"id":0,`)}), []string{"./a"}, "", ""},
		{"no run bit", start(&fs.PathError{Op: "fork/exec", Path: "./adapter.py", Err: fs.ErrPermission}), []string{"./adapter.py"}, "", "chmod +x ./adapter.py, or name its interpreter first (-- python3 ./adapter.py)"},
		{"not on PATH, a file here", start(exec.ErrNotFound), []string{"adapter.py"}, dir, "write ./adapter.py"},
		{"not on PATH at all", start(exec.ErrNotFound), []string{"no-such-adapter"}, dir, "no-such-adapter is not on PATH"},
		{"no such file", start(&fs.PathError{Op: "fork/exec", Path: "./gone.mjs", Err: fs.ErrNotExist}), []string{"./gone.mjs"}, dir, "there is no file ./gone.mjs (a relative path is read from --dir " + dir + ")"},
		{"#! names a missing interpreter", start(&fs.PathError{Op: "fork/exec", Path: "adapter.py", Err: fs.ErrNotExist}), []string{"./adapter.py"}, dir, "the interpreter its #! line names is missing"},
		{"not a fault", errors.New("boom"), []string{"./a"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := startHint(fmt.Errorf("wrapped: %w", tt.err), tt.argv, tt.dir)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("hint %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("hint %q, want one containing %q", got, tt.want)
			}
		})
	}
}
