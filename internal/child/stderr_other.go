//go:build !linux

package child

import (
	"errors"
	"os"
	"syscall"
)

// stderrConn returns nil: stderr is read with a plain read, and Stderr
// does not wait for what the pipe still holds.
func stderrConn(*os.File) syscall.RawConn { return nil }

func readNow(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func unread(uintptr) (int, error) { return 0, errors.ErrUnsupported }
