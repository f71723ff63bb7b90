package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// LeftChangedDuring is a path written by someone else while the rewind
// ran, after the scan its safety checkpoint was made from: the bytes
// written then are in no checkpoint, so the rewind puts the file back as
// the writer left it (or keeps it aside, Left.Kept) instead of replacing
// it (invariant 9).
const LeftChangedDuring = "changed_during_rewind"

// A rewind never destroys what it did not capture. Every file it replaces
// or deletes leaves the tree by a rename into the staging directory (an
// exchange with the staged file, or a move for a deletion), so it is in
// hand, whole, after it left the path. It is then compared with what the
// scan found at the path (File.OldMode, OldOID, OldRaw): a write that
// landed between the scan and the rename shows there, as does a process
// that still holds the file open for writing (a log being appended to,
// whose next lines would go into a file about to be deleted). Such a file
// goes back to its path. Writes cannot reach it once it is back in hand
// with no writer holding it, so what the staging directory's removal
// deletes is exactly what the safety checkpoint holds.

// displaced says how the file at out, which a rewind took out of the tree
// at rel, is not the entry (mode, oid, raw) the scan found there, or ""
// when it is exactly that. Only content and kind count: an executable bit
// changed meanwhile is not a write.
func (a *Applier) displaced(ctx context.Context, rel, out string, mode, oid, raw string) string {
	if mode == git.AbsentMode {
		return "made while the rewind ran"
	}
	var st unix.Stat_t
	if err := unix.Lstat(out, &st); err != nil {
		return "cannot be checked: " + err.Error()
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := os.Readlink(out)
		if mode != "120000" || err != nil || gitformat.ID("blob", []byte(target), len(oid)) != oid {
			return "changed while the rewind ran"
		}
		return ""
	case unix.S_IFREG:
		if mode != "100644" && mode != "100755" {
			return "changed while the rewind ran"
		}
		return a.displacedFile(ctx, rel, out, oid, raw)
	default:
		return "replaced while the rewind ran"
	}
}

// displacedFile is displaced of a regular file. A file whose bytes are not
// its blob's is hashed by git as the path's content only where git could
// have converted it (not Plain), so that a CRLF file under autocrlf, whose
// blob holds LF, is not taken for a changed one.
func (a *Applier) displacedFile(ctx context.Context, rel, out, oid, raw string) string {
	fd, err := unix.Open(out, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "cannot be checked: " + err.Error()
	}
	f := os.NewFile(uintptr(fd), out)
	defer f.Close()
	if openForWriting(fd) {
		return "open for writing by another process"
	}
	fi, err := f.Stat()
	if err != nil {
		return "cannot be checked: " + err.Error()
	}
	got, err := gitformat.IDOf("blob", fi.Size(), f, len(oid))
	if err != nil {
		return "cannot be checked: " + err.Error()
	}
	if got == oid || raw != "" && got == raw {
		return ""
	}
	if raw == "" && !a.Plain {
		if clean, err := a.Git.HashAs(ctx, out, rel); err == nil && clean == oid {
			return ""
		}
	}
	return "changed while the rewind ran"
}

// keepWritten checks a file the rewind took out of the tree at f's path
// (out, in the staging directory) against what the plan found there, and
// when it was written meanwhile puts it back (see displaced) and leaves
// the path as changed_during_rewind. It reports whether it did. swapped
// says the file came out by an exchange with the staged one, so that
// putting it back is exchanging them again; otherwise (a deletion) the
// path is empty and it is renamed back.
func (a *Applier) keepWritten(ctx context.Context, t *tree, f File, out string, swapped bool) bool {
	if a.displaced(ctx, f.Path, out, f.OldMode, f.OldOID, f.OldRaw) == "" {
		return false
	}
	kept, err := a.putBack(ctx, t, f, out, swapped)
	if err != nil {
		kept = out
	}
	a.Left = append(a.Left, Left{Path: f.Path, Reason: LeftChangedDuring, Kept: kept})
	return true
}

// putBack returns the written file at out to f's path, and returns where
// a file is kept aside when one is: the written file itself when its path
// was taken again meanwhile, or, after an exchange back, the file that
// comes out of the path when it is no longer what the rewind staged there
// (written in the moment between the two exchanges).
func (a *Applier) putBack(ctx context.Context, t *tree, f File, out string, swapped bool) (kept string, err error) {
	fd, base, err := t.at(f.Path, false)
	if err != nil {
		return keepAside(a.Staging, out, f.Path)
	}
	if swapped && exchange(out, fd, base) == nil {
		if a.displaced(ctx, f.Path, out, f.Mode, f.OID, f.Raw) == "" {
			return "", nil
		}
		return keepAside(a.Staging, out, f.Path)
	}
	if err := renameNoReplace(out, fd, base); err != nil {
		return keepAside(a.Staging, out, f.Path)
	}
	return "", nil
}

// keepAside moves a file the staging directory's removal would delete
// beside it, into the store's kept/ directory, where nothing removes it,
// and returns its new name. It is what someone wrote during the rewind,
// held by no checkpoint, perhaps unsynced: its data and its new name are
// synced (and kept/ in the store's directory, where it was just made).
func keepAside(staging, from, rel string) (string, error) {
	dir := filepath.Join(filepath.Dir(staging), "kept")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	kept := filepath.Join(dir, fmt.Sprintf("%d-%s", time.Now().UnixNano(), filepath.Base(filepath.FromSlash(rel))))
	if err := os.Rename(from, kept); err != nil {
		return "", fmt.Errorf("cannot keep %s aside: %w", rel, err)
	}
	err := durable.SyncFiles([]string{kept}, dir)
	if err == nil {
		err = durable.SyncDirs([]string{dir, filepath.Dir(dir)}, dir)
	}
	if err != nil {
		return kept, fmt.Errorf("cannot sync %s, kept aside: %w", rel, err)
	}
	return kept, nil
}

// takeOut moves the file at rel into dir (the staging directory's out/),
// where it is in hand (see keepWritten), as the first step of deleting
// it. It returns its new name, or "" when nothing is at rel.
func takeOut(t *tree, rel, dir string, n int) (string, error) {
	fd, base, err := t.at(rel, false)
	if errors.Is(err, unix.ENOENT) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	out := filepath.Join(dir, fmt.Sprint(n))
	err = unix.Renameat(fd, base, unix.AT_FDCWD, out)
	if errors.Is(err, unix.ENOENT) {
		return "", nil
	}
	return out, err
}
