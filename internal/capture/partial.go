package capture

import (
	"context"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// MaxOnly is the most paths a per-tool capture (Options.Only) updates one
// by one. A tool call that names more gets a full scan: hashing hundreds of
// named files costs about what the scan does, and the scan is exact.
const MaxOnly = 100

// maxPartial bounds the paths SnapshotPaths takes at all (a rewind's plan
// can be large): past it, the paths would not fit on git's command line.
const maxPartial = 5000

// SnapshotPaths captures the tree of the newest checkpoint with only the
// named paths brought up to date: a partial snapshot, whose cost follows
// the number of paths and not the size of the tree. Paths are absolute or
// from the top of the tree; those outside the tree are dropped, since they
// cannot change it.
//
// Each path is treated as the full scan would treat it: ignored paths that
// the base does not hold are not added, skip-worktree paths are left
// alone, the size limits apply, and the file is hashed by the same `git
// update-index --add --remove --replace` (filters, modes and symlinks as
// git stores them), run on a small temporary index that holds only those
// paths. The new entries are then written into copies of the base's trees
// along each path; no other tree is read.
//
// Whenever a path is one the surgery does not handle exactly (a directory,
// a symlink or file on its way, a nested repository, a .git component, a
// .gitattributes, a .gitignore without expect.Hidden) or there is no
// newest checkpoint to build on, it falls back to a full scan,
// so the result is never wrong, only sometimes slower. The private index
// is not touched: the next full scan finds these paths changed and hashes
// them again.
//
// expect, when not nil, is what the caller knows the result should be (a
// rewind's target, after it wrote its plan): when the result is that tree,
// no tree is written, and when it also knows every path's entry before and
// after, no tree is read either.
//
// As Snapshot, it leaves out new untracked files over
// checkpoint.maxTotalBytes; the files expect says were written with
// content the store holds are not new.
func (c *Capturer) SnapshotPaths(ctx context.Context, j *store.Journal, paths []string, expect *Expect) (*Snapshot, error) {
	return c.snapshotPaths(ctx, j, paths, expect, nil, budget{stored: expect.stored()})
}

// Expect is what the caller of SnapshotPaths knows of the result.
type Expect struct {
	// Tree is the tree the caller expects, known to exist with every
	// tree below it.
	Tree string
	// Base and Entries, when set, say more: the newest checkpoint's tree
	// is Base, which holds each named path as its entry's OldMode and
	// OldOID (git.AbsentMode for none), and Tree is Base with every named
	// path holding its entry's Mode and OID, as git diff-tree of Base and
	// Tree gives them. A capture whose hashes give each path its new entry
	// is then Tree without reading Base's trees; any other result is
	// spliced as usual. Each file is still read and hashed: that is the
	// check that it holds what was written.
	Base    string
	Entries map[string]git.DiffEntry
	// Stored are the paths the caller wrote with content the store
	// holds (a rewind's target's files), which the capture does not count
	// as new content (budget).
	Stored map[string]bool
	// Hidden, when set, is what the ignore rules hid before the caller
	// wrote the named paths (a rewind's, taken before it wrote): with
	// it, a .gitignore among them needs no full scan, since only the
	// files it lists can have come into the tree (rulesChanged).
	Hidden *Hidden
}

func (e *Expect) stored() map[string]bool {
	if e == nil {
		return nil
	}
	return e.Stored
}

// snapshotPaths is SnapshotPaths with the entries of files hashed before
// the lock (prehash.go), or nil, under the budget b.
func (c *Capturer) snapshotPaths(ctx context.Context, j *store.Journal, paths []string, expect *Expect, pre *Prehash, b budget) (*Snapshot, error) {
	snap, ok, err := c.partial(ctx, j, paths, expect, pre, b)
	if err != nil || ok {
		return snap, err
	}
	return c.snapshot(ctx, j, b)
}

func (c *Capturer) partial(ctx context.Context, j *store.Journal, paths []string, expect *Expect, pre *Prehash, b budget) (*Snapshot, bool, error) {
	base := j.Latest()
	if base == nil || len(paths) == 0 || len(paths) > maxPartial {
		return nil, false, nil
	}
	if err := c.Store.Init(); err != nil {
		return nil, false, err
	}
	var items []*named
	seen := map[string]bool{}
	rules := false // a .gitignore among the paths
	add := func(p string) bool {
		rel, inside, ok := c.fromTop(p)
		if !ok {
			return false
		}
		if !inside || seen[rel] {
			return true
		}
		switch path.Base(rel) {
		case ".gitattributes":
			// It can change how every other path is converted: only
			// a scan applies that.
			return false
		case ".gitignore":
			// It can change which paths are ignored: a scan applies
			// that, unless the caller listed what was hidden before.
			if expect == nil || expect.Hidden == nil {
				return false
			}
			rules = true
		}
		seen[rel] = true
		it, ok := c.probe(rel)
		if ok {
			items = append(items, it)
		}
		return ok
	}
	for _, p := range paths {
		if !add(p) {
			return nil, false, nil
		}
	}
	if len(items) == 0 {
		// Every name was outside the tree: nothing in it changed.
		return &Snapshot{Partial: true, Known: true, Tree: base.Tree, Skipped: base.Skipped, Submodules: base.Submodules}, true, nil
	}
	st := c.loadState()
	var ignoredNow []string // of base's paths, all the new rules ignore
	if rules {
		revealed, ignored, ok, err := c.rulesChanged(ctx, st, base.Tree, expect.Hidden)
		if err != nil {
			// A full scan finds what the question would have: before
			// Hidden, it always did.
			c.Git.Tracef("hidden: %v; a full scan instead", err)
		}
		if err != nil || !ok || len(items)+len(revealed)+len(ignored) > maxPartial {
			return nil, false, nil
		}
		for _, p := range append(revealed, ignored...) {
			if !add(p) {
				return nil, false, nil
			}
		}
		ignoredNow = ignored
	}
	// The ignore rules are asked beside the reading of the base's trees:
	// neither depends on the other, and parallel hooks wait for each
	// other's captures on the store lock, so every process taken off the
	// path of one capture shortens the queue.
	planned, ok := expect.baseOf(base.Tree, items), true
	ignoredc := c.ignoredAsync(ctx, items, st, planned)
	var sp *splice
	var err error
	if !planned {
		sp, ok, err = c.newSplice(ctx, base.Tree, items)
	}
	ign := <-ignoredc
	if err != nil || !ok {
		return nil, false, err
	}
	if ign.err != nil {
		return nil, false, ign.err
	}
	if len(ignoredNow) > 0 {
		// Base's paths, which a planned capture does not ask about.
		ign.ignored = maps.Clone(ign.ignored)
		if ign.ignored == nil {
			ign.ignored = map[string]bool{}
		}
		for _, p := range ignoredNow {
			ign.ignored[p] = true
		}
	}
	snap := &Snapshot{Partial: true, Known: true, Skipped: st.skipped(), Submodules: base.Submodules}
	b.newest = base.Tree
	if ok, err := c.screen(ctx, st, items, ign.ignored, snap, b); err != nil || !ok {
		return nil, false, err
	}
	may := c.mayConvert(st) || c.attributesOnPath(pathsOf(items))
	pre.apply(items, len(base.Tree), !may)
	index, blobs, err := c.hashNamed(ctx, items, may, len(base.Tree))
	if index != "" {
		defer os.Remove(index)
	}
	if err != nil {
		return nil, false, err
	}
	blobs = unique(append(blobs, pre.blobs(items)...))
	for _, sk := range base.Skipped {
		if sk.Reason != store.SkipSkipWorktree && !seen[sk.Path] {
			snap.Skipped = append(snap.Skipped, sk)
		}
	}
	for _, it := range items {
		if !it.skip {
			it.count(&snap.Changes, it.base, it.inBase)
		}
	}
	switch {
	case planned && expect.met(items):
		snap.Tree = expect.Tree
	default:
		if sp == nil {
			// Not as planned: read the base's trees after all.
			if sp, ok, err = c.newSplice(ctx, base.Tree, items); err != nil || !ok {
				return nil, false, err
			}
		}
		if snap.Tree, err = sp.write(ctx, []string{base.Tree, expect.tree()}, blobs); err != nil {
			return nil, false, err
		}
	}
	if snap.Raw, err = c.partialRaw(ctx, base, items, may); err != nil {
		return nil, false, err
	}
	if may || len(st.Raw) > 0 {
		// The capturer's overlay learns of the named files too: one
		// written back to what the private index holds (a rewind's) is
		// no change the next scan reports.
		c.updateRaw(ctx, st, itemEntries(items), skipless(items), false, len(base.Tree))
		if err := c.saveState(st); err != nil {
			return nil, false, fault.Wrap(err, fault.FailedIO, "cannot save the private index state")
		}
	}
	return snap, true, nil
}

// partialRaw is the raw overlay (raw.go) of a partial snapshot: its
// base's, with the named paths the tree took examined again against their
// new entries. Files kept raw elsewhere stay as the base has them, as
// their entries in the tree do. The capturer's own overlay is not asked:
// it is the private index's, which a scan since the base (a dry run's)
// may have moved past the base; nor changed, since the private index is
// not (the next scan examines these paths again).
func (c *Capturer) partialRaw(ctx context.Context, base *store.Record, items []*named, may bool) (string, error) {
	if !may && base.Raw == "" {
		return "", nil
	}
	st := &indexState{Raw: map[string]rawEntry{}}
	if base.Raw != "" {
		entries, err := c.Git.LsTree(ctx, base.Raw, git.LsTreeOptions{Recursive: true})
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			st.Raw[e.Path] = rawEntry{OID: e.OID, Mode: e.Mode}
		}
	}
	check := skipless(items)
	st.RawTree = base.Raw // updateRaw empties it when it changes the overlay
	c.updateRaw(ctx, st, itemEntries(items), check, false, len(base.Tree))
	if st.RawTree != "" {
		return st.RawTree, nil
	}
	return c.rawTree(ctx, st)
}

