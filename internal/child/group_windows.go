//go:build windows

package child

import (
	"os/exec"
	"syscall"
)

// closeUnblocksRead: closing a pipe does not end a synchronous read blocked
// on it.
const closeUnblocksRead = false

// setGroup starts the child in a process group of its own.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the child. Windows has no group kill without a job
// object, so grandchildren may outlive it.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
