//go:build unix

package agenttest

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the agent in a process group of its own, so that the
// tools, hooks and helper processes it starts can be killed with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the agent and everything left in its group.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
