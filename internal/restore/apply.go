package restore

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	// open is the working tree as the writes walk it, until Sync syncs
	// the filesystems they reached.
	open *tree
	// Plain says a checkout of any file is its blob's bytes: no
	// attribute applies anywhere and git's configuration converts
	// nothing (capture.Capturer.Plain). Stage then writes the files
	// itself, unless one of them is a .gitattributes.
	Plain bool
	// Older says the target's blobs were all in the repository before the
	// writes the scan left aside (git.Aside): a recorded checkpoint's.
	// Staging then reads them while git writes the scan's pack.
	Older bool
}

// Staged is the target's content of a plan's files, waiting in a staging
// directory of its own to be renamed into the tree.
type Staged struct {
	dir     string
	paths   map[string]string // each path's staged file
	removed bool
}

// Remove deletes what is left of the staged files: once they are in the
// tree, the files they replaced (exchanged). A nil Staged holds nothing.
//
// The deletion is left to a process of its own (removeDetached), which
// outlives the command: freeing a file's blocks can wait on the disk (a
// file system mounted with discard trims them in the unlink), and a rewind
// waited for it after its last write (docs/speed.md, "Old files removed by
// a process of their own; the early scan started first"). The directory is
// first renamed done-*, so that the next rewind and doctor tell it from a
// killed rewind's (StaleStaging). Where that process cannot be started,
// the deletion is made here.
func (s *Staged) Remove() {
	if s == nil || s.removed {
		return
	}
	s.removed = true
	done := filepath.Join(filepath.Dir(s.dir), finishedPrefix+strings.TrimPrefix(filepath.Base(s.dir), stagingPrefix))
	if os.Rename(s.dir, done) == nil {
		if removeDetached(done) == nil {
			return
		}
		s.dir = done
	}
	os.RemoveAll(s.dir)
}

// Write makes the working tree match the plan's target for the plan's
// paths, every step in turn: Stage (which syncs the staged files), Apply,
// Sync.
func (a *Applier) Write(ctx context.Context, p *Plan, safetyID string) error {
	st, err := a.Stage(ctx, p.Files)
	defer st.Remove()
	if err != nil {
		return fault.Wrap(err, fault.FailedIO, "the rewind stopped before it changed anything")
	}
	if err := a.Apply(ctx, p, st, safetyID); err != nil {
		return err
	}
	return a.Sync()
}

// Stage writes the target content of the files to create or modify into a
// new staging directory, which the caller removes (Staged.Remove). It
// changes nothing in the tree: a rewind stages while it takes its safety
// checkpoint. The staged files must reach the disk before Apply renames
// them (a rename that outlived a power loss while its file's data did
// not would leave the path neither old nor new), so Stage syncs each
// file's data, all at once, before it returns: a rewind stages while it
// takes its safety checkpoint, so these syncs are off the path the
// checkpoint waits on. A syncfs of the filesystem instead waited for
// every other program's writes to it (durable.SyncEach).
func (a *Applier) Stage(ctx context.Context, files []File) (*Staged, error) {
	dir, err := os.MkdirTemp(a.Staging, stagingPrefix)
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot create a staging directory")
	}
	st := &Staged{dir: dir}
	end := a.Git.Phase("stage")
	st.paths, err = a.stage(ctx, dir, writesOf(files))
	end()
	if err == nil {
		err = a.syncStaged(st)
	}
	if err != nil {
		return st, noSpace(dir, err)
	}
	return st, nil
}

// writesOf is the files that are written (created or changed), not
// deleted.
func writesOf(files []File) []File {
	var writes []File
	for _, f := range files {
		if f.Mode != git.AbsentMode {
			writes = append(writes, f)
		}
	}
	return writes
}

// Apply makes the working tree match the plan's target for the plan's
// paths from the files st staged, which are on disk: what must go is
// deleted, then the staged files are renamed into place, so a crash
// leaves each path wholly old or wholly new. If writing fails, what was
// written is put back from the current tree (failed.rewind_undone) or, if
// that fails too, failed.rewind_partial is returned; a failure before
// anything was written is failed.io: the tree is as it was. The
// directories it changed reach the disk with Sync.
func (a *Applier) Apply(ctx context.Context, p *Plan, st *Staged, safetyID string) error {
	done, err := a.put(ctx, p.Files, st, "")
	a.done = done
	if err == nil {
		return nil
	}
	if len(done) == 0 {
		// The first deletion or rename failed: there is nothing to put
		// back, and saying so tells the person the tree is as it was.
		a.closeTree()
		return fault.Wrap(err, fault.FailedIO, "the rewind stopped before it changed anything")
	}
	return a.Revert(ctx, safetyID, err)
}

