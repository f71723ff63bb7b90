// Package capture snapshots a working tree into a git tree through a
// private index, and records it as a checkpoint commit and ref. It never
// reads the real index except to copy it, and never writes it.
package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Capturer snapshots one working tree.
type Capturer struct {
	Repo  *git.Repo
	Store *store.Store
	Git   *git.Runner
	Cfg   config.Config
	// Fail is the command's test-only failure injection: a capture has
	// the step "indexed", once the private index holds a scan's changes,
	// before their tree is written and the state saved.
	Fail fault.Failpoints
	// splitAt overrides splitIndexSize; the tests set it to scan small
	// trees both ways.
	splitAt int64
	// sysAttrs overrides systemAttributesFiles for the tests.
	sysAttrs []string
	// started, when set, is told once the scan's git has started
	// (git.Cmd.Started): an early scan's command goes on only then.
	started func()
	// group, while CaptureGroup runs, collects the objects and refs its
	// captures write, to write them all at once.
	group *group
	// WriteAside lets a scan return before its pack and its state are
	// written (Git.Aside, when set): a rewind plans and stages meanwhile.
	// Commit waits for them, as does every git process but those that
	// read only older objects.
	WriteAside bool
	// Seal, beside WriteAside, says which checkpoint the scan's snapshot
	// of a tree is about to become (a rewind's safety checkpoint), so
	// that the scan makes its commit and writes it in its pack (seal.go);
	// false when it cannot say.
	Seal func(tree string) (Options, bool)
	// SealNext, beside Seal, says which checkpoint follows the sealed
	// one, of which tree (a rewind's checkpoint after it, of its target's
	// tree): the scan makes its commit too, in the same pack, for
	// SealAhead to take; false when it cannot say.
	SealNext func(tree string) (next string, opts Options, ok bool)
	// sealed is the commit the last scan made for Seal, which the next
	// Commit takes if it is the one it would make.
	sealed *sealedCommit
	// next is the commit the last scan made for SealNext, which SealAhead
	// takes if it is the one it would make.
	next *sealedCommit
	// state is the private index state this process saved aside, which
	// loadState reads while the file is still being written.
	state []byte
	// Early, when set, is the scan begun before discovery (StartEarly),
	// which the first Snapshot takes instead of scanning.
	Early *Early
	// ignored is what the last scan listed as ignored, when listed: a
	// whole scan without a monitor, whose record the next capture's stat
	// check reads (statcheck.go).
	ignored []string
	listed  bool
	// real is the real index as sameEntries last read it, which a seed
	// in the same capture takes while the file is still that one
	// (readRealOnce).
	real *realIndex
}

// Snapshot is the state of the working tree as a git tree, before it is
// recorded as a checkpoint.
type Snapshot struct {
	Tree       string
	Skipped    []store.Skip
	Submodules []store.Submodule
	// Changes counts what changed against the previous checkpoint. The
	// scan tells it (Known) when the private index last held exactly that
	// checkpoint's tree; otherwise Record compares the two trees.
	Changes store.Changes
	Known   bool
	// Raw is the overlay tree of files kept byte for byte (raw.go), or "".
	Raw string
	// Partial is set when only some paths were brought up to date
	// (SnapshotPaths); every other path is as the newest checkpoint has it.
	Partial bool
}

// Snapshot scans the working tree and returns its tree. Objects are written
// to the repository; no ref and no journal line are. The caller holds the
// store lock, because the private index is shared state.
//
// A snapshot is no checkpoint anyone asked for: new untracked files over
// checkpoint.maxTotalBytes are left out of it, listed as skipped (budget).
func (c *Capturer) Snapshot(ctx context.Context, j *store.Journal) (snap *Snapshot, err error) {
	return c.snapshot(ctx, j, budget{})
}

