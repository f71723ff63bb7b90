package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// git writes a ref, packed-refs or an index by creating NAME.lock beside
// it, writing the new content there and renaming it into place. A git
// killed in between (SIGKILL, or SIGTERM to the process group, which is
// what an agent's hook timeout sends, to a git that is past its own
// clean-up) leaves NAME.lock, and from then on every git that writes NAME
// fails with "File exists". git never removes such a lock itself: it
// cannot know that the writer is gone.
//
// The store can, for the files only its own commands write: the refs
// under refs/checkpoints/ and the private index. Every command of ours
// that writes them holds the store lock, so a holder that finds such a
// lock knows that no command of ours is writing it, only perhaps an
// orphaned git of a command killed a moment ago, still finishing. Hence
// the two rules: a new checkpoint never waits for a lock, it takes the
// next number (NextN); a lock is removed only once it is older than
// StaleAfter (NextN, Prune, doctor --fix). The private index's lock,
// which every capture needs, is settled when the store lock is taken
// (settleIndexLocks), and so are the scratch indexes' beside it, which a
// capture needs as often: an orphaned git still writing one (its command
// was killed alone, with SIGKILL) is waited for, since it renames
// NAME.lock into place at its end, and would rename a new capture's own
// NAME.lock if that one had been removed from under it.

// StaleAfter is the age past which a lock under refs/checkpoints/ or in
// the state directory is taken for one a killed command left. git holds
// a ref's lock for the moments between writing it and renaming it, and
// an orphaned git finishes within those too: ten seconds is thousands of
// times that, and short enough that nobody waits for doctor --fix.
const StaleAfter = 10 * time.Second

// SharedStaleAfter is StaleAfter for packed-refs.lock, which every git of
// the repository takes (gc, fetch --prune, branch -d), for as long as it
// rewrites the whole packed-refs file: longer, and never ours alone.
const SharedStaleAfter = time.Minute

// LockFile is a lock file git left in the store's reach.
type LockFile struct {
	Path string // absolute
	// Age is since its mtime, by the wall clock (not Store.Now, which a
	// test may fix): the filesystem dates files by the wall clock.
	Age time.Duration
	// Shared marks packed-refs.lock, which any git of the repository
	// takes, not only ours.
	Shared bool
}

// Stale reports whether the lock is old enough that nothing can still be
// writing it.
func (l LockFile) Stale() bool {
	if l.Shared {
		return l.Age > SharedStaleAfter
	}
	return l.Age > StaleAfter
}

// PrivateIndex is the private index captures write (DESIGN 4), in the
// state directory.
func (s *Store) PrivateIndex() string { return s.Path("index") }

// The scratch indexes commands of ours have git write beside the private
// one, each made anew under the store lock: the raw overlay's tree
// (RawIndex), the files a partial capture has git hash (PartialIndex),
// the copy of the real index a seed cleans before it becomes the private
// one (SeedIndex), and the copy of the real index whose tree a rewind
// with --reset-head keeps (ResetIndex).
func (s *Store) RawIndex() string     { return s.Path("rawindex") }
func (s *Store) PartialIndex() string { return s.Path("partial-index") }
func (s *Store) SeedIndex() string    { return s.Path("index.seed") }
func (s *Store) ResetIndex() string   { return s.Path("index.before-reset") }

// indexes are the indexes only commands of ours write, under the store
// lock: a lock beside one is a killed command's (settleIndexLocks).
func (s *Store) indexes() []string {
	return []string{s.PrivateIndex(), s.RawIndex(), s.PartialIndex(), s.SeedIndex(), s.ResetIndex()}
}

// refLock is the lock file git makes to write checkpoint n's ref (the
// files backend's: a loose ref's path with ".lock").
func (s *Store) refLock(n int) string { return s.lockOf(s.Ref(n)) }

// lockOf is the lock file git makes to write ref.
func (s *Store) lockOf(ref string) string {
	return filepath.Join(s.CommonDir, filepath.FromSlash(ref)+".lock")
}

// NextN returns the number of a new checkpoint: one above every
// recorded one, passing over a number whose ref lock a killed command
// left (its ref cannot be made until the lock goes), unless that lock is
// stale, which it then removes. A number passed over is never used: if
// an orphaned git was still making that ref, the next command adopts it
// (Adopt). The caller holds the lock.
func (s *Store) NextN(j *Journal) int {
	n := j.MaxN() + 1
	for s.CommonDir != "" && !s.refLockGone(n) {
		n++
	}
	return n
}

