package git

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Written keeps, from one sync to the next, the directories of the
// repository whose entries git or the tool changed: a loose object's, a
// pack's, a ref's. Their files' data is synced before they are named
// (the pinned core.fsync, writeTemp); a name is durable once its
// directory is synced. So a checkpoint syncs those directories before
// the journal line that records it (Take, store.SyncRefs), not the whole
// filesystem: a syncfs writes out every program's data on the disk, and
// beside a build writing to it a per-tool hook's syncfs took 50 to 800
// ms where the fsyncs of its four directories took under 1 ms
// (docs/fault-safety.md, "Power loss").
//
// A write it cannot name makes the next sync a syncfs: a git command
// that may write objects whose ids it does not print (write-tree,
// update-index adding files, a repack), an object directory it does not
// know (Runner.Objects empty: shared, or moved by the environment), a
// ref git did not keep as a file of its own (packed, reftable), a
// deletion (which may rewrite packed-refs).
type Written struct {
	common  string // the repository's shared git directory, which holds refs/
	objects string // its object directory, "" when not known
	mark    string // the file that says a writer has not synced (Begin)

	mu        sync.Mutex
	dirs      map[string]int  // directory: its turn (objectsFirst, refsAfter)
	files     map[string]bool // loose objects whose data another git may have left unsynced (Have)
	anywhere  string          // why a write was not named, the first reason
	held      bool            // this process holds the store lock (Hold)
	inflight  int             // writes begun and not yet done
	marked    bool            // this process made the mark
	inherited bool            // the mark was there, made by a writer that never synced
	owed      bool            // a sync under way is to remove the mark (Take, Synced)
}

// NewWritten keeps the writes into the repository whose shared git
// directory is common and whose object directory is objects ("" when
// it is not known: see ObjectDir). mark is the file in the state
// directory that says a writer has not synced yet.
func NewWritten(common, objects, mark string) *Written {
	return &Written{common: common, objects: objects, mark: mark}
}

// Hold says this process took the store lock, under which writers take
// turns: only then does a write leave the mark (Begin), and only then is
// it removed (Synced, Release). A push or a fetch writes without the
// lock and syncs nothing of its own, as before Written; a hook hashes
// its files before the lock, a write the capture's sync then covers
// whole.
func (w *Written) Hold() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.held = true
	w.mu.Unlock()
}

// Begin is called before a write into the repository, and the function
// it returns once the write is done (noted, when its caller names it).
//
// A sync of this process's directories covers what it wrote, not what a
// process killed before its own sync left in the page cache: the
// objects and the private index's state that the next capture builds on
// (capture's indexState), whose names a power loss could still take. So
// a writer that holds the store lock leaves a mark, unsynced (it must
// outlive a killed process, not a power loss, which takes the unsynced
// writes with it), which its sync removes; a writer that finds another's
// mark syncs the filesystem, as every sync did before Written.
func (w *Written) Begin() (done func()) {
	if w == nil {
		return func() {}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inflight++
	done = func() {
		w.mu.Lock()
		w.inflight--
		w.mu.Unlock()
	}
	if !w.held {
		return done
	}
	if _, err := os.Lstat(w.mark); err == nil {
		w.inherited = w.inherited || !w.marked
		return done
	}
	f, err := os.OpenFile(w.mark, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil { // no state directory yet, or none writable
		if w.anywhere == "" {
			w.anywhere = "no mark could be left before writing"
		}
		return done
	}
	f.Close()
	w.marked = true
	return done
}

// Release, as the store lock is let go, removes this process's mark if
// everything it wrote was synced; otherwise the next writer finds it.
func (w *Written) Release() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unmark(w.marked)
	w.held = false
}

// settled reports that nothing written waits for a sync, and no write is
// under way. w.mu is held.
func (w *Written) settled() bool {
	return w.inflight == 0 && len(w.dirs) == 0 && len(w.files) == 0 && w.anywhere == "" && !w.inherited
}

// OnlyNamed reports whether writes wait for their sync, all of them named.
func (w *Written) OnlyNamed() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirs)+len(w.files) > 0 && w.anywhere == "" && !w.inherited
}

// Take hands over what a sync is to make durable, and forgets it: the
// data of loose objects another git may have written (files) and the
// directories whose entries changed, in turns (the objects', then the
// refs'); or, where the caller says why (it wrote files unsynced), a
// write could not be named, or an earlier run's mark was found, why the
// filesystem must be synced instead. The caller syncs, then says Synced;
// a nil Written knows nothing, and asks for the filesystem.
func (w *Written) Take(why string) (files []string, turns [][]string, whole string) {
	if w == nil {
		return nil, nil, "nothing was noted"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case why != "":
		whole = why
	case w.inherited:
		whole = "a run before this one stopped before its sync"
	default:
		whole = w.anywhere
	}
	if whole == "" {
		files = slices.Sorted(maps.Keys(w.files))
		turns = make([][]string, refsAfter+1)
		for d, t := range w.dirs {
			turns[t] = append(turns[t], d)
		}
	}
	w.owed = w.owed || w.marked || w.inherited
	w.dirs, w.files, w.anywhere, w.inherited = nil, nil, "", false
	return files, turns, whole
}

