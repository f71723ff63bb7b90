package restore

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// nearlyFull is the free space below which a failed write is taken for a
// full disk, and doctor warns that captures will fail.
const nearlyFull = 1 << 20

// LowOnSpace reports the space free to the user on the filesystem of dir,
// and whether it is so little that the next write may fail; ok is false
// when it cannot be told.
func LowOnSpace(dir string) (free uint64, low, ok bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false, false
	}
	free = uint64(st.Bavail) * uint64(st.Bsize) // the types differ by system
	return free, free < nearlyFull, true
}

// noSpace marks err as a full disk's when staging failed and the
// filesystem of dir has next to no space left. git checkout-index says
// only "unable to write file" when a write runs out of space, without the
// cause, which the person needs: the fix is theirs (free space), not a bug.
func noSpace(dir string, err error) error {
	if _, low, ok := LowOnSpace(dir); err == nil || !ok || !low {
		return err
	}
	return fmt.Errorf("%w (%w)", err, unix.ENOSPC)
}
