//go:build unix

package cgplive

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