// snapshot is Snapshot under the budget b.
func (c *Capturer) snapshot(ctx context.Context, j *store.Journal, b budget) (snap *Snapshot, err error) {
	defer func() {
		if err == nil {
			c.sealWritten(ctx, j, snap)
		}
	}()
	if err := c.Store.Init(); err != nil {
		return nil, err
	}
	// An index.lock a killed run left beside the private index went
	// when the store lock was taken (store.Store.Lock).
	c.sealed, c.next = nil, nil // commits sealed by an earlier scan are not this one's
	st := c.loadState()
	if snap, ok := c.unchanged(ctx, st, j); ok {
		return snap, nil
	}
	// rawBase is the tree the raw overlay was last examined for (the last
	// capture's), which a re-seed forgets: the files whose blobs differ
	// from it are examined again (raw.go).
	rawBase := st.Tree
	if st.Result != "" {
		rawBase = st.Result
	}
	st.Monitor, st.Stat = nil, nil // until this scan gives a token, or a record
	seeded := false
	if c.needsSeed(st) {
		var err error
		if seeded, err = c.seedAfterEarly(ctx, st); err != nil {
			return nil, err
		}
	}
	entries, unopened, err := c.scan(ctx)
	if err != nil {
		return nil, err
	}
	var ignoredNow []string
	if !seeded && c.ignoreRulesChanged(st, entries) {
		// A changed .gitignore can make a file captured earlier, which the
		// real index does not track, ignored now: it leaves the private
		// index (ignored.go). Where the indexes are not read here, a
		// re-seed drops it, and a second scan finds the rest.
		var ok bool
		if ignoredNow, ok, err = c.ignoredNow(ctx, st, nil); err != nil {
			return nil, err
		}
		if ok {
			entries = slices.DeleteFunc(entries, func(e entry) bool {
				_, found := slices.BinarySearch(ignoredNow, e.path)
				return found
			})
		} else {
			if _, err := c.seed(ctx, st, true); err != nil {
				return nil, err
			}
			seeded = true
			if entries, unopened, err = c.status(ctx); err != nil {
				return nil, err
			}
		}
	}
	back, err := c.returned(ctx, st, entries)
	if err != nil {
		return nil, err
	}
	entries = append(entries, back...)
	snap = &Snapshot{Skipped: st.skipped()}
	snap.Skipped = append(snap.Skipped, unopened...)
	if last := j.Latest(); last != nil {
		b.newest = last.Tree
	}
	sel, err := c.selectUpdates(ctx, entries, snap, st, b)
	if err != nil {
		return nil, err
	}
	for _, p := range ignoredNow {
		// The file may still be there: update-index would keep it.
		sel.removals = append(sel.removals, p)
		if _, ok := st.Gitlinks[p]; ok {
			sel.gitlinks[p] = ""
		}
		snap.Changes.Deleted++
	}
	c.listUnsupported(st, snap)
	// prevTree is the tree of the last capture: the private index's, or
	// the one taken from it and the pending records (pending.go).
	prevTree, hadPending := st.Tree, len(st.Pending) > 0
	if st.Result != "" {
		prevTree = st.Result
	}
	// An attributes file this scan found counts already, though the
	// state learns of it only below: git may convert what it governs.
	attrDirs := attributesDirs(entries)
	deferred, attrs := false, len(attrDirs) > 0
	may := c.mayConvert(st) || attrs
	// Changed rules of conversion have the files they govern stored
	// again (renormalize.go).
	rules := c.rulesSeen()
	renorm := renormalizeScope(st, attrDirs, rules)
	var renormalized []string
	switch {
	case len(sel.updates) == 0 && len(sel.removals) == 0 && !seeded && st.Tree != "" && len(renorm) == 0:
		// Nothing differs from the private index (pending paths went back
		// to its version): skip update-index and write-tree entirely.
		snap.Tree = st.Tree
	case !seeded && !attrs && len(renorm) == 0 && mayDefer(st, sel, back):
		if deferred, err = c.deferUpdates(ctx, j, st, sel.updates, snap, may); err != nil {
			return nil, err
		}
	}
	if snap.Tree == "" {
		if err := c.update(ctx, st, sel); err != nil {
			return nil, err
		}
		if renormalized, err = c.renormalize(ctx, renorm); err != nil {
			return nil, err
		}
		if err := c.Fail.At("indexed"); err != nil {
			return nil, err
		}
		if snap.Tree, err = c.writeTree(ctx); err != nil {
			return nil, err
		}
	}
	if attrs && !st.Attrs {
		st.Attrs = c.convertsAny(attrDirs)
	}
	st.Rules = rules
	if may && !deferred {
		changed := append(append(sel.updates, sel.removals...), renormalized...)
		if err := c.examineChanged(ctx, st, rawBase, snap.Tree, seeded, changed); err != nil {
			return nil, err
		}
	}
	if snap.Raw, err = c.rawTree(ctx, st); err != nil {
		return nil, err
	}
	last := j.Latest()
	if deferred {
		snap.Known = snap.Known && last != nil && prevTree == last.Tree
	} else {
		// The scan counted against the private index: right unless paths
		// were pending against it.
		snap.Known = last != nil && !seeded && prevTree == last.Tree && !hadPending
		st.Tree, st.Result, st.Pending = snap.Tree, "", nil
	}
	for p, commit := range sel.gitlinks {
		if st.Gitlinks == nil {
			st.Gitlinks = map[string]string{}
		}
		if commit == "" {
			delete(st.Gitlinks, p)
		} else {
			st.Gitlinks[p] = commit
		}
	}
	for p, commit := range st.Gitlinks {
		snap.Submodules = append(snap.Submodules, store.Submodule{Path: p, Commit: commit})
	}
	slices.SortFunc(snap.Submodules, func(a, b store.Submodule) int { return strings.Compare(a.Path, b.Path) })
	slices.SortStableFunc(snap.Skipped, func(a, b store.Skip) int { return strings.Compare(a.Path, b.Path) })
	if token := c.scanToken(); token != "" && c.Git.Fsmonitor != nil {
		st.Monitor = &monitorState{Token: token, Tree: snap.Tree, Skipped: snap.Skipped, Rules: c.monitorRules(), Hook: c.Git.Fsmonitor.Hook}
	}
	st.Stat = c.recordStat(st, snap)
	if err := c.saveState(st); err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot save the private index state")
	}
	return snap, nil
}

