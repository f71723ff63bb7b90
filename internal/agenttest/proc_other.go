//go:build !unix

package agenttest

import (
	"os/exec"
	"time"
)

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(cmd *exec.Cmd) {}

// killRun kills the agent itself where there are no process groups.
func killRun(cmd *exec.Cmd, marker string) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// settleHooks does nothing where processes are not listed by environment.
func settleHooks(marker string, grace time.Duration) {}
