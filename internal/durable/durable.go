// Package durable makes what was written survive a power loss, and in
// the order that recovery needs: a rename or a journal line that reaches
// the disk before the data it stands for would leave a path or a record
// naming bytes that were never stored.
package durable

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// SyncFS flushes everything written to the filesystem that holds dir:
// one call instead of an fsync per file, for the many files a rewind
// stages or the objects, index and ref a capture writes through git.
func SyncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return SyncFSOf(fd)
}

// SyncDir flushes dir's entries: a file created, renamed or removed in
// it is only there (or gone) for good once its directory is synced.
func SyncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

// Datasync flushes f's data and what is needed to read it back (its
// size), not its times: cheaper than an fsync for an appended line.
func Datasync(f *os.File) error {
	return datasync(f)
}

// WriteFile replaces path with data so that a power loss leaves the old
// content or the new, never a mix or an empty file under the name: the
// data are synced before the rename and the directory after it. A failure
// before the rename leaves no temporary file behind.
func WriteFile(path string, data []byte) error {
	tmp := path + ".tmp"
	err := writeSynced(tmp, data)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

func writeSynced(path string, data []byte) error {
	// 0600: what is written here is the store's (journal summaries, the
	// capture's state, its id), the person's alone (store.PrivateFile).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := Datasync(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