// update brings a scan's selection into the private index. The state is
// first saved as not knowing the private index's tree (see forget).
func (c *Capturer) update(ctx context.Context, st *indexState, sel *selection) error {
	if err := c.forget(st); err != nil {
		return err
	}
	if len(sel.removals) > 0 {
		// --force-remove: see selection.removals. Rare, so the usual
		// capture stays one update-index.
		if _, err := c.Git.Run(ctx, git.Cmd{
			Args:  []string{"update-index", "-z", "--force-remove", "--stdin"},
			Index: c.PrivateIndex(), Stdin: nulList(sel.removals),
		}); err != nil {
			return err
		}
	}
	// A file git refuses to add is stored as it is (addPaths).
	return c.addPaths(ctx, c.Git, c.PrivateIndex(), []string{"update-index", "--add", "--remove", "--replace"}, sel.updates)
}

func (c *Capturer) writeTree(ctx context.Context) (string, error) {
	if _, err := os.Stat(c.PrivateIndex()); err != nil {
		// An empty private index: git would create it; the empty tree is
		// what an empty working tree is.
		return c.Git.WriteEmptyTree(ctx)
	}
	return c.Git.WriteTree(ctx, c.PrivateIndex())
}

// entry is one line of `git status --porcelain=v2 -z` against the private
// index: a path whose working-tree state differs from what the private
// index holds.
type entry struct {
	kind byte   // '1' changed, 'u' unmerged, '?' untracked
	y    byte   // worktree status for '1': M, T, D, A
	sub  string // submodule field: "N..." or "S<c><m><u>"
	path string
}

