//go:build !unix

package cgplive

// openNonBlock is 0 where there are no FIFOs to wait on.
const openNonBlock = 0
