//go:build windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// Set starts the child in a process group of its own.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Kill kills the child. Windows has no group kill without a job
// object, so grandchildren may outlive it.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
