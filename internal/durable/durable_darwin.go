package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncFSOf flushes everything written to the filesystem that holds the
// open file or directory fd (SyncFS). macOS has no syncfs: every
// filesystem's writes are scheduled (sync), then F_FULLFSYNC on fd has
// the drive write its cache out. sync may return before its writes reach
// the drive, so this is weaker than Linux's (docs/decisions.md, "Syncs
// off Linux").
func SyncFSOf(fd int) error {
	unix.Sync()
	_, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
	return err
}

// datasync is an fsync with F_FULLFSYNC (os.File.Sync on macOS): macOS
// has no fdatasync.
func datasync(f *os.File) error { return f.Sync() }

const syncEach = false // see SyncEach
