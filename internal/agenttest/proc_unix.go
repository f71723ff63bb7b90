//go:build unix && !linux

package agenttest

import (
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup puts the agent in a process group of its own, so that it
// and the processes that stay in its group can be killed at once.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killRun kills the agent's process group. Without /proc, tools that the
// agent started in sessions of their own are not found.
func killRun(cmd *exec.Cmd, marker string) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// settleHooks does nothing where processes are not listed by environment.
func settleHooks(marker string, grace time.Duration) {}