// status runs one scan of the whole tree, as two git processes at once:
// `git diff --raw` for the tracked paths and `git ls-files --others
// --exclude-standard` for the untracked ones, the same directory walk with
// the same excludes that `status --untracked-files=all` makes (nested
// repositories too, as "dir/"). git status would walk the untracked files
// itself, after the tracked ones and on one core; two processes overlap
// the two halves, for the price of reading the index twice. Against the
// private index, the untracked files are those never captured.
//
// The tracked half is what `status --untracked-files=no` reports of the
// work tree, without its comparison of the private index with HEAD, which
// a capture never reads (docs/speed.md, "The scan's tracked half"). It is
// the porcelain `git diff`, not diff-files, because only the porcelain
// does what status does with a file whose stat data changed and whose
// content did not (diff.autoRefreshIndex): it compares the content, leaves
// the file out, and writes the refreshed stat data to the private index,
// where diff-files would list it as changed at every scan. The options
// keep the user's diff configuration out of it: no renames, paths from the
// top (diff.relative), no external or textconv driver.
// --ignore-submodules=dirty still reports a submodule whose commit moved,
// which is all a checkpoint records of it (a gitlink); "none" would also
// run a status inside every submodule to report changes that are dropped.
//
// It also returns the directories the walk could not open (git warns and
// goes on), which the checkpoint lists as skipped.
//
// With a file system monitor (checkpoint.fsmonitor) it is one `git status
// --untracked-files=all` instead: the monitor spares the lstat of every
// tracked file, and the untracked cache the private index keeps spares the
// walk of every directory the monitor says did not change, which is what
// makes a scan of an unchanged tree cheap. Splitting it would walk every
// directory in ls-files, which has no cache.
//
// A small tree is scanned by one `git status --untracked-files=all` too:
// below splitIndexSize the second process (a start and a second read of
// the index) costs more than overlapping two short halves saves, and on
// one core nothing overlaps.
func (c *Capturer) status(ctx context.Context) ([]entry, []store.Skip, error) {
	c.ignored, c.listed = nil, false
	if c.Git.Fsmonitor != nil {
		return c.monitoredStatus(ctx)
	}
	if !c.splitScan() {
		return c.wholeStatus(ctx, nil, nil, true)
	}
	var others []byte
	var othersErr error
	var warnings bytes.Buffer
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		others, othersErr = c.Git.Run(ctx, git.Cmd{
			Args:  []string{"ls-files", "-z", "--others", "--exclude-standard"},
			Index: c.PrivateIndex(), Warnings: &warnings,
		})
	}()
	out, err := c.Git.Run(ctx, git.Cmd{
		Args: []string{"diff", "--raw", "-z", "--no-renames", "--ignore-submodules=dirty",
			"--no-relative", "--no-ext-diff", "--no-textconv"},
		Config:  []string{"diff.autoRefreshIndex=true"},
		Index:   c.PrivateIndex(),
		Started: c.started,
		// The walk, on one thread, takes longest: the diff's threads
		// give way to it (git.YieldNice).
		Yield: true,
	})
	<-walked
	if err != nil {
		return nil, nil, err
	}
	if othersErr != nil {
		return nil, nil, othersErr
	}
	entries, err := parseDiffRaw(out)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range strings.Split(string(others), "\x00") {
		if p != "" {
			entries = append(entries, entry{kind: '?', y: 'A', path: p})
		}
	}
	return entries, c.unopened(warnings.String()), nil
}

// splitIndexSize is the size of a private index (about 5,000 files) from
// which the scan's two halves run as two processes. Measured on two cores,
// one process is faster at 1,000 files and two are faster at 10,000
// (docs/speed.md, "Tracked and untracked files scanned at once").
const splitIndexSize = 512 << 10

// splitScan reports whether the scan runs as two processes at once. A
// capture that may leave a record for the stat check (recordStat: not a
// rewind's) scans whole below statCheckIndexSize, since only `git status`
// lists what is ignored; the split would save it little at 10,000 files,
// where the record spares the next capture of an unchanged tree its whole
// scan.
func (c *Capturer) splitScan() bool {
	if runtime.NumCPU() < 2 {
		return false
	}
	at := int64(splitIndexSize)
	if !c.WriteAside {
		at = statCheckIndexSize
	}
	if c.splitAt != 0 {
		at = c.splitAt
	}
	fi, err := os.Stat(c.PrivateIndex())
	return err == nil && fi.Size() >= at
}

