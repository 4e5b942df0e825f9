package child

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// StandIn says the running program, though a Go test binary, acts as
// referee when given referee's arguments (its TestMain runs referee's Main
// on them), so that SelfPath may return it.
var StandIn bool

// SelfPath is the program referee runs to start itself as a child (a
// provider it serves, a relay): its argv[0] when that resolves, so that a
// test binary standing in for referee is found as such, else its
// executable. A Go test binary that does not stand in is refused: started
// with referee's arguments it would run its tests again, and they would
// start it again, without end.
func SelfPath() (string, error) {
	p, err := selfPath()
	if err != nil {
		return "", err
	}
	if !StandIn && isTestBinary(p) {
		return "", fmt.Errorf("%s is a Go test binary that does not stand in for referee: its TestMain must run referee's Main on referee's arguments and set child.StandIn", p)
	}
	return p, nil
}

func selfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	return os.Executable()
}

// isTestBinary reports whether path names a binary go test built.
func isTestBinary(path string) bool {
	return strings.HasSuffix(strings.TrimSuffix(filepath.Base(path), ".exe"), ".test")
}
