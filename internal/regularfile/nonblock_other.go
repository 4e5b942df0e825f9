//go:build !unix

package regularfile

// NonBlock is 0 where there are no FIFOs to wait on.
const NonBlock = 0
