package restore

import (
	"errors"
	"path"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// touched collects the directories of the tree whose entries a write
// changed: a rename or an unlink changes its parent, and a directory made
// or removed on the way changes the one above it, so every ancestor of a
// path written or deleted is noted.
type touched map[string]bool

func (t touched) add(rel string) {
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if t[d] {
			return // its ancestors are in too
		}
		t[d] = true
		if d == "." {
			return
		}
	}
}

// sync makes the renames and deletions in every directory noted survive a
// power loss, and with them what is in the directories also names:
// until then, a file renamed into place can come back as the old one
// after the rewind was journaled as ended. One syncfs of each filesystem
// the directories are on does it for all of them at the cost of one
// flush, where an fsync of each directory costs a flush each (a rewind of
// 100 files in 100 directories: 101). A tree is usually one filesystem,
// the staging directory's, which renames need, and the repository's. A
// directory gone since (removed because it was emptied) or swapped for a
// symlink is passed over: there is nothing of the rewind's in it to keep,
// and nothing is followed.
func (t touched) sync(root int, also ...string) error {
	seen := map[uint64]bool{}
	syncfs := func(fd int) error {
		var st unix.Stat_t
		err := unix.Fstat(fd, &st)
		if err == nil && !seen[uint64(st.Dev)] {
			seen[uint64(st.Dev)] = true
			err = durable.SyncFSOf(fd)
		}
		return err
	}
	for d := range t {
		fd, err := openTouched(root, d)
		if err != nil {
			return err
		}
		if fd < 0 {
			continue
		}
		err = syncfs(fd)
		if fd != root {
			unix.Close(fd)
		}
		if err != nil {
			return err
		}
	}
	for _, dir := range also {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		err = syncfs(fd)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

// openTouched opens the directory rel of the tree, without following a
// symlink on the way; -1 when it is gone or is no longer a directory.
func openTouched(root int, rel string) (int, error) {
	if rel == "." {
		return root, nil
	}
	parent, base, err := dirAt(root, rel, false)
	var iw *inWayError
	if errors.Is(err, unix.ENOENT) || errors.As(err, &iw) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	fd, err := openDir(parent, base)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, nil
	}
	return fd, err
}
