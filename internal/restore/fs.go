package restore

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// dirAt opens the directory holding rel (a slash-separated path below
// root), walking one component at a time with O_NOFOLLOW: a symlink or a
// file in a leading component stops the walk instead of being followed,
// even if it was swapped in after the plan was made. With create, missing
// directories are made. It returns the directory's fd and rel's last
// component.
func dirAt(root int, rel string, create bool) (fd int, base string, err error) {
	parts := strings.Split(rel, "/")
	fd, err = unix.Dup(root)
	if err != nil {
		return -1, "", err
	}
	for _, comp := range parts[:len(parts)-1] {
		next, err := openDir(fd, comp)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, comp, 0o777); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDir(fd, comp)
			}
		}
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				return -1, "", &inWayError{path: rel, at: comp}
			}
			return -1, "", err
		}
		fd = next
	}
	return fd, parts[len(parts)-1], nil
}

func openDir(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// inWayError is a leading component that is not a real directory.
type inWayError struct{ path, at string }

func (e *inWayError) Error() string {
	return fmt.Sprintf("%s: %q on its way is a symlink or a file, not a directory", e.path, e.at)
}

// openRoot opens the top of the working tree.
func openRoot(top string) (int, error) {
	return unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}
