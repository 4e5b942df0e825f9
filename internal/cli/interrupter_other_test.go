//go:build !unix

package cli

import "os"

// interrupter needs signals to a parent process; the scripts that use it
// run only on unix.
func interrupter() { os.Exit(2) }
