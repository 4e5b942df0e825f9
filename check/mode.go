package check

import (
	"fmt"
	"strings"
)

// FindMode returns the broken mode of a suite's built-in adapter whose name
// is want, or an error that lists the modes there are.
func FindMode[M any](suite string, modes []M, name func(*M) string, want string) (*M, error) {
	names := make([]string, len(modes))
	for i := range modes {
		if names[i] = name(&modes[i]); names[i] == want {
			return &modes[i], nil
		}
	}
	return nil, fmt.Errorf("%s: no broken mode %q (modes: %s)", suite, want, strings.Join(names, ", "))
}

// ModesOf lists a suite's own broken modes as the engine declares them.
func ModesOf[M any](modes []M, nameDoc func(*M) (name, doc string)) []Mode {
	out := make([]Mode, len(modes))
	for i := range modes {
		out[i].Name, out[i].Doc = nameDoc(&modes[i])
	}
	return out
}
