//go:build linux

package crashfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// key tells a file from every other the live directory held, even one
// that reuses its inode number once it is freed (git frees and takes them
// all the time: a ref's lock renamed over the ref frees the old one): the
// inode number and the birth time.
type key struct {
	ino  uint64
	born int64
}

// entry is one name of a directory as the disk holds it: the file it
// names, its type and permissions, and a symlink's target (a symlink is
// made whole with its name, as ext4 and xfs store short targets in the
// inode they create with the entry).
type entry struct {
	ino    key
	mode   fs.FileMode
	target string
}

// image is what the disk holds: the state a crash presents. Files are
// kept by inode, not by name, so hard links (git links a loose object
// into place) and renames keep the data a file's fsync made durable,
// whatever name it has by then.
type image struct {
	root key
	data map[key][]byte           // a file's bytes as of its last sync
	perm map[key]fs.FileMode      // its permissions then
	dirs map[key]map[string]entry // a directory's entries as of its last sync
}

// ino is the key of the file at path. The live directory must be on a
// filesystem that keeps birth times (ext4, xfs, btrfs, tmpfs do).
func ino(path string) (key, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return key{}, nil, err
	}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return key{}, nil, err
	}
	if st.Mask&unix.STATX_BTIME == 0 {
		return key{}, nil, fmt.Errorf("crashfs: %s: the filesystem keeps no birth times, which tell a file from one that reuses its inode", path)
	}
	return key{st.Ino, st.Btime.Sec*1e9 + int64(st.Btime.Nsec)}, fi, nil
}

// newImage takes everything under live as durable: a freshly mounted
// image is what the disk held.
func newImage(live string) (*image, error) {
	root, _, err := ino(live)
	if err != nil {
		return nil, err
	}
	im := &image{root: root, data: map[key][]byte{}, perm: map[key]fs.FileMode{}, dirs: map[key]map[string]entry{}}
	return im, im.syncTree(live, true)
}

// syncFile makes the bytes and permissions of the file at path durable.
// The mount tracks a node's path through renames, so path is the file
// synced.
func (im *image) syncFile(path string) error {
	n, fi, err := ino(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // removed since: nothing of it is named
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	im.data[n], im.perm[n] = b, fi.Mode().Perm()
	return nil
}

// syncDir makes the entries of the directory at path durable: names
// made, renamed in or out, and removed since its last sync.
func (im *image) syncDir(path string) error {
	n, _, err := ino(path)
	if err != nil {
		return nil
	}
	des, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	m := make(map[string]entry, len(des))
	for _, de := range des {
		p := filepath.Join(path, de.Name())
		i, fi, err := ino(p)
		if err != nil {
			continue // removed while we looked: the name is gone
		}
		e := entry{ino: i, mode: fi.Mode()}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
		}
		m[de.Name()] = e
	}
	im.dirs[n] = m
	return nil
}

// syncTree makes everything under live durable (a syncfs), or with data
// false only the directories' entries (what a filesystem that commits
// its metadata journal before the data may leave after a crash).
func (im *image) syncTree(live string, data bool) error {
	return filepath.WalkDir(live, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case de.IsDir():
			return im.syncDir(p)
		case de.Type().IsRegular() && data:
			return im.syncFile(p)
		}
		return nil
	})
}

// write makes the image on disk under dir, which exists and is empty. A
// file whose name is durable but whose data never were is empty; a
// directory whose own entries never were is empty.
func (im *image) write(dir string) error {
	made := map[key]string{}
	var walk func(d key, path string) error
	walk = func(d key, path string) error {
		ents := im.dirs[d]
		names := make([]string, 0, len(ents))
		for name := range ents {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			e, p := ents[name], filepath.Join(path, name)
			switch {
			case e.mode.IsDir():
				if _, ok := made[e.ino]; ok {
					continue // a directory in two synced places: a rename whose both ends were synced at different times
				}
				made[e.ino] = p
				if err := os.Mkdir(p, 0o755); err != nil {
					return err
				}
				if err := walk(e.ino, p); err != nil {
					return err
				}
				if err := os.Chmod(p, e.mode.Perm()); err != nil {
					return err
				}
			case e.mode&fs.ModeSymlink != 0:
				if err := os.Symlink(e.target, p); err != nil {
					return err
				}
			case e.mode.IsRegular():
				if first, ok := made[e.ino]; ok {
					if err := os.Link(first, p); err != nil {
						return err
					}
					continue
				}
				made[e.ino] = p
				perm, ok := im.perm[e.ino]
				if !ok {
					perm = e.mode.Perm()
				}
				if err := os.WriteFile(p, im.data[e.ino], 0o600); err != nil {
					return err
				}
				if err := os.Chmod(p, perm); err != nil {
					return err
				}
			default:
				return fmt.Errorf("crashfs: %s: %v is not a file, directory or symlink", p, e.mode)
			}
		}
		return nil
	}
	return walk(im.root, dir)
}
