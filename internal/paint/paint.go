// Package paint colours text for a terminal with ANSI escape sequences, or
// leaves it plain: the one painter of the text reports and the suites'
// own commands.
package paint

import (
	"fmt"
	"strconv"
)

// Color is an ANSI (ECMA-48) select-graphic-rendition attribute.
type Color uint8

// The attributes referee's text output uses.
const (
	Faint   Color = 2
	Red     Color = 31
	Green   Color = 32
	Yellow  Color = 33
	Magenta Color = 35
)

// Painter returns a function that paints text in a colour, or leaves it
// plain when on is false (no terminal, NO_COLOR, --no-color).
func Painter(on bool) func(Color) func(a ...any) string {
	return func(c Color) func(a ...any) string {
		if !on {
			return fmt.Sprint
		}
		start, end := "\x1b["+strconv.Itoa(int(c))+"m", "\x1b[0m"
		if c == Faint {
			end = "\x1b[22m" // normal intensity, leaving any colour as it was
		}
		return func(a ...any) string { return start + fmt.Sprint(a...) + end }
	}
}
