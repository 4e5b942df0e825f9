//go:build windows

package adapter

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the child in a process group of its own.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killProcessGroup kills the child. Windows has no group kill without a job
// object, so grandchildren may outlive it.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