// skipless are the paths of the items the tree takes.
func skipless(items []*named) []string {
	var out []string
	for _, it := range items {
		if !it.skip {
			out = append(out, it.path)
		}
	}
	return out
}

// itemEntries are the entries the items take in the snapshot's tree.
func itemEntries(items []*named) map[string]gitformat.Entry {
	out := make(map[string]gitformat.Entry, len(items))
	for _, it := range items {
		if it.present && !it.skip {
			out[it.path] = it.entry
		}
	}
	return out
}

// fromTop turns p into a path from the top of the tree. inside is false
// for a path outside the tree; ok is false when the partial capture cannot
// take the path (the top itself, a .git component, a name git's batch
// protocols cannot carry, a directory that cannot be resolved).
func (c *Capturer) fromTop(p string) (rel string, inside, ok bool) {
	if p == "" || strings.ContainsAny(p, "\n\x00") {
		return "", false, false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Repo.Top, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(c.Repo.Top, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		// The tree may have been reached through a symlinked directory
		// (git reports Top with symlinks resolved): resolve the parent.
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", false, false
		}
		if rel, err = filepath.Rel(c.Repo.Top, filepath.Join(dir, filepath.Base(p))); err != nil {
			return "", false, false
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "", false, true
		}
	}
	if rel == "." {
		return "", true, false
	}
	rel = filepath.ToSlash(rel)
	for _, comp := range strings.Split(rel, "/") {
		if strings.EqualFold(comp, ".git") {
			return "", true, false
		}
	}
	if c.Repo.Owns(rel) {
		return "", false, true // the repository's own directory is no part of the tree
	}
	return rel, true, true
}

