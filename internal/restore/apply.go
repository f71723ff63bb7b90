package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Applier writes a plan into the working tree.
type Applier struct {
	Git     *git.Runner
	Top     string
	Staging string // a directory on the working tree's filesystem, ours alone
	// Fail is the test-only failure injection, at each step by the
	// step's name: tests crash or fail a rewind at every step with it.
	Fail fault.Failpoints
	// Left collects the paths Apply did not touch because a leading
	// component stopped being a real directory after the plan was made
	// (a symlink or a file swapped in): nothing is written through it.
	Left []Left
	// done is what Apply changed, which Revert puts back.
	done []File
}

// Apply makes the working tree match the plan's target for the plan's
// paths. Files are staged first, so a crash leaves each path wholly old or
// wholly new; if writing fails, what was written is put back from the
// current tree (failed.rewind_undone) or, if that fails too,
// failed.rewind_partial is returned. A failure before anything was written
// (staging on a full disk) is failed.io: the tree is as it was.
func (a *Applier) Apply(ctx context.Context, p *Plan, safetyID string) error {
	done, err := a.write(ctx, p.Files, "")
	a.done = done
	if err == nil {
		return nil
	}
	if len(done) == 0 {
		// Staging, or the first deletion, failed: there is nothing to
		// put back, and saying so tells the person the tree is as it was.
		return fault.Wrap(err, fault.FailedIO, "the rewind stopped before it changed anything")
	}
	return a.Revert(ctx, safetyID, err)
}

// Revert puts back what Apply wrote, after err stopped the rewind (in Apply
// itself, or in a step after it such as moving HEAD), and returns err as
// failed.rewind_undone, or failed.rewind_partial if putting back failed.
// Only what was changed goes back: a path the rewind never reached holds
// what it held, or what someone wrote there since.
func (a *Applier) Revert(ctx context.Context, safetyID string, err error) error {
	var back []File
	for _, f := range a.done {
		back = append(back, File{Path: f.Path, OldMode: f.Mode, OldOID: f.OID, Mode: f.OldMode, OID: f.OldOID, Raw: f.OldRaw, OldRaw: f.Raw})
	}
	if _, rerr := a.write(ctx, back, "undo-"); rerr != nil {
		return fault.Wrap(err, fault.FailedRewindPartial, "the rewind failed part way and the tree could not be put back").
			WithHint("every file the rewind touched is in the safety checkpoint " + safetyID + ": run 'git rewind " + safetyID + " --force'").
			WithData(map[string]string{"safety": safetyID, "undo_error": rerr.Error()})
	}
	return fault.Wrap(err, fault.FailedRewindUndone, "the rewind failed and the tree was put back as it was").
		WithData(map[string]string{"safety": safetyID})
}

// write stages every file to create or modify, deletes what must go, then
// renames the staged files into place. It returns the files it deleted or
// put into place, also when it fails part way.
func (a *Applier) write(ctx context.Context, files []File, stepPrefix string) (done []File, err error) {
	fail := func(step string) error { return a.Fail.At(stepPrefix + step) }
	if len(files) == 0 {
		return nil, nil
	}
	stage, err := os.MkdirTemp(a.Staging, "rewind-")
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot create a staging directory")
	}
	defer os.RemoveAll(stage)
	var writes, deletes []File
	for _, f := range files {
		if f.Mode == git.AbsentMode {
			deletes = append(deletes, f)
		} else {
			writes = append(writes, f)
		}
	}
	end := a.Git.Phase("stage")
	staged, err := a.stage(ctx, stage, writes)
	end()
	if err != nil {
		return nil, noSpace(stage, err)
	}
	if len(writes) > 0 {
		// The staged files reach the disk before the first of them is
		// renamed into the tree: a rename that outlived a power loss
		// while its file's data did not would leave the path neither old
		// nor new. Staging is on the tree's filesystem (renames need it),
		// so one syncfs covers every file, where an fsync each would cost
		// a disk flush per file.
		if err := a.syncStaged(stage); err != nil {
			return nil, err
		}
	}
	if err := fail("staged"); err != nil {
		return nil, err
	}
	root, err := openRoot(a.Top)
	if err != nil {
		return nil, err
	}
	defer unix.Close(root)

	endRename := a.Git.Phase("rename")
	defer func() { endRename() }()
	// Deepest first, so a directory's files go before the directory.
	slices.SortFunc(deletes, func(x, y File) int { return depth(y.Path) - depth(x.Path) })
	emptied, dirs := map[string]bool{}, touched{}
	for i, f := range deletes {
		if err := fail("delete-" + strconv.Itoa(i)); err != nil {
			return done, err
		}
		if err := removeFile(root, f.Path); a.inWay(err, f.Path) {
			continue
		} else if err != nil {
			return done, fmt.Errorf("cannot delete %s: %w", f.Path, err)
		}
		done = append(done, f)
		dirs.add(f.Path)
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			emptied[d] = true
		}
	}
	gone := make([]string, 0, len(emptied))
	for d := range emptied {
		gone = append(gone, d)
	}
	slices.SortFunc(gone, func(x, y string) int { return depth(y) - depth(x) })
	for _, d := range gone {
		removeEmptyDir(root, d)
	}
	if err := fail("deleted"); err != nil {
		return done, err
	}
	slices.SortFunc(writes, func(x, y File) int { return strings.Compare(x.Path, y.Path) })
	for i, f := range writes {
		if err := fail("rename-" + strconv.Itoa(i)); err != nil {
			return done, err
		}
		if err := renameInto(root, staged[f.Path], f.Path); a.inWay(err, f.Path) {
			continue
		} else if err != nil {
			return done, fmt.Errorf("cannot write %s: %w", f.Path, err)
		}
		done = append(done, f)
		dirs.add(f.Path)
	}
	endRename()
	endRename = a.Git.Phase("sync directories")
	if err := dirs.sync(root); err != nil {
		return done, fmt.Errorf("cannot sync the directories written: %w", err)
	}
	return done, fail("renamed")
}