// monitoredStatus is status with a file system monitor, whose untracked
// cache is checked for the one answer git does not check (cacheMisled):
// a scan it misled runs again without the cache, which drops it; the
// next scan makes it anew.
func (c *Capturer) monitoredStatus(ctx context.Context) ([]entry, []store.Skip, error) {
	entries, unopened, err := c.wholeStatus(ctx, git.ScanConfig(), c.monitorEnv(), false)
	if err == nil && c.cacheMisled(entries) {
		entries, unopened, err = c.wholeStatus(ctx, append(git.ScanConfig(), "core.untrackedCache=false"), c.monitorEnv(), false)
	}
	return entries, unopened, err
}

// cacheMisled reports whether the untracked cache may have told the walk
// something stale about a nested repository. git decides that a
// directory is one (and lists it as "dir/", without entering it) when it
// reads the directory's parent, and keeps that decision in the parent's
// cached listing; a `git init` in the directory, or the removal of its
// .git, changes the directory but not its parent, so the walk then
// enters a new nested repository and lists its files, or passes over a
// directory that is no longer one, and captures nothing in it
// (docs/decisions.md). So an untracked path below a directory holding a
// .git, or a "dir/" without one, sends the scan round again without the
// cache. (The first can also be a nested repository the private index
// tracks files of, which git enters with or without the cache: then the
// scan runs twice, and finds the same.)
func (c *Capturer) cacheMisled(entries []entry) bool {
	nested := map[string]bool{}
	isNested := func(dir string) bool {
		n, ok := nested[dir]
		if !ok {
			_, err := os.Lstat(filepath.Join(c.Repo.Top, dir, ".git"))
			n = err == nil
			nested[dir] = n
		}
		return n
	}
	for _, e := range entries {
		if e.kind != '?' {
			continue
		}
		if dir, ok := strings.CutSuffix(e.path, "/"); ok {
			if !isNested(dir) {
				return true
			}
			continue
		}
		for d := parentOf(e.path); d != ""; d = parentOf(d) {
			if isNested(d) {
				return true
			}
		}
	}
	return false
}

// wholeStatus is the scan as one `git status --untracked-files=all`.
// With list, it also lists what is ignored, for the stat check's record
// (c.ignored): `--ignored=matching` names an ignored directory without
// entering it, as the walk does not, and costs the walk nothing
// measurable.
func (c *Capturer) wholeStatus(ctx context.Context, config, env []string, list bool) ([]entry, []store.Skip, error) {
	var warnings bytes.Buffer
	args := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--no-renames", "--ignore-submodules=dirty"}
	if list {
		args = append(args, "--ignored=matching")
	}
	out, err := c.Git.Run(ctx, git.Cmd{
		Args:   args,
		Config: config, Index: c.PrivateIndex(), Warnings: &warnings, Env: env,
		Started: c.started,
	})
	if err != nil {
		return nil, nil, err
	}
	entries, ignored := parseStatus(out)
	if list {
		c.ignored, c.listed = ignored, true
	}
	return entries, c.unopened(warnings.String()), nil
}

// maxDropped bounds the paths kept in indexState.Dropped, the newest
// ones. A re-seed (the real index changed) empties the list; it cannot be
// the answer to a long list, since the tracked files deleted are dropped
// again by the scan after it, and every capture would seed. Past the bound
// a tracked file that matches an ignore rule, among more than this many
// deleted paths, is taken back at the next re-seed only.
const maxDropped = 1000

// isBack reports whether a path captures dropped is on disk again as a
// file a scan takes: not a directory, nor reached through a symbolic
// link. links caches beyondSymlink's answers.
func (c *Capturer) isBack(p string, links map[string]bool) bool {
	fi, err := os.Lstat(filepath.Join(c.Repo.Top, p))
	return err == nil && !fi.IsDir() && !c.beyondSymlink(p, links)
}