// Sync makes Apply's renames and deletions survive a power loss (see
// tree.sync). Until then, a file renamed into place can come back as the
// old one after the rewind was journaled as ended.
func (a *Applier) Sync() error {
	defer a.Git.Phase("sync directories")()
	defer a.closeTree()
	if err := a.open.sync(); err != nil {
		return fmt.Errorf("cannot sync the directories written: %w", err)
	}
	return nil
}

// Revert puts back what Apply wrote, after err stopped the rewind (in Apply
// itself, or in a step after it such as moving HEAD), and returns err as
// failed.rewind_undone, or failed.rewind_partial if putting back failed.
// Only what was changed goes back: a path the rewind never reached holds
// what it held, or what someone wrote there since.
func (a *Applier) Revert(ctx context.Context, safetyID string, err error) error {
	var back []File
	for _, f := range a.done {
		back = append(back, File{Path: f.Path, OldMode: f.Mode, OldOID: f.OID, Mode: f.OldMode, OID: f.OldOID, Raw: f.OldRaw, OldRaw: f.Raw, Exact: f.OldExact, OldExact: f.Exact})
	}
	if rerr := a.writeBack(ctx, back); rerr != nil {
		return fault.Wrap(err, fault.FailedRewindPartial, "the rewind failed part way and the tree could not be put back").
			WithHint("every file the rewind touched is in the safety checkpoint " + safetyID + ": run 'git rewind " + safetyID + " --force'").
			WithData(map[string]string{"safety": safetyID, "undo_error": rerr.Error()})
	}
	return fault.Wrap(err, fault.FailedRewindUndone, "the rewind failed and the tree was put back as it was").
		WithData(map[string]string{"safety": safetyID})
}

// writeBack writes files as Revert puts them back, every step in turn,
// with the failure steps' names prefixed "undo-".
func (a *Applier) writeBack(ctx context.Context, files []File) error {
	if len(files) == 0 {
		return nil
	}
	defer a.closeTree()
	st, err := a.Stage(ctx, files)
	defer st.Remove()
	if err != nil {
		return err
	}
	if _, err := a.put(ctx, files, st, "undo-"); err != nil {
		return err
	}
	return a.Sync()
}

// put deletes what must go, then renames the staged files into place. It
// returns the files it deleted or put into place, also when it fails part
// way, and notes the directories it changed for Sync.
func (a *Applier) put(ctx context.Context, files []File, st *Staged, stepPrefix string) (done []File, err error) {
	fail := func(step string) error { return a.Fail.At(stepPrefix + step) }
	if len(files) == 0 {
		return nil, nil
	}
	if err := fail("staged"); err != nil {
		return nil, err
	}
	var writes, deletes []File
	for _, f := range files {
		if f.Mode == git.AbsentMode {
			deletes = append(deletes, f)
		} else {
			writes = append(writes, f)
		}
	}
	t, err := a.tree()
	if err != nil {
		return nil, err
	}

	defer a.Git.Phase("rename")()
	// Deepest first, so a directory's files go before the directory.
	slices.SortFunc(deletes, func(x, y File) int { return depth(y.Path) - depth(x.Path) })
	emptied := map[string]bool{}
	for i, f := range deletes {
		if err := fail("delete-" + strconv.Itoa(i)); err != nil {
			return done, err
		}
		out, err := takeOut(t, f.Path, filepath.Join(st.dir, "out"), i)
		if a.inWay(err, f.Path) {
			continue
		} else if err != nil {
			return done, fmt.Errorf("cannot delete %s: %w", f.Path, err)
		}
		if out != "" && a.keepWritten(ctx, t, f, out, false) {
			continue
		}
		done = append(done, f)
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
		removeEmptyDir(t, d)
	}
	if err := fail("deleted"); err != nil {
		return done, err
	}
	slices.SortFunc(writes, func(x, y File) int { return strings.Compare(x.Path, y.Path) })
	for i, f := range writes {
		if err := fail("rename-" + strconv.Itoa(i)); err != nil {
			return done, err
		}
		swapped, err := renameInto(t, a.Staging, st.paths[f.Path], f.Path)
		if a.inWay(err, f.Path) {
			continue
		} else if filledSince(err) {
			// A directory that holds something stands where the plan
			// found none, or an empty one: made while the rewind ran.
			a.Left = append(a.Left, Left{Path: f.Path, Reason: LeftChangedDuring})
			continue
		} else if err != nil {
			return done, fmt.Errorf("cannot write %s: %w", f.Path, err)
		}
		if swapped && a.keepWritten(ctx, t, f, st.paths[f.Path], true) {
			continue
		}
		done = append(done, f)
	}
	return done, fail("renamed")
}

