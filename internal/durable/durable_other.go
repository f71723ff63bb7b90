//go:build !linux && !darwin

package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncFSOf flushes what it can of the filesystem that holds the open file
// or directory fd (SyncFS) where there is no syncfs: every filesystem's
// writes are scheduled (sync), then fd is synced (docs/decisions.md,
// "Syncs off Linux").
func SyncFSOf(fd int) error {
	unix.Sync()
	return unix.Fsync(fd)
}

func datasync(f *os.File) error { return f.Sync() }

// SyncEach says a file's or a directory's own sync makes it durable
// on the drive, at the cost of that file's writes: the syncs a command
// makes then wait for its own writes, not for every program's on the
// disk, as a syncfs does.
const SyncEach = false
