package restore

import (
	"errors"
	"path"
	"slices"

	"golang.org/x/sys/unix"
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

// sync fsyncs every directory noted, deepest first, so that the renames
// and deletions in them survive a power loss: until its directory is
// synced, a file renamed into place can come back as the old one after
// the rewind was journaled as ended. A directory gone since (removed
// because it was emptied) or swapped for a symlink is passed over: there
// is nothing of the rewind's in it to keep, and nothing is followed.
func (t touched) sync(root int) error {
	dirs := make([]string, 0, len(t))
	for d := range t {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(x, y string) int { return depth(y) - depth(x) })
	for _, d := range dirs {
		if err := syncDir(root, d); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(root int, rel string) error {
	if rel == "." {
		return unix.Fsync(root)
	}
	parent, base, err := dirAt(root, rel, false)
	var iw *inWayError
	if errors.Is(err, unix.ENOENT) || errors.As(err, &iw) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	fd, err := openDir(parent, base)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}