// tree is the working tree's directories the writes open, opened once
// for all of them (see tree) and closed by Sync.
func (a *Applier) tree() (*tree, error) {
	if a.open == nil {
		t, err := openTree(a.Top)
		if err != nil {
			return nil, err
		}
		a.open = t
	}
	return a.open, nil
}

func (a *Applier) closeTree() {
	a.open.close()
	a.open = nil
}

// syncStaged makes the staged files reach the disk; see Stage.
func (a *Applier) syncStaged(st *Staged) error {
	if len(st.paths) == 0 {
		return nil
	}
	defer a.Git.Phase("sync staged")()
	if err := durable.SyncFiles(slices.Collect(maps.Values(st.paths)), st.dir); err != nil {
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
// it made about 250, which cost several times the flat staging
// (docs/speed.md, "No watcher beside the cases, flat staging, fixed
// costs"). Otherwise each file waits under its own path,
// stage/files/<path>, where git finds the attributes that apply to it.
func (a *Applier) stage(ctx context.Context, stage string, writes []File) (map[string]string, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	if a.Plain && !writesAttributes(writes) {
		return a.stageBlobs(ctx, stage, writes)
	}
	staged, smudge, err := a.stageExact(ctx, stage, writes)
	if err != nil || len(smudge) == 0 {
		return staged, err
	}
	checked, err := a.stageCheckout(ctx, stage, smudge)
	for p, f := range checked {
		staged[p] = f
	}
	return staged, err
}

// stageExact stages the files whose bytes are their blobs' or their raw
// blobs' (File.Exact) as those bytes, whatever git's settings and
// attributes say now: what was on disk (invariant 10). It returns the
// others, to check out: files of a checkpoint made before checkpoints
// recorded the disk, and LFS pointers, which their smudge turns back
// into what was on disk.
func (a *Applier) stageExact(ctx context.Context, stage string, writes []File) (map[string]string, []File, error) {
	var exact, rest []File
	for _, f := range writes {
		if f.Exact {
			exact = append(exact, f)
		} else {
			rest = append(rest, f)
		}
	}
	staged := map[string]string{}
	if len(exact) == 0 {
		return staged, rest, nil
	}
	staged, err := a.stageBlobs(ctx, stage, exact)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range exact {
		if f.Raw == "" && f.Mode != "120000" && lfsPointer(staged[f.Path]) {
			rest = append(rest, f)
		}
	}
	return staged, rest, nil
}

// lfsPointer reports whether the file is a Git LFS pointer: small, and
// beginning with the line every pointer begins with.
func lfsPointer(file string) bool {
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1024 {
		return false
	}
	b, err := os.ReadFile(file)
	return err == nil && strings.HasPrefix(string(b), "version https://git-lfs.github.com/spec/v1\n")
}

// stageCheckout stages files through a temporary index and `git
// checkout-index`, as stage says.
func (a *Applier) stageCheckout(ctx context.Context, stage string, writes []File) (map[string]string, error) {
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
		if f.Raw != "" {
			// Its raw bytes are written instead (writeRaw): no checkout,
			// whose smudge filter may be the reason they were kept.
			continue
		}
		entries = append(entries, git.IndexEntry{Mode: f.Mode, OID: f.OID, Path: name})
	}
	if len(entries) > 0 {
		if err := a.Git.UpdateIndexInfo(ctx, index, entries); err != nil {
			return nil, err
		}
		if err := a.Git.CheckoutAll(ctx, index, filepath.Join(stage, "files")+"/"); err != nil {
			return nil, err
		}
	}
	return staged, a.writeRaw(ctx, staged, writes)
}

// stageBlobs writes the files flat from their blobs, in one cat-file
// (git.CheckoutBlobs), when a checkout of each is its blob's bytes
// (Plain). The temporary index and checkout-index were two git processes
// and check-attr a third: staging 100 files cost more in the first two
// alone than in one cat-file (docs/speed.md, "Every process counts").
func (a *Applier) stageBlobs(ctx context.Context, stage string, writes []File) (map[string]string, error) {
	dir := filepath.Join(stage, "blobs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	staged := make(map[string]string, len(writes))
	files := make([]git.BlobFile, len(writes))
	for i, f := range writes {
		staged[f.Path] = filepath.Join(dir, strconv.Itoa(i))
		files[i] = git.BlobFile{OID: f.OID, Mode: f.Mode, Path: staged[f.Path]}
	}
	if err := a.Git.CheckoutBlobs(ctx, files, a.Older); err != nil {
		return nil, err
	}
	return staged, a.writeRaw(ctx, staged, writes)
}

// writesAttributes reports whether a .gitattributes is among the files:
// checkout-index would read it from its temporary index and apply it to
// the others.
func writesAttributes(writes []File) bool {
	for _, f := range writes {
		if path.Base(f.Path) == ".gitattributes" {
			return true
		}
	}
	return false
}

// flatStaging reports whether files can be staged under names other than
// their paths: when git says no attribute applies to any of them, and none
// is a .gitattributes file (checkout-index would read that one from its
// temporary index and apply it to the others). git is asked with the
// temporary index checkout-index will read, not yet written, so it reads
// the attribute files checkout-index will, and not the real index, whose
// reading grows with the repository.
func (a *Applier) flatStaging(ctx context.Context, index string, writes []File) (bool, error) {
	if writesAttributes(writes) {
		return false, nil
	}
	paths := make([]string, len(writes))
	for i, f := range writes {
		paths[i] = f.Path
	}
	found, err := a.Git.AnyAttributes(ctx, index, paths)
	return !found, err
}

func depth(p string) int { return strings.Count(p, "/") }

// removeEmptyDir removes rel if it is an empty directory; a non-empty one
// (holding ignored or new files) stays.
func removeEmptyDir(t *tree, rel string) {
	fd, base, err := t.at(rel, false)
	if err != nil {
		return
	}
	unix.Unlinkat(fd, base, unix.AT_REMOVEDIR)
}

// renameInto moves a staged file to rel in one step, after making the
// directories on its way, and reports whether a file was at rel: it is
// then exchanged with the staged one (exchange) rather than renamed over,
// so that it comes out whole, at the staged file's name, where the caller
// checks that it is what the plan found (keepWritten). The path holds the
// old file or the new one at every moment all the same, and the old file's
// blocks are freed with the staging directory, off the path every file
// waits for, where renaming over it freed them in the rename
// (docs/speed.md, "Old files leave with the staging directory"), and after
// the rewind has returned (Staged.Remove). A path found empty is never
// renamed over (renameNoReplace): a file made there since is exchanged in
// its turn.
// A directory in its place that holds nothing but empty directories (git
// sees none of them, so no checkpoint holds them) is removed first; one
// that holds anything else fails the rename. A directory the tree held
// that was removed since (ENOENT) is walked to again, from the top:
// whatever took its place is then found, a symlink in the way included.
func renameInto(t *tree, staging, staged, rel string) (swapped bool, err error) {
	walked, made := false, 0
	for {
		fd, base, err := t.at(rel, true)
		if err != nil {
			return false, err
		}
		ok, empty, err := exchanged(staging, staged, fd, base)
		if ok {
			return err == nil, err
		}
		// Renamed over only where the exchange could not tell whether
		// the path was empty: renaming then gives the real error (a
		// directory the user cannot write, say).
		rename := renameNoReplace
		if !empty {
			rename = renameOver
		}
		err = rename(staged, fd, base)
		if errors.Is(err, unix.EEXIST) && made < 3 && !isDir(fd, base) {
			made++
			continue
		}
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			if removeEmptyTree(fd, base) == nil {
				err = rename(staged, fd, base)
			}
		}
		if errors.Is(err, unix.ENOENT) && !walked {
			walked = true
			t.release(0)
			continue
		}
		return false, err
	}
}

// filledSince reports whether renameInto failed on a directory holding
// something at the path: the plan made sure none stood there (the files
// it found in one are deleted first, an ignored one is left), so it was
// made, or filled, while the rewind ran.
func filledSince(err error) bool {
	return errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EEXIST)
}

