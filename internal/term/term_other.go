//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package term

import "os"

// isANSI is false where referee has no way to ask: no colour, no
// progress line.
func isANSI(*os.File) bool { return false }
