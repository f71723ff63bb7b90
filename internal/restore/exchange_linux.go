package restore

import "golang.org/x/sys/unix"

// exchange swaps the file at from with the one named name in dirfd, in
// one step (renameat2's RENAME_EXCHANGE). It fails with ENOENT when name
// does not exist, and with EINVAL where the filesystem cannot exchange.
func exchange(from string, dirfd int, name string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, dirfd, name, unix.RENAME_EXCHANGE)
}
