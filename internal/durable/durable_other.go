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

const syncEach = false // see SyncEach
