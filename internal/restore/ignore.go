package restore

import (
	"context"
	"os"
	"path"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// touchesIgnoreRules reports whether the plan changes a .gitignore file.
func touchesIgnoreRules(files []File) bool {
	for _, f := range files {
		if path.Base(f.Path) == ".gitignore" {
			return true
		}
	}
	return false
}

// ignoredByTarget returns those of paths that the target tree's ignore
// rules ignore: its .gitignore files, with the repository's info/exclude
// and core.excludesFile. Such a path is in the tree now only because the
// rules changed since the checkpoint (an agent edited .gitignore); the
// checkpoint does not hold it because it was ignored then, and a rewind
// must not delete it, or an undo would delete every file a rewound
// .gitignore had stopped hiding.
//
// git reads .gitignore files only from a working tree, so the target's
// are checked out into a scratch directory that check-ignore treats as
// the working tree. Five git processes, paid only by plans that change a
// .gitignore.
//
// stay are .gitignore files the plan leaves as they are now: their
// current version (Old*) counts instead of the target's.
func ignoredByTarget(ctx context.Context, r *git.Runner, tree string, paths []string, stay map[string]File) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(paths) == 0 {
		return ignored, nil
	}
	entries, err := r.LsTree(ctx, tree, git.LsTreeOptions{Recursive: true, FullTree: true})
	if err != nil {
		return nil, err
	}
	var rules []git.IndexEntry
	for _, e := range entries {
		// git follows no symlinked .gitignore; only regular files count.
		if _, left := stay[e.Path]; !left && path.Base(e.Path) == ".gitignore" && (e.Mode == "100644" || e.Mode == "100755") {
			rules = append(rules, git.IndexEntry{Mode: e.Mode, OID: e.OID, Path: e.Path})
		}
	}
	for p, f := range stay {
		if f.OldMode == "100644" || f.OldMode == "100755" {
			rules = append(rules, git.IndexEntry{Mode: f.OldMode, OID: f.OldOID, Path: p})
		}
	}
	// The scratch directory lives in the tool's own state directory, on
	// git's word of where that is (this path is rare enough to pay for
	// the question).
	state, err := r.GitPath(ctx, "checkpoints")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(state, "ignore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	wt := filepath.Join(scratch, "wt")
	if err := os.Mkdir(wt, 0o700); err != nil {
		return nil, err
	}
	if len(rules) > 0 {
		index := filepath.Join(scratch, "index")
		if err := r.UpdateIndexInfo(ctx, index, rules); err != nil {
			return nil, err
		}
		if err := r.CheckoutAll(ctx, index, wt+"/"); err != nil {
			return nil, err
		}
	}
	return r.IgnoredUntracked(ctx, paths, []string{"GIT_WORK_TREE=" + wt})
}
