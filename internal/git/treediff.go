package git

import (
	"context"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/gitformat"
)

// diffHeld is DiffTrees answered from held trees (Runner.Trees), without
// a diff-tree process, when it can be: every pair has a tree held (walks
// prunes every subtree the two sides share, so the other side's trees
// are read only where they differ, from one `git cat-file --batch`), and
// opts asks for nothing but a format and a plain filter. ok false means
// git must answer instead: a pair with neither tree held, a pathspec, or
// a tree below that git does not have as one (git then says why).
//
// A pair with one tree held is a command's own new tree against an older
// one (a rewind's scan against its target): walking it here needs none
// of the objects a write aside is storing, which a diff-tree would wait
// for (docs/speed.md, "Waiting hooks in one group, writes aside").
//
// The walk is gitformat.Differ's, which compares as diff-tree does
// (TestDifferAgreesWithGit); the trees it reads come from here.
func (r *Runner) diffHeld(ctx context.Context, pairs []TreePair, opts DiffTreeOptions) ([][]DiffEntry, bool) {
	if len(opts.Pathspecs) > 0 || !plainFilter(opts.Filter) {
		return nil, false
	}
	for _, p := range pairs {
		if !r.Trees.walkable(p) || len(p.From) != len(p.To) {
			return nil, false
		}
	}
	tr := &treeReader{r: r, ctx: ctx, trees: r.Trees}
	defer tr.close()
	d := &gitformat.Differ{Bodies: tr.bodies}
	res := make([][]DiffEntry, len(pairs))
	for i, p := range pairs {
		entries, ok := d.Diff(p.From, p.To)
		if !ok {
			return nil, false
		}
		res[i] = format(entries, opts)
	}
	return res, true
}

// plainFilter reports whether filter is one diffHeld applies itself:
// none, or some of the statuses it gives (A, D, M, T), to keep.
func plainFilter(filter string) bool {
	return strings.Trim(filter, "ADMT") == ""
}

// format applies opts' filter and format to raw entries.
func format(entries []DiffEntry, opts DiffTreeOptions) []DiffEntry {
	out := entries[:0]
	for _, e := range entries {
		if opts.Filter != "" && !strings.Contains(opts.Filter, e.Status) {
			continue
		}
		switch opts.Format {
		case DiffNameOnly:
			e = DiffEntry{Path: e.Path}
		case DiffNameStatus:
			e = DiffEntry{Status: e.Status, Path: e.Path}
		}
		out = append(out, e)
	}
	return out
}
