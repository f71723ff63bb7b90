package restore

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the file at from with the one named name in dirfd, in
// one step (renameat2's RENAME_EXCHANGE). It fails with ENOENT when name
// does not exist, and with EINVAL where the filesystem cannot exchange.
func exchange(from string, dirfd int, name string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, dirfd, name, unix.RENAME_EXCHANGE)
}

// renameNoReplace renames from to name in dirfd unless something is there
// (EEXIST): a file made at the path since it was found empty is never
// renamed over. Where the filesystem cannot tell (EINVAL), it renames.
func renameNoReplace(from string, dirfd int, name string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, dirfd, name, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) {
		err = unix.Renameat(unix.AT_FDCWD, from, dirfd, name)
	}
	return err
}

// openForWriting reports whether another process holds the file open
// for writing (or mapped writable): a read lease, which the kernel grants
// only when no one does, is taken and given back at once. Where no lease
// can be taken (a filesystem without them, a file of another user), it
// cannot tell and says no.
func openForWriting(fd int) bool {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		return errors.Is(err, unix.EAGAIN)
	}
	unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
	return false
}