// returned finds the paths captures dropped that are back on disk, that
// the walk of untracked files did not list, and that the real index
// tracks: tracked files that match an ignore rule, which git still
// captures, as the first scan after a re-seed would. It returns them as
// entries to add; those on disk again leave Dropped either way.
func (c *Capturer) returned(ctx context.Context, st *indexState, entries []entry) ([]entry, error) {
	if len(st.Dropped) == 0 {
		return nil, nil
	}
	listed := map[string]bool{}
	for _, e := range entries {
		// An entry that differs from HEAD only ("D." for a path HEAD has
		// and the private index lost) is no change the scan takes.
		if !(e.kind == '1' && e.y == '.') {
			listed[e.path] = true
		}
	}
	var back []string
	kept := st.Dropped[:0]
	links := map[string]bool{}
	for _, p := range st.Dropped {
		switch {
		case !c.isBack(p, links):
			kept = append(kept, p) // still gone
		case !listed[p]:
			back = append(back, p)
		}
	}
	st.Dropped = kept
	if len(back) == 0 {
		return nil, nil
	}
	tracked, err := c.Git.Tracked(ctx, back, nil)
	if err != nil {
		return nil, err
	}
	var add []entry
	for _, p := range back {
		if tracked[p] {
			add = append(add, entry{kind: '?', y: 'A', path: p})
		}
	}
	return add, nil
}

// unopened reads the directories git could not open from its warnings
// ("warning: could not open directory 'DIR/': Permission denied"), as
// the checkpoint lists them: those that really are unreadable directories
// of the tree, and those whose path is longer than the system allows
// (git's walk goes on without them, and so does the capture, which can
// neither read nor write them either).
func (c *Capturer) unopened(warnings string) []store.Skip {
	const prefix = "warning: could not open directory '"
	var skips []store.Skip
	for _, line := range strings.Split(warnings, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		i := strings.LastIndex(rest, "/': ")
		if ok && i < 0 {
			// git cuts its messages at 4096 bytes, so the warning about
			// a directory whose path is longer than PATH_MAX (git
			// cannot open it) never ends: it names the deepest
			// directory it holds whole, which the checkpoint lists as
			// holding a path too long to capture.
			if j := strings.LastIndex(rest, "/"); j > 0 && len(line) >= maxGitMessage {
				skips = append(skips, store.Skip{Path: rest[:j], Reason: store.SkipPathTooLong})
			}
			continue
		}
		if !ok {
			continue
		}
		dir := rest[:i]
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, dir))
		switch {
		case errors.Is(err, syscall.ENAMETOOLONG):
			skips = append(skips, store.Skip{Path: dir, Reason: store.SkipPathTooLong})
		case err == nil && fi.IsDir() && !readable(filepath.Join(c.Repo.Top, dir)):
			skips = append(skips, store.Skip{Path: dir, Reason: store.SkipUnreadable})
		}
	}
	return skips
}

// maxGitMessage is where git cuts a message it prints (vreportf's buffer
// of 4096 bytes, its final NUL included).
const maxGitMessage = 4095

// readable reports whether this process may read path (or list it, for a
// directory): what git needs to capture it.
func readable(path string) bool {
	return syscall.Access(path, 0o4) == nil // R_OK
}

// skipReason says why a regular file (fi its lstat) is not captured, or
// "" when it is: too big (tooBig), or unreadable. The full scan and
// partial captures both ask it, so that they store a path alike; seen
// collects the big files found to be new content (nil: not kept).
func (c *Capturer) skipReason(ctx context.Context, st *indexState, path string, fi fs.FileInfo, seen map[string]string) string {
	switch {
	case c.tooBig(ctx, st, path, fi, seen):
		return store.SkipTooBig
	case !readable(filepath.Join(c.Repo.Top, path)):
		return store.SkipUnreadable
	}
	return ""
}

