package capture

import (
	"bytes"
	"context"
	"maps"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Hidden is what the ignore rules hid from the tree at one moment: every
// untracked path they ignored, a directory they ignore whole as one entry
// ("dir/"). A caller about to change a .gitignore (a rewind) takes it
// before, and the partial capture after it asks git which of these the
// new rules no longer ignore (revealed): only they can have come into the
// tree, where a full scan would walk every directory again to find them.
type Hidden struct {
	entries []string
	scope   *IgnoreScope // where the rules changed
}

// maxHiddenBytes bounds the names a Hidden holds, all of which go on one
// command line: past it, the capture after is a full scan.
const maxHiddenBytes = 256 << 10

// maxScopePaths bounds the paths of an IgnoreScope asked about one by one
// (a .gitignore written by a tool can hold thousands of rules): past it,
// the whole tree is.
const maxScopePaths = 1000

// Hidden lists what the ignore rules hide now within scope, where the
// caller is about to change them. The last scan's list serves when it
// made one (a whole scan, wholeStatus); otherwise one walk of the
// untracked directories in scope lists it, which a rewind runs beside its
// staging. It returns nil, which makes the capture after a full scan,
// where the list would be too long for a command line or a directory
// could not be read (the full scan records it as skipped).
func (c *Capturer) Hidden(ctx context.Context, scope *IgnoreScope) (*Hidden, error) {
	specs := scope.Pathspecs()
	if !c.Git.CaseSensitive || len(specs) > maxScopePaths {
		// Under core.ignoreCase a rule matches names the scope's
		// literal paths do not; past maxScopePaths, the command line
		// would be long for little gain.
		scope, specs = &IgnoreScope{All: true}, nil
	}
	var entries []string
	switch {
	case c.listed:
		entries = slices.DeleteFunc(slices.Clone(c.ignored), func(e string) bool { return !scope.touches(e) })
	case scope.All || len(specs) > 0:
		var warnings bytes.Buffer
		out, err := c.Git.Run(ctx, git.Cmd{
			Args: append([]string{"--literal-pathspecs", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--"},
				specs...),
			Index: c.PrivateIndex(), Warnings: &warnings,
		})
		if err != nil {
			return nil, err
		}
		if warnings.Len() > 0 {
			return nil, nil
		}
		entries = git.SplitNUL(out)
	}
	size := 0
	for _, e := range entries {
		size += len(e) + 1
	}
	if len(entries) > maxPartial || size > maxHiddenBytes {
		c.Git.Tracef("hidden: %d ignored entries, too many to ask about; the capture after scans", len(entries))
		return nil, nil
	}
	return &Hidden{entries: entries, scope: scope}, nil
}

// revealed lists the files of h that the ignore rules on disk now do not
// ignore, and that the private index does not hold: one walk of the
// entries' directories only, under the new rules. ok is false where git
// could not read one of them (the full scan records what it skips).
func (c *Capturer) revealed(ctx context.Context, h *Hidden) (paths []string, ok bool, err error) {
	if len(h.entries) == 0 {
		return nil, true, nil
	}
	var warnings bytes.Buffer
	out, err := c.Git.Run(ctx, git.Cmd{
		Args:  append([]string{"--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--"}, h.entries...),
		Index: c.PrivateIndex(), Warnings: &warnings,
	})
	if err != nil || warnings.Len() > 0 {
		return nil, false, err
	}
	paths = git.SplitNUL(out)
	c.Git.Tracef("hidden: %d ignored paths asked about, %d files no longer ignored", len(h.entries), len(paths))
	return paths, true, nil
}

// rulesChanged says what a .gitignore among the named paths changes in a
// partial capture on base, as a full scan would take it: the files hidden
// before that the new rules no longer ignore (revealed, from h), and the
// files base holds untracked that they ignore now (ignored), which screen
// takes out of the tree. Those are every path of base the new rules
// ignore: no other needs asking. ok is false where only a full scan can
// say.
func (c *Capturer) rulesChanged(ctx context.Context, st *indexState, base string, h *Hidden) (revealed, ignored []string, ok bool, err error) {
	revealed, ok, err = c.revealed(ctx, h)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	if h.scope.All {
		// Base is the private index's tree with the files a scan took
		// without writing them into it (pending.go).
		var pending []string
		for p, e := range st.Pending {
			if e.Mode != "" {
				pending = append(pending, p)
			}
		}
		ignored, ok, err = c.ignoredNow(ctx, st, pending)
	} else {
		ignored, ok, err = c.ignoredWithin(ctx, base, h.scope)
	}
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return revealed, ignored, true, nil
}

// ignoredWithin lists the files of base within scope that the real index
// does not track and the rules ignore now. Where the rules changed in a
// few places, listing base there costs less than reading both indexes
// whole (ignoredNow).
func (c *Capturer) ignoredWithin(ctx context.Context, base string, scope *IgnoreScope) ([]string, bool, error) {
	specs := scope.Pathspecs()
	if len(specs) == 0 {
		return nil, true, nil // the rules changed nowhere
	}
	entries, err := c.Git.LsTree(ctx, base, git.LsTreeOptions{Recursive: true, FullTree: true, Paths: specs})
	if err != nil {
		return nil, false, err
	}
	var files []string
	links := map[string]bool{}
	for _, e := range entries {
		// check-ignore refuses a path beyond a symlink (ignoredNow).
		if !c.beyondSymlink(e.Path, links) {
			files = append(files, e.Path)
		}
	}
	ignored, err := c.Git.IgnoredUntracked(ctx, files, nil)
	if err != nil {
		return nil, false, err
	}
	c.Git.Tracef("ignore rules changed: %d of the %d files the base holds where they changed are ignored now", len(ignored), len(files))
	return slices.Sorted(maps.Keys(ignored)), true, nil
}
