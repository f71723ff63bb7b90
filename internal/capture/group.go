package capture

import (
	"context"
	"path"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Parallel tool calls fire their hooks at once, and each waits for the
// store lock while the one before it runs the same few git processes: a
// check-ignore, a cat-file for the base's trees, an index-pack (before
// packs were written here), a commit-tree and an update-ref, then a sync
// and a journal line. Ten hooks paid that ten times in a row. A hook that holds the lock takes the
// captures the hooks waiting behind it asked for as a group
// (CaptureGroup): each is still its own checkpoint, taken as its hook
// would have taken it, one after another, but the group asks check-ignore
// once, reads the trees of each checkpoint before it from memory, writes
// every blob, tree and commit in one pack, every ref in one update-ref
// transaction, syncs once, and journals every line in one write.

// group collects what a group's captures write, until CaptureGroup writes
// it all at once.
type group struct {
	objs []git.Object
	refs []git.RefUpdate
	// ignored holds check-ignore's answer for every path of the group
	// (Capturer.IgnoredUntracked's), asked once before its captures.
	ignored map[string]bool
	hexLen  int
}

// CaptureGroup takes the per-tool checkpoint of each of opts, in order, as
// Capture would one after another, and records them together: one pack,
// one ref transaction, one sync, one journal write, with every guarantee
// of Record (objects and refs on disk before the lines that name them).
// It returns a record for each of opts, or nil for one it left to its
// caller: one that is not Groupable or that a partial capture cannot take
// (it needs a full scan), or one that failed. An error means none was recorded,
// and j is not to be used again.
func (c *Capturer) CaptureGroup(ctx context.Context, j *store.Journal, opts []Options) ([]*store.Record, error) {
	base := j.Latest()
	if base == nil || len(opts) == 0 {
		return nil, nil
	}
	g := &group{hexLen: len(base.Tree)}
	rels := groupPaths(c, opts)
	var err error
	if g.ignored, err = c.Git.IgnoredUntracked(ctx, rels, nil); err != nil {
		return nil, err
	}
	c.readGroupTrees(ctx, base.Tree, rels)
	c.group = g
	recs := make([]*store.Record, len(opts))
	for i, o := range opts {
		if !o.Groupable() {
			continue
		}
		snap, ok, err := c.partial(ctx, j, o.Only, nil, o.Prehash, budget{strict: true})
		if err != nil || !ok {
			continue
		}
		rec, err := c.Commit(ctx, j, snap, o)
		if err != nil {
			continue
		}
		if err := c.Store.Stage(j, store.Event{Type: store.EventCheckpoint, At: rec.At, Checkpoint: rec}); err != nil {
			continue
		}
		recs[i] = rec
	}
	c.group = nil
	if len(g.objs) > 0 {
		if err := c.Git.WritePack(ctx, unique(g.objs), g.hexLen == 64); err != nil {
			return nil, err
		}
	}
	if len(g.refs) > 0 {
		if err := c.Git.UpdateRefs(ctx, g.refs); err != nil {
			return nil, err
		}
		if err := c.Store.SyncRefs(); err != nil {
			return nil, err
		}
	}
	if err := c.Store.Flush(j); err != nil {
		return nil, err
	}
	// A checkpoint.packEvery-th checkpoint of the group packs, as a
	// capture of its own would have.
	for _, rec := range recs {
		if rec != nil {
			c.PackIfDue(ctx, rec)
		}
	}
	return recs, nil
}

// groupPaths are the paths in the tree a group's captures name, from its
// top.
func groupPaths(c *Capturer, opts []Options) []string {
	var rels []string
	for _, o := range opts {
		for _, p := range o.Only {
			if rel, inside, ok := c.fromTop(p); ok && inside {
				rels = append(rels, rel)
			}
		}
	}
	return rels
}

// readGroupTrees reads, in one cat-file, the trees of the base along
// every path of the group, which git.Runner then holds (a group needs the
// command's git.Trees; CatFile and ReadTrees keep every tree they read):
// each capture of the group builds on the one before it, which holds them
// still where it changed nothing below them, and its own new trees where
// it did (heldTrees). A tree it could not read is read by the capture
// that needs it.
func (c *Capturer) readGroupTrees(ctx context.Context, root string, rels []string) {
	dirs, seen := []string{""}, map[string]bool{"": true}
	for _, rel := range rels {
		for d := parentOf(rel); d != "" && !seen[d]; d = parentOf(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	c.readTrees(ctx, root, dirs)
}

// add keeps objects for the group's pack.
func (g *group) add(objs ...git.Object) { g.objs = append(g.objs, objs...) }

// commit is the commit CommitTree would write for req at the time at,
// kept for the group's pack.
func (g *group) commit(req git.CommitRequest, at time.Time) string {
	body := commitBody(req, at)
	id := gitformat.ID("commit", body, g.hexLen)
	g.add(git.Object{ID: id, Type: "commit", Body: body})
	return id
}

// heldTrees returns the bodies of the trees at dirs in root, as readTrees
// does, from the trees this command holds (git.Trees): a group's capture
// builds on the one before it, whose trees are only in memory until the
// group is written. ok is false when a tree on the way is not held.
func (c *Capturer) heldTrees(root string, dirs []string) (map[string][]byte, bool) {
	body, ok := c.Git.Trees.Body(root)
	if !ok {
		return nil, false
	}
	out := map[string][]byte{"": body}
	parsed := map[string]map[string]gitformat.Entry{}
	var find func(d string) ([]byte, bool, bool) // body, is a tree, held
	find = func(d string) ([]byte, bool, bool) {
		if b, ok := out[d]; ok {
			return b, true, true
		}
		parent := parentOf(d)
		pb, isTree, held := find(parent)
		if !isTree || !held {
			return nil, isTree, held
		}
		entries, ok := parsed[parent]
		if !ok {
			var err error
			if entries, err = gitformat.ParseTree(pb, len(root)/2); err != nil {
				return nil, false, false
			}
			parsed[parent] = entries
		}
		e, ok := entries[path.Base(d)]
		if !ok || !e.IsTree() {
			return nil, false, true
		}
		b, ok := c.Git.Trees.Body(e.OID)
		if !ok {
			return nil, true, false
		}
		out[d] = b
		return b, true, true
	}
	for _, d := range dirs {
		if _, _, held := find(d); !held {
			return nil, false
		}
	}
	return out, true
}