// parseStatus reads `git status --porcelain=v2 -z`: the entries, and the
// paths listed as ignored.
func parseStatus(out []byte) (entries []entry, ignored []string) {
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		line := fields[i]
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case '1':
			f := strings.SplitN(line, " ", 9)
			if len(f) == 9 && len(f[1]) == 2 {
				entries = append(entries, entry{kind: '1', y: f[1][1], sub: f[2], path: f[8]})
			}
		case '2':
			// Renames are off; skip the original-path field if one appears.
			f := strings.SplitN(line, " ", 10)
			if len(f) == 10 && len(f[1]) == 2 {
				entries = append(entries, entry{kind: '1', y: f[1][1], sub: f[2], path: f[9]})
			}
			i++
		case 'u':
			f := strings.SplitN(line, " ", 11)
			if len(f) == 11 {
				entries = append(entries, entry{kind: 'u', y: 'M', sub: f[2], path: f[10]})
			}
		case '?':
			entries = append(entries, entry{kind: '?', y: 'A', path: line[2:]})
		case '!':
			ignored = append(ignored, line[2:])
		}
	}
	return entries, ignored
}

// parseDiffRaw reads `git diff --raw -z --no-renames` of the private
// index against the work tree as the entries status would give of it:
// ":<index mode> <work tree mode> <id> <id> <status>" NUL "<path>" NUL.
// An unmerged path ("U") is status's 'u', one entry, as status gives it:
// git follows the "U" with a comparison of the path's stage 2 when that
// differs too, which is dropped. A submodule (a gitlink on either side)
// gets status's submodule field, "SC.." when its commit moved (the only
// change --ignore-submodules=dirty reports of one).
func parseDiffRaw(out []byte) ([]entry, error) {
	var entries []entry
	rest := string(out)
	for rest != "" {
		meta, after, ok := strings.Cut(rest, "\x00")
		path, next, ok2 := strings.Cut(after, "\x00")
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !ok || !ok2 || !strings.HasPrefix(meta, ":") || len(f) != 5 || f[4] == "" {
			return nil, fmt.Errorf("git diff --raw: unexpected record %q", meta)
		}
		e := entry{kind: '1', y: f[4][0], sub: "N...", path: path}
		if f[0] == "160000" || f[1] == "160000" {
			e.sub = "S..."
			if e.y == 'M' {
				e.sub = "SC.."
			}
		}
		rest = next
		if n := len(entries); n > 0 && entries[n-1].kind == 'u' && entries[n-1].path == path {
			continue // stage 2 of the unmerged path before it
		}
		if e.y == 'U' {
			e.kind, e.y = 'u', 'M'
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// selection is what a scan found to write into the private index.
type selection struct {
	updates  []string          // paths to add, refresh or remove (when gone)
	removals []string          // paths to drop although update-index would refuse or keep them
	gitlinks map[string]string // gitlinks added or moved (path to commit), or gone ("")
}

// beyondSymlink reports whether a leading directory of path is now a
// symlink, as when a tracked directory was replaced by a link. Such a path
// is gone, but update-index --remove refuses it ("beyond a symbolic
// link"); only --force-remove drops it. seen caches what was found per
// directory.
func (c *Capturer) beyondSymlink(path string, seen map[string]bool) bool {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		link, ok := seen[dir]
		if !ok {
			fi, err := os.Lstat(filepath.Join(c.Repo.Top, dir))
			link = err == nil && fi.Mode()&os.ModeSymlink != 0
			seen[dir] = link
		}
		if link {
			return true
		}
	}
	return false
}

// selectUpdates turns status entries into the paths to update, applying the
// size limits (b) and the nested-repository rule, and counting changes.
func (c *Capturer) selectUpdates(ctx context.Context, entries []entry, snap *Snapshot, st *indexState, b budget) (*selection, error) {
	sel := &selection{gitlinks: map[string]string{}}
	dirs := map[string]bool{} // leading directories found to be symlinks
	var added []sized
	// A big skipped file is not in the private index, so every scan
	// reports it: what this one finds is all the next needs.
	big := map[string]string{}
	defer func() { st.TooBig = big }()
	gone := map[string]bool{}
	for _, e := range entries {
		if e.kind == '1' && e.y == '.' {
			continue // differs from HEAD only, not from the private index
		}
		if e.kind == '1' && e.y != 'D' && strings.HasPrefix(e.sub, "S") && e.sub[1] != 'C' {
			// A submodule with new content but the same commit. One
			// deleted from the tree is gone (below), whatever its
			// commit: git still calls it a submodule.
			continue
		}
		path := e.path
		if c.Repo.Owns(path) {
			continue // a git directory in the tree (Repo.Owns)
		}
		if e.kind == '?' && strings.HasSuffix(path, "/") {
			// git lists a nested repository as one directory.
			path = strings.TrimSuffix(path, "/")
			commit := c.headOf(ctx, path)
			if commit == "" {
				snap.Skipped = append(snap.Skipped, store.Skip{Path: path, Reason: store.SkipNestedRepo})
				continue
			}
			sel.gitlinks[path] = commit
			sel.updates = append(sel.updates, path)
			snap.Changes.Added++
			continue
		}
		if e.kind == '1' && e.y == 'D' {
			gone[path] = true
			st.drop(path)
			if c.beyondSymlink(path, dirs) {
				sel.removals = append(sel.removals, path)
			} else {
				sel.updates = append(sel.updates, path)
			}
			sel.gitlinks[path] = ""
			snap.Changes.Deleted++
			continue
		}
		if e.kind == '1' && strings.HasPrefix(e.sub, "S") {
			sel.gitlinks[path] = c.headOf(ctx, path)
		}
		fi, err := os.Lstat(filepath.Join(c.Repo.Top, path))
		if err == nil && unsupportedType(fi) {
			// A FIFO or a socket where a file was, or a new one git
			// listed: git cannot store it, and the tree loses what
			// the private index held there, as for a file too big.
			snap.Skipped = append(snap.Skipped, store.Skip{Path: path, Reason: store.SkipUnsupported})
			if !slices.Contains(st.Unsupported, path) {
				st.Unsupported = append(st.Unsupported, path)
			}
			if e.kind != '?' {
				sel.removals = append(sel.removals, path)
				snap.Changes.Deleted++
			}
			continue
		}
		if err == nil && fi.Mode().IsRegular() {
			if why := c.skipReason(ctx, st, path, fi, big); why != "" {
				snap.Skipped = append(snap.Skipped, store.Skip{Path: path, Bytes: fi.Size(), Reason: why})
				if e.kind != '?' {
					// The private index holds an older version; left
					// there, the checkpoint would claim content the
					// file may no longer have. The tree loses it: counted
					// as a deletion, as a comparison of the trees does.
					sel.removals = append(sel.removals, path)
					snap.Changes.Deleted++
				}
				continue
			}
			added = append(added, sized{path, fi.Size(), e.kind == '?'})
		}
		sel.updates = append(sel.updates, path)
		if e.kind == '?' {
			snap.Changes.Added++
		} else {
			snap.Changes.Modified++
		}
	}
	b.gone = gone
	leave, err := c.over(ctx, b, added)
	if err != nil || len(leave) == 0 {
		return sel, err
	}
	// The untracked files left out: never added, so the next scan finds
	// them untracked again and leaves them out alike.
	updates := sel.updates[:0]
	for _, p := range sel.updates {
		if leftOut(leave, p) {
			snap.Changes.Added--
			delete(sel.gitlinks, p) // a nested repository in it
		} else {
			updates = append(updates, p)
		}
	}
	sel.updates = updates
	snap.Skipped = append(snap.Skipped, leave...)
	return sel, nil
}

// headOf returns the commit HEAD names in the nested repository at path,
// or "" when it has none yet; only a repository with a commit can be
// recorded as a gitlink. git is pointed at the nested repository alone, so
// that a GIT_DIR the caller set for the outer one cannot answer instead.
func (c *Capturer) headOf(ctx context.Context, path string) string {
	dir := filepath.Join(c.Repo.Top, path)
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"rev-parse", "-q", "--verify", "HEAD^{commit}"},
		Dir: dir, Nested: true, Env: []string{"GIT_DIR=" + filepath.Join(dir, ".git")}})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// HumanBytes prints a size the way people read it.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
