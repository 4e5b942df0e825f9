// Package term tells whether a file is a terminal that takes ANSI escape
// sequences, which decides colour and progress lines.
package term

import "os"

// IsANSI reports whether f is a terminal that interprets ANSI escape
// sequences (colour, erase line). On Windows it turns on the console's
// virtual-terminal processing for f, and reports false if it cannot.
func IsANSI(f *os.File) bool {
	if f == nil {
		return false
	}
	return isANSI(f)
}
