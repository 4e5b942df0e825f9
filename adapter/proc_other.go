//go:build !unix && !windows

package adapter

import "os/exec"

// setProcessGroup does nothing where process groups are unknown.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the child.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