// ignoredResult is what check-ignore said of the named paths.
type ignoredResult struct {
	ignored map[string]bool
	err     error
}

// ignoredAsync marks the skip-worktree paths and starts asking the ignore
// rules about the others that exist, for screen. planned says the items'
// base entries are the caller's plan's (Expect.baseOf) and the rules are
// the base's: a path the base holds is then not asked about, since the
// base is the tree a full scan took moments ago under the same rules (a
// rewind's safety checkpoint), which held no ignored file it did not
// track. Where a .gitignore among the named paths changed the rules, the
// caller adds the paths of base they ignore now (rulesChanged).
func (c *Capturer) ignoredAsync(ctx context.Context, items []*named, st *indexState, planned bool) <-chan ignoredResult {
	var check []string
	for _, it := range items {
		switch {
		case slices.Contains(st.SkipWork, it.path):
			it.skip = true
		case it.present && !(planned && it.inBase):
			check = append(check, it.path)
		}
	}
	out := make(chan ignoredResult, 1)
	if g := c.group; g != nil {
		// Asked for the whole group before its first capture.
		out <- ignoredResult{ignored: g.ignored}
		return out
	}
	if len(check) == 0 {
		out <- ignoredResult{}
		return out
	}
	go func() {
		ignored, err := c.Git.IgnoredUntracked(ctx, check, nil)
		out <- ignoredResult{ignored, err}
	}()
	return out
}

