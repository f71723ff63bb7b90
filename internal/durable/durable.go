// Package durable makes what was written survive a power loss, and in
// the order that recovery needs: a rename or a journal line that reaches
// the disk before the data it stands for would leave a path or a record
// naming bytes that were never stored.
package durable

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// SyncFS flushes everything written to the filesystem that holds dir:
// one call instead of an fsync per file, for the many files a rewind
// stages or the objects, index and ref a capture writes through git.
func SyncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return SyncFSOf(fd)
}

// SyncDir flushes dir's entries: a file created, renamed or removed in
// it is only there (or gone) for good once its directory is synced.
func SyncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

// SyncEach says a file's or a directory's own sync makes it durable on
// the drive, at the cost of that file's writes: the syncs a command makes
// then wait for its own writes, not for every program's on the disk, as
// a syncfs does. Not on macOS, where each one is a flush of the drive's
// cache (F_FULLFSYNC), nor where it is not known.
const SyncEach = syncEach

// MaxEach bounds the files or directories synced one by one: past it,
// one syncfs is one flush where thousands of syncs would be thousands.
const MaxEach = 256

// SyncDirs flushes the entries of each directory, all at once (a
// journaling filesystem commits them together), where each one's own
// sync is cheap (SyncEach) and they are not too many (MaxEach);
// otherwise it is SyncFS of fallback's filesystem.
func SyncDirs(dirs []string, fallback string) error {
	if !SyncEach || len(dirs) > MaxEach {
		return SyncFS(fallback)
	}
	return each(dirs, SyncDir)
}

// SyncFiles flushes each file's data, all at once, where each one's own
// sync is cheap (SyncEach) and they are not too many (MaxEach);
// otherwise it is SyncFS of fallback's filesystem (on macOS every file's
// sync is a flush of the drive's cache).
// A symlink's target is made with its name, in its directory's entries,
// and a symlink cannot be opened to be synced: its directory is synced
// instead.
func SyncFiles(files []string, fallback string) error {
	if !SyncEach || len(files) > MaxEach {
		return SyncFS(fallback)
	}
	var regular []string
	links := map[string]bool{}
	for _, name := range files {
		fi, err := os.Lstat(name)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			links[filepath.Dir(name)] = true
		} else {
			regular = append(regular, name)
		}
	}
	err := each(regular, func(name string) error {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = datasync(f)
		return errors.Join(err, f.Close())
	})
	return errors.Join(err, each(slices.Collect(maps.Keys(links)), SyncDir))
}

// SyncFDs flushes each open directory's entries (or file's data), all at
// once; only where SyncEach.
func SyncFDs(fds []int) error {
	return each(fds, unix.Fsync)
}

// maxSyncsAtOnce bounds the syncs in flight: enough for the filesystem
// to commit them together, few enough not to start a thread for each of
// thousands.
const maxSyncsAtOnce = 32

// each runs do on every item, maxSyncsAtOnce at a time, and joins
// their errors.
func each[T any](items []T, do func(T) error) error {
	errs := make([]error, len(items))
	sem := make(chan struct{}, maxSyncsAtOnce)
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			errs[i] = do(it)
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Datasync flushes f's data and what is needed to read it back (its
// size), not its times: cheaper than an fsync for an appended line.
func Datasync(f *os.File) error {
	return datasync(f)
}

// Replace writes data as path, whole: whoever reads path sees the old
// file or the new one, never a part. It is the way a file is replaced in
// this project (the journal, appended to, and the hook queue, whose
// renames are its protocol, have their own); what it promises beyond that
// is said at each call by how, so that a reader sees which files survive a power loss and why the
// others need not. A failure leaves no temporary file behind.
func Replace(path string, data []byte, how How) error {
	perm := how.Perm
	if perm == 0 {
		perm = 0o600 // the store's files are the person's alone
	}
	if how.Sweep {
		sweep(path, how.Racing)
	}
	var f *os.File
	var err error
	if how.Racing {
		f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	} else {
		f, err = os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // CreateTemp's 0600, or the umask's bits
	}
	if err == nil && how.Sync {
		err = Datasync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if how.Sync {
		return SyncDir(filepath.Dir(path))
	}
	return nil
}

// How says what Replace promises beyond a whole file.
type How struct {
	// Perm is the new file's permissions; 0 is 0600.
	Perm os.FileMode
	// Sync makes the new file survive a power loss: its data reach the
	// disk before the rename, and the rename before Replace returns.
	// Without it, a power loss may leave the old file, or an empty one,
	// under the name: right only for a file whose reader checks it
	// (a cache, a state that fingerprints what it describes).
	Sync bool
	// Racing gives the temporary file a name of its own, for a file that
	// several processes may replace at once (hooks run together); one of
	// them wins, whole.
	Racing bool
	// Sweep first removes the temporary files a Replace of path cut short
	// (a kill, a power loss) left beside it: for a file in a person's
	// tree, where one would stay in sight. A racing writer's file swept
	// makes that writer fail, never the file torn.
	Sweep bool
}

// sweep removes the temporary files Replace may have left for path:
// those of racing writes, or the one name of the others.
func sweep(path string, racing bool) {
	if !racing {
		os.Remove(path + ".tmp")
		return
	}
	escape := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+escape.Replace(filepath.Base(path))+".tmp[0-9]*"))
	for _, l := range left {
		os.Remove(l)
	}
}

// WriteFile replaces path with data so that a power loss leaves the old
// content or the new, never a mix or an empty file under the name.
func WriteFile(path string, data []byte) error {
	return Replace(path, data, How{Sync: true})
}
