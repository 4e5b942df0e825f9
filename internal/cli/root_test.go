package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestRootBuildsTheCommandUsed: a command referee has builds alone (with
// the per-suite subcommands of run, fuzz and serve under it); help, no
// command and a mistyped one build the whole tree.
func TestRootBuildsTheCommandUsed(t *testing.T) {
	all := []string{"corpus", "diff", "explain", "export", "fuzz", "inspect", "list", "merge", "run", "serve", "smoke", "version"}
	tests := []struct {
		used     string
		commands []string
		suites   bool // run, fuzz and serve have their per-suite subcommands
	}{
		{"version", []string{"version"}, false},
		{"list", []string{"list"}, false},
		{"run", []string{"run"}, true},
		{"serve", []string{"serve"}, true},
		{"inspect", []string{"inspect"}, false},
		{"export", []string{"export"}, false},
		{"", all, false},
		{"help", all, true},
		{"rnu", all, true},
		// A flag first: the root's help (referee -h run), which lists every command.
		{"-h", all, false},
	}
	for _, tt := range tests {
		t.Run(tt.used, func(t *testing.T) {
			used := tt.used
			if strings.HasPrefix(used, "-") {
				used = commandIn([]string{used, "run"})
			}
			root := newRootCmd(&env{stdout: io.Discard, stderr: io.Discard}, used)
			var names []string
			for _, c := range root.Commands() {
				names = append(names, c.Name())
				if c.Name() == "run" || c.Name() == "serve" || c.Name() == "fuzz" {
					if got := len(c.Commands()) > 0; got != tt.suites {
						t.Errorf("%s has per-suite subcommands: %v, want %v", c.Name(), got, tt.suites)
					}
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.commands) {
				t.Errorf("commands = %q, want %q", names, tt.commands)
			}
		})
	}
}

func TestWaitsOnOthers(t *testing.T) {
	for used, want := range map[string]bool{
		"run": true, "fuzz": true, "serve": true, "inspect": true, "rnu": true,
		"corpus": true, "merge": true, "smoke": true, "diff": true,
		"version": false, "list": false, "explain": false, "help": false, "": false,
	} {
		if got := waitsOnOthers(used); got != want {
			t.Errorf("waitsOnOthers(%q) = %v, want %v", used, got, want)
		}
	}
}
