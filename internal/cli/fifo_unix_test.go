//go:build unix

package cli

import (
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

const canMkfifo = true

// mkfifoCmd makes a FIFO with no writer at each path: `mkfifo PATH...`.
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mkfifo PATH...")
	}
	for _, p := range args {
		ts.Check(syscall.Mkfifo(ts.MkAbs(p), 0o644))
	}
}
