package restore

import (
	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// sync makes the renames and deletions the writes made survive a power
// loss, and with them what is in the directories also names: until then,
// a file renamed into place can come back as the old one after the rewind
// was journaled as ended. One syncfs of each filesystem the writes reached
// does it for every directory they changed at the cost of one flush,
// where an fsync of each directory costs a flush each (a rewind of 100
// files in 100 directories: 101). A tree is usually one filesystem, the
// staging directory's, which renames need, and the repository's. A write
// changes its directory and, where it makes or removes a directory, the
// one above: every one of them was opened on the write's way, so its
// filesystem is among those the tree noted (reached), whatever has been
// swapped in at its path since. A nil tree reached none.
func (t *tree) sync(also ...string) error {
	seen := map[uint64]bool{}
	if t != nil {
		for dev, fd := range t.devs {
			if err := durable.SyncFSOf(fd); err != nil {
				return err
			}
			seen[dev] = true
		}
	}
	for _, dir := range also {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err = unix.Fstat(fd, &st); err == nil && !seen[uint64(st.Dev)] {
			seen[uint64(st.Dev)] = true
			err = durable.SyncFSOf(fd)
		}
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}
