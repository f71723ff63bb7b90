package git

import (
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startYielding starts cmd at YieldNice. Linux keeps a niceness per
// thread, and a process starts with its parent thread's: so cmd is
// started from a thread of its own made nicer first, which is never
// used again (a goroutine that ends still locked to its thread takes
// the thread with it). git is born nicer, with every thread it makes,
// and this process keeps its own priority.
func startYielding(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if !makeThreadNicer() {
			runtime.UnlockOSThread() // the thread is as it was
		}
		// Otherwise not unlocked: the thread ends with the goroutine.
		done <- cmd.Start()
	}()
	return <-done
}

// makeThreadNicer sets the calling thread's niceness to YieldNice and
// reports whether it did. A thread as nice already is left as it is: git
// is never made less nice than we are, which root could do.
func makeThreadNicer() bool {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0) // 20 minus the niceness
	if err != nil || 20-prio >= YieldNice {
		return false
	}
	return unix.Setpriority(unix.PRIO_PROCESS, 0, YieldNice) == nil
}
