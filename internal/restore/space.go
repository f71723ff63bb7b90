package restore

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// nearlyFull is the free space below which a failed write is taken for a
// full disk.
const nearlyFull = 1 << 20

// noSpace marks err as a full disk's when staging failed and the
// filesystem of dir has next to no space left. git checkout-index says
// only "unable to write file" when a write runs out of space, without the
// cause, which the person needs: the fix is theirs (free space), not a bug.
func noSpace(dir string, err error) error {
	var st unix.Statfs_t
	if err == nil || unix.Statfs(dir, &st) != nil || st.Bavail*uint64(st.Bsize) >= nearlyFull {
		return err
	}
	return fmt.Errorf("%w (%w)", err, unix.ENOSPC)
}
