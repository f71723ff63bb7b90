//go:build !linux

package restore

import "golang.org/x/sys/unix"

// exchange is renameat2's RENAME_EXCHANGE, which only Linux has: the
// caller renames instead.
func exchange(string, int, string) error { return unix.ENOSYS }

// renameNoReplace renames: only Linux's renameat2 refuses to replace.
func renameNoReplace(from string, dirfd int, name string) error {
	return unix.Renameat(unix.AT_FDCWD, from, dirfd, name)
}

// openForWriting cannot tell without Linux's leases, and says no.
func openForWriting(int) bool { return false }
