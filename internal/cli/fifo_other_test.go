//go:build !unix

package cli

import "github.com/rogpeppe/go-internal/testscript"

const canMkfifo = false

func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("mkfifo: no FIFOs here (use [fifo])")
}