// syncStaged makes the staged files reach the disk; see write.
func (a *Applier) syncStaged(stage string) error {
	defer a.Git.Phase("sync staged")()
	if err := durable.SyncFS(stage); err != nil {
		return fmt.Errorf("cannot sync the staged files: %w", err)
	}
	return nil
}

// inWay reports whether err is a leading component of path that is not a
// real directory, and if so leaves the path as it is.
func (a *Applier) inWay(err error, path string) bool {
	var iw *inWayError
	if !errors.As(err, &iw) {
		return false
	}
	a.Left = append(a.Left, Left{Path: path, Reason: LeftSymlinkInWay})
	return true
}

// stage writes the target content of files into stage through a
// temporary index and `git checkout-index`, which applies smudge filters,
// modes and symlinks exactly as a checkout would, and returns where each
// path's file waits.
//
// The files wait flat, as stage/files/<n>, when no attribute applies to
// any of them (flatStaging): a checkout of each then depends on its
// content, its mode and git's configuration alone, not on its path, and
// checkout-index makes no directories. With 100 files in 100 directories
// it made about 250, which took 50 ms against 11 ms flat at 100,000
// files (docs/speed.md, "No watcher beside the cases"). Otherwise each
// file waits under its own path, stage/files/<path>, where git finds the
// attributes that apply to it.
func (a *Applier) stage(ctx context.Context, stage string, writes []File) (map[string]string, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	index := filepath.Join(stage, "index")
	flat, err := a.flatStaging(ctx, index, writes)
	if err != nil {
		return nil, err
	}
	staged := make(map[string]string, len(writes))
	var entries []git.IndexEntry
	for i, f := range writes {
		name := f.Path
		if flat {
			name = strconv.Itoa(i)
		}
		staged[f.Path] = filepath.Join(stage, "files", filepath.FromSlash(name))
		entries = append(entries, git.IndexEntry{Mode: f.Mode, OID: f.OID, Path: name})
	}
	if err := a.Git.UpdateIndexInfo(ctx, index, entries); err != nil {
		return nil, err
	}
	if err := a.Git.CheckoutAll(ctx, index, filepath.Join(stage, "files")+"/"); err != nil {
		return nil, err
	}
	return staged, a.writeRaw(ctx, staged, writes)
}

// flatStaging reports whether files can be staged under names other than
// their paths: when git says no attribute applies to any of them, and
// none is a .gitattributes file (checkout-index would read that one from
// its temporary index and apply it to the others). git is asked with the
// temporary index checkout-index will read, not yet written, so it reads
// the attribute files checkout-index will, and not the real index, whose
// reading took 15 ms at 100,000 files.
func (a *Applier) flatStaging(ctx context.Context, index string, writes []File) (bool, error) {
	paths := make([]string, len(writes))
	for i, f := range writes {
		if path.Base(f.Path) == ".gitattributes" {
			return false, nil
		}
		paths[i] = f.Path
	}
	found, err := a.Git.AnyAttributes(ctx, index, paths)
	return !found, err
}

func depth(p string) int { return strings.Count(p, "/") }

// removeFile unlinks a file or symlink (never following it).
func removeFile(root int, rel string) error {
	fd, base, err := dirAt(root, rel, false)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	err = unix.Unlinkat(fd, base, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// removeEmptyDir removes rel if it is an empty directory; a non-empty one
// (holding ignored or new files) stays.
func removeEmptyDir(root int, rel string) {
	fd, base, err := dirAt(root, rel, false)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	unix.Unlinkat(fd, base, unix.AT_REMOVEDIR)
}

// renameInto moves a staged file to rel with one rename, after making the
// directories on its way. A directory in its place that holds nothing but
// empty directories (git sees none of them, so no checkpoint holds them)
// is removed first; one that holds anything else fails the rename.
func renameInto(root int, staged, rel string) error {
	fd, base, err := dirAt(root, rel, true)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	err = unix.Renameat(unix.AT_FDCWD, staged, fd, base)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
		if removeEmptyTree(fd, base) == nil {
			err = unix.Renameat(unix.AT_FDCWD, staged, fd, base)
		}
	}
	return err
}

// removeEmptyTree removes the directory name of dirfd when it holds only
// directories that do so in turn, deepest first, never following a
// symlink. Anything else stops it (ENOTEMPTY), with the empty directories
// below left as they were or removed.
func removeEmptyTree(dirfd int, name string) error {
	fd, err := openDir(dirfd, name)
	if err != nil {
		return err
	}
	dir := os.NewFile(uintptr(fd), name)
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return unix.ENOTEMPTY
		}
		if err := removeEmptyTree(fd, n); err != nil {
			return err
		}
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}
