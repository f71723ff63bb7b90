package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncFSOf flushes everything written to the filesystem that holds the
// open file or directory fd (SyncFS).
func SyncFSOf(fd int) error { return unix.Syncfs(fd) }

func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

// SyncEach says a file's or a directory's own sync makes it durable
// on the drive, at the cost of that file's writes: the syncs a command
// makes then wait for its own writes, not for every program's on the
// disk, as a syncfs does.
const SyncEach = true
