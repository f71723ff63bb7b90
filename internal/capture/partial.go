package capture

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
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
// a symlink or file on its way, a nested repository, a .git component) or
// there is no newest checkpoint to build on, it falls back to a full scan,
// so the result is never wrong, only sometimes slower. The private index
// is not touched: the next full scan finds these paths changed and hashes
// them again.
//
// expect, when not empty, is a tree the caller expects the result to be
// and knows to exist (a rewind's target): when it is, no tree is written.
func (c *Capturer) SnapshotPaths(ctx context.Context, j *store.Journal, paths []string, expect string) (*Snapshot, error) {
	snap, ok, err := c.partial(ctx, j, paths, expect)
	if err != nil || ok {
		return snap, err
	}
	return c.Snapshot(ctx, j)
}

// named is one path a partial capture brings up to date.
type named struct {
	path    string // from the top, slash-separated
	present bool   // a regular file or a symlink is there now
	size    int64  // of a regular file
	base    treeEntry
	inBase  bool // the base tree holds a blob there
	entry   treeEntry
	skip    bool // left as the base has it (ignored, skip-worktree, too big)
	known   bool // entry is known already; no need to hash the file
	fi      fs.FileInfo
}

func (c *Capturer) partial(ctx context.Context, j *store.Journal, paths []string, expect string) (*Snapshot, bool, error) {
	base := j.Latest()
	if base == nil || len(paths) == 0 || len(paths) > maxPartial {
		return nil, false, nil
	}
	if err := c.Store.Init(); err != nil {
		return nil, false, err
	}
	var items []*named
	seen := map[string]bool{}
	for _, p := range paths {
		rel, inside, ok := c.fromTop(p)
		if !ok {
			return nil, false, nil
		}
		if !inside || seen[rel] {
			continue
		}
		if name := path.Base(rel); name == ".gitignore" || name == ".gitattributes" {
			// Either can change how every other path is captured
			// (ignored, converted): only a scan applies that.
			return nil, false, nil
		}
		seen[rel] = true
		it, ok := c.probe(rel)
		if !ok {
			return nil, false, nil
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		// Every name was outside the tree: nothing in it changed.
		return &Snapshot{Partial: true, Known: true, Tree: base.Tree, Skipped: base.Skipped, Submodules: base.Submodules}, true, nil
	}
	hexLen := len(base.Tree)
	trees, ok, err := c.baseTrees(ctx, base.Tree, items, hexLen)
	if err != nil || !ok {
		return nil, false, err
	}
	st := c.loadState()
	snap := &Snapshot{Partial: true, Known: true, Skipped: st.skipped(), Submodules: base.Submodules}
	if ok, err := c.screen(ctx, items, st, snap); err != nil || !ok {
		return nil, false, err
	}
	index, err := c.hashNamed(ctx, items)
	if index != "" {
		defer os.Remove(index)
	}
	if err != nil {
		return nil, false, err
	}
	for _, sk := range base.Skipped {
		if sk.Reason != store.SkipSkipWorktree && !seen[sk.Path] {
			snap.Skipped = append(snap.Skipped, sk)
		}
	}
	for _, it := range items {
		if it.skip {
			continue
		}
		switch {
		case it.inBase && !it.present:
			snap.Changes.Deleted++
		case !it.inBase && it.present:
			snap.Changes.Added++
		case it.inBase && it.entry != it.base:
			snap.Changes.Modified++
		}
	}
	snap.Tree, ok, err = c.writeTrees(ctx, trees, items, hexLen, []string{base.Tree, expect})
	if err != nil || !ok {
		return nil, false, err
	}
	// The raw overlay (raw.go) follows the named paths too: those the
	// tree took are examined again, against the temporary index that
	// holds their new entries. Files kept raw elsewhere stay as they are,
	// as their entries in the tree do; the next scan checks them.
	if c.mayConvert(st) {
		var check []string
		for _, it := range items {
			if !it.skip {
				check = append(check, it.path)
			}
		}
		c.updateRaw(ctx, st, index, check, false)
		if err := c.saveState(st); err != nil {
			return nil, false, fault.Wrap(err, "failed.io", "cannot save the private index state")
		}
	}
	if snap.Raw, err = c.rawTree(ctx, st); err != nil {
		return nil, false, err
	}
	return snap, true, nil
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
	return rel, true, true
}

// probe looks at what is at rel now, refusing (ok false) anything but a
// regular file, a symlink or nothing, reached through real directories
// that are not nested repositories.
func (c *Capturer) probe(rel string) (*named, bool) {
	it := &named{path: rel}
	dir := c.Repo.Top
	comps := strings.Split(rel, "/")
	for _, comp := range comps[:len(comps)-1] {
		dir = filepath.Join(dir, comp)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return it, true // the whole directory is gone
		}
		if err != nil || !fi.IsDir() {
			return nil, false
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return nil, false
		}
	}
	fi, err := os.Lstat(filepath.Join(c.Repo.Top, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return it, true
	case err != nil:
		return nil, false
	case fi.Mode().IsRegular():
		it.present, it.size, it.fi = true, fi.Size(), fi
		return it, true
	case fi.Mode()&fs.ModeSymlink != 0:
		it.present, it.fi = true, fi
		return it, true
	}
	return nil, false
}

// baseTrees reads, in one `git cat-file --batch`, the base's tree of every
// directory on the way to each named path, and notes each path's entry in
// the base. A blob or submodule where a directory must be is refused.
func (c *Capturer) baseTrees(ctx context.Context, root string, items []*named, hexLen int) (map[string]map[string]treeEntry, bool, error) {
	var dirs []string
	want := map[string]bool{"": true}
	dirs = append(dirs, "")
	for _, it := range items {
		for d := path.Dir(it.path); d != "."; d = path.Dir(d) {
			if !want[d] {
				want[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	reqs := make([]string, len(dirs))
	for i, d := range dirs {
		reqs[i] = root
		if d != "" {
			reqs[i] = root + ":" + d
		}
	}
	objs, err := c.Git.CatFile(ctx, reqs)
	if err != nil {
		return nil, false, err
	}
	raw := map[string]map[string]treeEntry{}
	for i, d := range dirs {
		// Any other object than a tree, or none: the parent's entry decides.
		if objs[i].Type == "tree" {
			if raw[d], err = parseTree(objs[i].Body, hexLen/2); err != nil {
				return nil, false, err
			}
		}
	}
	if raw[""] == nil {
		return nil, false, nil // the base tree is gone: scan instead
	}
	// Keep only the directories the base really holds as trees, walking
	// from the root, and find each path's base entry.
	trees := map[string]map[string]treeEntry{"": raw[""]}
	for _, it := range items {
		parent := ""
		comps := strings.Split(it.path, "/")
		for i, comp := range comps {
			entries := trees[parent]
			if entries == nil {
				break // a directory the base does not have
			}
			e, ok := entries[comp]
			if i == len(comps)-1 {
				if ok && e.isBlob() {
					it.base, it.inBase = e, true
				} else if ok && it.present {
					return nil, false, nil // a directory or submodule becomes a file
				} else if ok {
					return nil, false, nil // a directory or submodule is named: scan
				}
				break
			}
			dir := path.Join(parent, comp)
			switch {
			case !ok:
			case e.isTree() && raw[dir] != nil:
				trees[dir] = raw[dir]
			default:
				return nil, false, nil // a file or submodule on the way
			}
			parent = dir
		}
	}
	return trees, true, nil
}

// screen marks the paths the full scan would not capture: skip-worktree
// ones, ignored ones, and files over the size limits or unreadable. It
// reports false when only a full scan can say (a big file the base holds).
func (c *Capturer) screen(ctx context.Context, items []*named, st *indexState, snap *Snapshot) (bool, error) {
	var check []string
	for _, it := range items {
		switch {
		case slices.Contains(st.SkipWork, it.path):
			it.skip = true
		case it.present:
			check = append(check, it.path)
		}
	}
	if len(check) > 0 {
		ignored, err := c.Git.IgnoredUntracked(ctx, check, nil)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it.present && ignored[it.path] {
				// As after a full scan, which re-seeds the private
				// index when the rules change: one captured before and
				// ignored now leaves the tree.
				it.skip, it.present = !it.inBase, false
			}
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
	var total int64
	var added []sized
	for _, it := range items {
		if it.skip || !it.present {
			continue
		}
		if why := c.skipReason(it.path, it.size); why != "" && it.fi.Mode().IsRegular() {
			snap.Skipped = append(snap.Skipped, store.Skip{Path: it.path, Bytes: it.size, Reason: why})
			// As in a full scan, the tree does not claim the content the
			// base has for it.
			it.skip, it.present = !it.inBase, false
			continue
		}
		total += it.size
		added = append(added, sized{it.path, it.size})
	}
	if total > c.Cfg.MaxTotalBytes {
		return false, c.tooLarge(total, added)
	}
	return true, nil
}

// hashNamed stores the present paths' content through a temporary index
// that holds only them (seeded with their base entries, so that
// core.fileMode=false and core.symlinks=false keep the base's modes as
// they would in the private index), and reads back their entries. It
// returns the temporary index, which the caller removes, or "" when no
// path needed hashing.
func (c *Capturer) hashNamed(ctx context.Context, items []*named) (string, error) {
	args := []string{"update-index", "--add", "--remove", "--replace"}
	var stdin bytes.Buffer
	for _, it := range items {
		if it.skip || !it.present || it.known {
			continue
		}
		if it.inBase {
			args = append(args, "--cacheinfo", strings.TrimPrefix(it.base.mode, "0")+","+it.base.oid+","+it.path)
		}
		stdin.WriteString(it.path + "\x00")
	}
	if stdin.Len() == 0 {
		return "", nil
	}
	index := c.Store.Path("partial-index")
	os.Remove(index)
	if _, err := c.Git.Run(ctx, git.Cmd{Args: append(args, "-z", "--stdin"), Index: index, Stdin: stdin.Bytes()}); err != nil {
		return index, err
	}
	entries, err := c.Git.LsStage(ctx, index)
	if err != nil {
		return index, err
	}
	got := map[string]treeEntry{}
	for _, e := range entries {
		got[e.Path] = treeEntry{mode: e.Mode, oid: e.OID}
	}
	for _, it := range items {
		if it.skip || !it.present || it.known {
			continue
		}
		if e, ok := got[it.path]; ok {
			it.entry = e
		} else {
			it.present = false // gone since it was looked at
		}
	}
	return index, nil
}

// writeTrees applies the named paths to the base's trees and writes every
// tree that changed, deepest first, in one `git mktree --batch`. The ids
// are computed here too (a parent names its children's ids before git has
// printed them) and must agree with git's. When the new root is one of
// known (trees that exist, with every tree below them), nothing is written.
func (c *Capturer) writeTrees(ctx context.Context, trees map[string]map[string]treeEntry, items []*named, hexLen int, known []string) (string, bool, error) {
	dirty := map[string]bool{"": true}
	for _, it := range items {
		if it.skip {
			continue
		}
		dir, name := path.Dir(it.path), path.Base(it.path)
		if dir == "." {
			dir = ""
		}
		if !it.present {
			if entries := trees[dir]; entries != nil && it.inBase {
				delete(entries, name)
			}
		} else {
			for d := dir; d != ""; d = parentOf(d) {
				if trees[d] == nil {
					trees[d] = map[string]treeEntry{}
				}
			}
			trees[dir][name] = it.entry
		}
		for d := dir; ; d = parentOf(d) {
			dirty[d] = true
			if d == "" {
				break
			}
		}
	}
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	var in strings.Builder
	var want []string
	root := ""
	for _, d := range order {
		entries := trees[d]
		name := path.Base(d)
		parent := trees[parentOf(d)]
		if d != "" && len(entries) == 0 {
			delete(parent, name) // git stores no empty directories
			continue
		}
		body, err := encodeTree(entries)
		if err != nil {
			return "", false, err
		}
		oid := objectID("tree", body, hexLen)
		for _, e := range sortedEntries(entries) {
			in.WriteString(mktreeLine(e.name, e.entry))
		}
		in.WriteString("\n")
		want = append(want, oid)
		if d == "" {
			root = oid
		} else {
			parent[name] = treeEntry{mode: "40000", oid: oid}
		}
	}
	if slices.Contains(known, root) {
		return root, true, nil
	}
	out, err := c.Git.Run(ctx, git.Cmd{Args: []string{"mktree", "--missing", "--batch"}, Stdin: []byte(in.String())})
	if err != nil {
		return "", false, err
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, want) {
		return "", false, fault.New("failed.internal", "git mktree wrote trees %v, expected %v", got, want)
	}
	return root, true, nil
}

type namedEntry struct {
	name  string
	entry treeEntry
}

func sortedEntries(entries map[string]treeEntry) []namedEntry {
	out := make([]namedEntry, 0, len(entries))
	for n, e := range entries {
		out = append(out, namedEntry{n, e})
	}
	slices.SortFunc(out, func(a, b namedEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

func parentOf(d string) string {
	p := path.Dir(d)
	if p == "." {
		return ""
	}
	return p
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}
