package child

import (
	"os"
	"os/exec"
	"path/filepath"
)

// SelfPath is the program referee runs to start itself as a child (a
// provider it serves, a relay): its argv[0] when that resolves, so that a
// test binary standing in for referee is found as such, else its
// executable.
func SelfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	return os.Executable()
}
