//go:build !unix && !windows

package procgroup

import "os/exec"

// Set does nothing where process groups are unknown.
func Set(cmd *exec.Cmd) {}

// Kill kills the child.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
