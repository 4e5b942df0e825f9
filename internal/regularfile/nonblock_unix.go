//go:build unix

package regularfile

import "syscall"

// NonBlock opens a FIFO without waiting for a writer.
const NonBlock = syscall.O_NONBLOCK
