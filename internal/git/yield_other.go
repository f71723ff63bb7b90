//go:build !linux

package git

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// startYielding starts cmd and makes it nicer (YieldNice) at once, where
// a niceness is the whole process's: git has made no thread by then
// (its scan's come after it has read the index). It is never made less
// nice than we are.
func startYielding(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if nice, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil && nice < YieldNice {
		unix.Setpriority(unix.PRIO_PROCESS, cmd.Process.Pid, YieldNice) // best effort: only speed depends on it
	}
	return nil
}
