//go:build unix

package child

import (
	"os/exec"
	"syscall"
)

// closeUnblocksRead: closing a pipe ends a read blocked on it (the pipe is
// in the runtime's poller).
const closeUnblocksRead = true

// setGroup starts the child in a process group of its own.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the child and everything in its group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
