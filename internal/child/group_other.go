//go:build !unix && !windows

package child

import "os/exec"

// closeUnblocksRead is false where it is not known to hold.
const closeUnblocksRead = false

// setGroup does nothing where process groups are unknown.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the child.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