// screen marks the paths the full scan would not capture: skip-worktree
// ones (ignoredAsync marked them), ignored ones, and files over the size
// limits or unreadable. It reports false when only a full scan can say (a
// big file the base holds).
func (c *Capturer) screen(ctx context.Context, st *indexState, items []*named, ignored map[string]bool, snap *Snapshot, b budget) (bool, error) {
	for _, it := range items {
		if it.present && !it.skip && ignored[it.path] {
			// As after a full scan that finds the rules changed
			// (ignoredNow): one captured before and ignored now
			// leaves the tree.
			it.skip, it.present = !it.inBase, false
		}
	}
	for _, it := range items {
		if it.present && it.inBase && it.fi.Mode().IsRegular() && it.size > c.Cfg.MaxFileBytes {
			// The full scan keeps a big file the index holds while it is
			// unchanged and drops it once it changes; only a scan can
			// tell which.
			return false, nil
		}
	}
	var added []sized
	for _, it := range items {
		if it.skip || !it.present {
			continue
		}
		if why := c.skipReason(ctx, st, it.path, it.fi, nil); why != "" && it.fi.Mode().IsRegular() {
			snap.Skipped = append(snap.Skipped, store.Skip{Path: it.path, Bytes: it.size, Reason: why})
			// As in a full scan, the tree does not claim the content the
			// base has for it.
			it.skip, it.present = !it.inBase, false
			continue
		}
		added = append(added, sized{it.path, it.size, !it.inBase})
	}
	leave, err := c.over(ctx, b, added)
	// Files to leave out are left by a full scan, which sees the whole
	// of the untracked directories they are in.
	return len(leave) == 0, err
}

// baseOf gives each item its entry in base from the caller's plan, and
// reports whether it could: the plan is of this base and names every item.
func (e *Expect) baseOf(base string, items []*named) bool {
	if e == nil || e.Entries == nil || e.Base != base {
		return false
	}
	for _, it := range items {
		if _, ok := e.Entries[it.path]; !ok {
			return false
		}
	}
	for _, it := range items {
		it.base, it.inBase = gitformat.Entry{}, false
		if x := e.Entries[it.path]; x.OldMode != git.AbsentMode {
			it.base, it.inBase = gitformat.Entry{Mode: x.OldMode, OID: x.OldOID}, true
		}
	}
	return true
}

// met reports whether every item came out as the plan has it after, which
// makes the result the expected tree.
func (e *Expect) met(items []*named) bool {
	for _, it := range items {
		x := e.Entries[it.path]
		got, has := it.entry, it.present
		if it.skip {
			got, has = it.base, it.inBase
		}
		if want := x.Mode != git.AbsentMode; has != want || has && got != (gitformat.Entry{Mode: x.Mode, OID: x.OID}) {
			return false
		}
	}
	return true
}

func (e *Expect) tree() string {
	if e == nil {
		return ""
	}
	return e.Tree
}
