package store

import (
	"os"
	"path/filepath"
	"strconv"
)

// openBySome reports whether a process has path open, from every
// process's descriptors in /proc (those of the user's own processes,
// which an orphaned git of ours is). It is asked only when a killed
// command left a lock, so its cost (a readlink per open descriptor) is
// paid after a kill, never by a capture that finds nothing left.
func openBySome(path string) (open, known bool) {
	fds, err := filepath.Glob("/proc/[0-9]*/fd/*")
	if err != nil || len(fds) == 0 {
		return false, false
	}
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/"
	for _, fd := range fds {
		if len(fd) > len(self) && fd[:len(self)] == self {
			continue
		}
		if target, err := os.Readlink(fd); err == nil && target == path {
			return true, true
		}
	}
	return false, true
}
