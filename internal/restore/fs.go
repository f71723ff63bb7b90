package restore

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// tree walks the working tree for a rewind's writes. Writes come sorted
// by path, so each directory's files come together: tree holds the
// directories on the way to the last one written, and a write reuses them
// where its path shares them, where walking every path from the top again
// cost a rewind of 100 files in 100 directories four deep about 1,100
// system calls, which a virtual machine charges dearly (docs/speed.md,
// "Each directory opened once"). Each directory is still reached one
// component at a time with O_NOFOLLOW from one held, so a symlink or a
// file in a leading component stops the walk instead of being followed,
// even if it was swapped in after the plan was made. A directory removed
// (emptied, or in a file's way) was never held: what is held after at is
// the way to its parent.
//
// It also keeps, for sync, each directory whose entries a write changes
// (the one it writes in, the one above a directory it makes), and a
// directory of each filesystem a write reached.
type tree struct {
	root int
	held []heldDir      // the directories on the way to the last one reached, top first
	devs map[uint64]int // a directory on each filesystem reached, for sync
	// changed are the directories a write changes, each its own
	// descriptor, by device and inode (a directory removed and made again
	// at one path is two); nil once there are more than durable.MaxEach.
	changed map[[2]uint64]int
}

type heldDir struct {
	path string // slash-separated, below the top
	fd   int
}

// openTree opens the top of the working tree.
func openTree(top string) (*tree, error) {
	root, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &tree{root: root, devs: map[uint64]int{}, changed: map[[2]uint64]int{}}, nil
}

// close closes every directory held; a nil tree holds none.
func (t *tree) close() {
	if t == nil {
		return
	}
	t.release(0)
	for _, fd := range t.devs {
		unix.Close(fd)
	}
	for _, fd := range t.changed {
		unix.Close(fd)
	}
	unix.Close(t.root)
}

// release closes the directories held from the n-th on.
func (t *tree) release(n int) {
	for _, h := range t.held[n:] {
		unix.Close(h.fd)
	}
	t.held = t.held[:n]
}

// at returns the directory holding rel (a slash-separated path below the
// top), which t keeps open until the next call, and rel's last component.
// With create, missing directories are made.
func (t *tree) at(rel string, create bool) (fd int, base string, err error) {
	dir := path.Dir(rel)
	n := 0 // held directories on rel's way
	for n < len(t.held) && (dir == t.held[n].path || strings.HasPrefix(dir, t.held[n].path+"/")) {
		n++
	}
	t.release(n)
	if len(t.devs) == 0 { // the top is reached first
		if err := t.reached(t.root); err != nil {
			return -1, "", err
		}
	}
	fd = t.root
	if n > 0 {
		fd = t.held[n-1].fd
	}
	if dir == "." {
		return fd, path.Base(rel), t.changes(fd)
	}
	// held[k] is the way's first k+1 components: open the rest.
	parts := strings.Split(dir, "/")
	for i := n; i < len(parts); i++ {
		comp := parts[i]
		next, err := openDir(fd, comp)
		if errors.Is(err, unix.ENOENT) && create {
			if err := t.changes(fd); err != nil {
				return -1, "", err
			}
			if err = unix.Mkdirat(fd, comp, 0o777); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDir(fd, comp)
			}
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, "", &inWayError{path: rel, at: comp}
		}
		if err != nil {
			return -1, "", err
		}
		t.held = append(t.held, heldDir{path: strings.Join(parts[:i+1], "/"), fd: next})
		if err := t.reached(next); err != nil {
			return -1, "", err
		}
		fd = next
	}
	return fd, path.Base(rel), t.changes(fd)
}

// changes notes that a write changes the entries of the directory fd,
// for sync. The caller of at writes in the directory it returns.
func (t *tree) changes(fd int) error {
	if t.changed == nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	key := [2]uint64{uint64(st.Dev), st.Ino}
	if _, ok := t.changed[key]; ok {
		return nil
	}
	if len(t.changed) == durable.MaxEach {
		for _, fd := range t.changed {
			unix.Close(fd)
		}
		t.changed = nil
		return nil
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		return err
	}
	t.changed[key] = dup
	return nil
}

// reached notes the filesystem of a directory a write reached.
func (t *tree) reached(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if _, ok := t.devs[uint64(st.Dev)]; ok {
		return nil
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		return err
	}
	t.devs[uint64(st.Dev)] = dup
	return nil
}

func openDir(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// inWayError is a leading component that is not a real directory.
type inWayError struct{ path, at string }

func (e *inWayError) Error() string {
	return fmt.Sprintf("%s: %q on its way is a symlink or a file, not a directory", e.path, e.at)
}