// lockAge is the age of a lock file, by the wall clock (the filesystem
// dates files by it, not by Store.Now, which a test may fix), at
// LocksAt when it is set.
func (s *Store) lockAge(fi fs.FileInfo) time.Duration {
	at := s.LocksAt
	if at.IsZero() {
		at = time.Now()
	}
	return at.Sub(fi.ModTime())
}

// refLocks are the locks that stop a deletion of ref: its own, and
// packed-refs.lock, which git takes to delete any ref.
func (s *Store) refLocks(ref string) []LockFile {
	return []LockFile{{Path: s.lockOf(ref)}, {Path: s.packedRefsLock(), Shared: true}}
}

// RefLocked reports whether checkpoint n's ref cannot be deleted yet for
// a young lock (refLocks), which a git may still hold (a stale one does
// not count: the next writer removes it). It removes nothing.
func (s *Store) RefLocked(n int) bool {
	if s.CommonDir == "" {
		return false
	}
	for _, l := range s.refLocks(s.Ref(n)) {
		if fi, err := os.Lstat(l.Path); err == nil {
			l.Age = s.lockAge(fi)
			if !l.Stale() {
				return true
			}
		}
	}
	return false
}

// refDeletable reports whether ref can be deleted now: none of its
// refLocks is there, stale ones being removed first. Every prune asks it
// of each ref it would delete (Prune, FinishPrune, pruneOrphans): one
// locked ref would fail the whole transaction.
func (s *Store) refDeletable(ref string) bool {
	if s.CommonDir == "" {
		return true
	}
	for _, l := range s.refLocks(ref) {
		if !s.lockGone(l.Path, l.Shared) {
			return false
		}
	}
	return true
}

// packedRefsLock is the repository's packed-refs.lock.
func (s *Store) packedRefsLock() string { return filepath.Join(s.CommonDir, "packed-refs.lock") }

// refLockGone reports whether checkpoint n's ref has no lock (any more):
// there was none, or it was stale and is now removed.
func (s *Store) refLockGone(n int) bool { return s.lockGone(s.refLock(n), false) }

// lockGone reports whether the lock file path is absent, removing it
// first when it is stale.
func (s *Store) lockGone(path string, shared bool) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return os.IsNotExist(err)
	}
	l := LockFile{Path: path, Age: s.lockAge(fi), Shared: shared}
	return l.Stale() && os.Remove(path) == nil
}

// Locks lists the lock files a killed command can leave where the store
// writes: under refs/checkpoints/ (every store's, including fetched
// ones), the state directory's (the private index's), and the
// repository's packed-refs.lock, which deleting a packed checkpoint ref
// takes. Young ones are listed too: a caller decides with Stale.
func (s *Store) Locks() []LockFile {
	var out []LockFile
	add := func(path string, fi fs.FileInfo, shared bool) {
		out = append(out, LockFile{Path: path, Age: s.lockAge(fi), Shared: shared})
	}
	if s.CommonDir != "" {
		filepath.WalkDir(filepath.Join(s.CommonDir, "refs", "checkpoints"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
				if fi, err := d.Info(); err == nil {
					add(path, fi, false)
				}
			}
			return nil
		})
		path := s.packedRefsLock()
		if fi, err := os.Lstat(path); err == nil {
			add(path, fi, true)
		}
	}
	if entries, err := os.ReadDir(s.Dir); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".lock") && e.Type().IsRegular() {
				if fi, err := e.Info(); err == nil {
					add(filepath.Join(s.Dir, e.Name()), fi, false)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b LockFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// RemoveStaleLocks removes the stale ones of Locks, and returns them. The
// caller holds the lock.
func (s *Store) RemoveStaleLocks() ([]LockFile, error) {
	var removed []LockFile
	for _, l := range s.Locks() {
		if !l.Stale() {
			continue
		}
		if err := os.Remove(l.Path); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		removed = append(removed, l)
	}
	return removed, nil
}

// settleIndexLocks removes the locks beside the indexes only our
// commands write (indexes), which a killed capture left, once nothing has
// them open: a git still writing one (an orphan of a command killed
// alone) is waited for, up to a minute in all. Where open files cannot
// be seen (not Linux), it waits until a lock is StaleAfter old, which
// only a command killed there pays. The caller has just taken the store
// lock.
func (s *Store) settleIndexLocks() {
	deadline := time.Now().Add(SharedStaleAfter)
	for _, index := range s.indexes() {
		path := index + ".lock"
		for {
			fi, err := os.Lstat(path)
			if err != nil {
				break // none, or the orphan finished and renamed it
			}
			open, known := openBySome(path)
			if (known && !open) || (!known && time.Since(fi.ModTime()) > StaleAfter) || time.Now().After(deadline) {
				os.Remove(path)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