// Synced says the sync of what Take handed over is done: the mark goes,
// unless something was written since or is being written. A sync that
// failed is Anywhere instead, so that the next one syncs the filesystem.
func (w *Written) Synced() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unmark(false)
}

// unmark removes the mark when nothing written waits for a sync and the
// mark is this run's to remove: a sync took it over (owed), or, as the
// lock is let go, this run made it (mine). w.mu is held.
func (w *Written) unmark(mine bool) {
	if (w.owed || mine) && w.settled() {
		os.Remove(w.mark)
		w.marked, w.owed = false, false
	}
}

// A ref's directory is synced after its objects' directories: a crash
// between the two then leaves at most objects no ref names, never a ref
// naming objects that are gone (git fsck: "invalid sha1 pointer";
// TestPowerLoss found it with all of them synced at once).
const (
	objectsFirst = iota
	refsAfter
)

// Anywhere says something was written where Written cannot name it, and
// why.
func (w *Written) Anywhere(why string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.anywhere == "" {
		w.anywhere = why
	}
}

// Loose records loose objects of these ids that this process's git wrote
// (and synced): their directories (objects/xx) and the object directory,
// which holds objects/xx if git just made it.
func (w *Written) Loose(ids ...string) {
	w.loose(false, ids)
}

// Have records loose objects of these ids that may have been there
// already: git writes no object it has, and one another git wrote may
// not be synced (the person's git syncs none by default), so their data
// is synced too.
func (w *Written) Have(ids ...string) {
	w.loose(true, ids)
}

func (w *Written) loose(data bool, ids []string) {
	if w == nil || len(ids) == 0 {
		return
	}
	if w.objects == "" {
		w.Anywhere("the object directory is not the repository's own")
		return
	}
	dirs := []string{w.objects}
	var files []string
	for _, id := range ids {
		if len(id) < 3 {
			w.Anywhere("an object without its id")
			return
		}
		// Where git had all of one directory's objects in a pack, that
		// directory may not exist.
		d := filepath.Join(w.objects, id[:2])
		if _, err := os.Lstat(d); err != nil {
			continue
		}
		dirs = append(dirs, d)
		if !data {
			continue
		}
		if f := filepath.Join(d, id[2:]); isFile(f) {
			files = append(files, f)
		}
	}
	w.add(objectsFirst, dirs...)
	if len(files) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = map[string]bool{}
	}
	for _, f := range files {
		w.files[f] = true
	}
}

func isFile(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// Pack records a pack and its index put in objects/pack.
func (w *Written) Pack() {
	if w == nil {
		return
	}
	if w.objects == "" {
		w.Anywhere("the object directory is not the repository's own")
		return
	}
	w.add(objectsFirst, filepath.Join(w.objects, "pack"))
}

// Refs records refs made or moved: for each, the directories from its
// file's up to refs/ (git makes the missing ones). A ref under
// refs/checkpoints/ only, the refs this tool writes: HEAD and a branch
// may be per worktree, and are not on the path of a hook. A ref whose
// file is not there after git wrote it is kept elsewhere by git
// (packed-refs, reftable): its write is not named.
func (w *Written) Refs(names ...string) {
	if w == nil {
		return
	}
	for _, name := range names {
		if w.common == "" || !strings.HasPrefix(name, "refs/checkpoints/") {
			w.Anywhere(name + " is not a checkpoint's ref")
			return
		}
		file := filepath.Join(w.common, filepath.FromSlash(name))
		if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
			w.Anywhere("git keeps " + name + " in no file of its own")
			return
		}
		top := filepath.Join(w.common, "refs")
		var dirs []string
		for d := filepath.Dir(file); ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if d == top || len(d) <= len(top) {
				break
			}
		}
		w.add(refsAfter, dirs...)
	}
}

func (w *Written) add(turn int, dirs ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs == nil {
		w.dirs = map[string]int{}
	}
	for _, d := range dirs {
		w.dirs[d] = turn
	}
}

// pending returns the directories to sync, sorted, and why a write was
// not named ("" when all were); for tests.
func (w *Written) pending() ([]string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirs := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs, w.anywhere
}

// readers are the git commands that write nothing a checkpoint names:
// they read objects and refs, and at most rewrite an index (git syncs
// it, and a torn or old private index is never trusted: see
// capture/index.go) or the configuration. Any other command begins a
// write (Begin), and, run without Cmd.Named, makes the next sync a
// syncfs.
var readers = map[string]bool{
	"cat-file": true, "check-attr": true, "check-ignore": true, "config": true,
	"count-objects": true, "diff": true, "diff-files": true, "diff-index": true,
	"diff-tree": true, "for-each-ref": true, "ls-files": true, "ls-remote": true,
	"ls-tree": true, "merge-base": true, "rev-list": true, "rev-parse": true,
	"show-ref": true, "status": true, "var": true, "version": true, "--exec-path": true,
}

// writes reports whether c may write into the repository: it is not one
// of the readers, and not writing into an object directory of the
// caller's (ScratchObjects).
func (r *Runner) writes(c Cmd) bool {
	if r.scratch || len(c.Args) == 0 || readers[c.Args[0]] {
		return false
	}
	return c.Args[0] != "hash-object" || slices.Contains(c.Args, "-w")
}
