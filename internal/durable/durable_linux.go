package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncFSOf flushes everything written to the filesystem that holds the
// open file or directory fd (SyncFS).
func SyncFSOf(fd int) error { return unix.Syncfs(fd) }

func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

const syncEach = true // see SyncEach