// isDir reports whether name in dirfd is a directory, not following a
// symlink.
func isDir(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// renameOver renames from to name in dirfd, replacing a file there.
func renameOver(from string, dirfd int, name string) error {
	return unix.Renameat(unix.AT_FDCWD, from, dirfd, name)
}

// exchanged puts staged at name in dirfd by exchanging it with the file
// there, and reports whether it did, and when it did not, whether that is
// because nothing is at name (empty). What came out must be a file or a
// symlink, which the staging directory's removal unlinks: a directory
// swapped in at the path since the plan was made is exchanged back at
// once and left to the rename, which removes it only when it holds
// nothing but empty directories. Nothing at name, or a filesystem that
// cannot exchange, is left to the rename too. Should the directory not go
// back (its path taken again in between), it is kept aside (keepAside),
// out of the staging directory, whose removal would delete it, and the
// error says where.
func exchanged(staging, staged string, dirfd int, name string) (ok, empty bool, err error) {
	if err := exchange(staged, dirfd, name); err != nil {
		return false, errors.Is(err, unix.ENOENT), nil
	}
	var st unix.Stat_t
	if err := unix.Lstat(staged, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return true, false, nil
	}
	if exchange(staged, dirfd, name) == nil {
		return false, false, nil
	}
	kept, err := keepAside(staging, staged, name)
	if err != nil {
		kept = staged
	}
	return true, false, fmt.Errorf("a directory took the place of %s while it was written; it is kept at %s", name, kept)
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
