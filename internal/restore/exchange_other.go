//go:build !linux

package restore

import "golang.org/x/sys/unix"

// exchange is renameat2's RENAME_EXCHANGE, which only Linux has: the
// caller renames instead.
func exchange(string, int, string) error { return unix.ENOSYS }
