package rewind

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// madeBy returns the paths the rewind rw created: not in its safety
// checkpoint's tree, in its own checkpoint's as its target has them, and
// not left because an ignored file sat there. A file that was ignored
// before (a rewound .gitignore made it visible, or it sat in the way, even
// with the target's very content) is none of them, and an undo never
// deletes it.
func (r *Rewinder) madeBy(ctx context.Context, j *store.Journal, rw *store.Rewind) (map[string]bool, error) {
	safety := j.ByID(rw.Safety)
	if safety == nil || rw.InTheWayMore {
		return nil, nil
	}
	var after *store.Record
	for _, c := range j.Checkpoints() {
		if c.N > safety.N && c.Reason == store.ReasonRewind {
			after = c
			break
		}
	}
	if after == nil {
		return nil, nil
	}
	added, err := r.Git.DiffTree(ctx, safety.Tree, after.Tree, git.DiffTreeOptions{Format: git.DiffNameOnly, Filter: "A"})
	if err != nil || len(added) == 0 {
		return nil, err
	}
	made := map[string]bool{}
	var paths []string
	for _, e := range added {
		made[e.Path] = true
		paths = append(paths, e.Path)
	}
	unlike, err := r.Git.DiffTree(ctx, rw.Commit, after.Tree, git.DiffTreeOptions{Format: git.DiffNameOnly, LiteralPathspecs: true, Pathspecs: paths})
	if err != nil {
		return nil, err
	}
	for _, e := range unlike {
		delete(made, e.Path) // not as the target has it
	}
	for _, p := range rw.InTheWay {
		delete(made, p) // an ignored file that was there, as the target has it
	}
	return made, nil
}

// checkPaths refuses a PATH that names nothing: neither the working tree
// nor the plan (which holds every path the checkpoint has and the tree
// lacks) has it or anything below it. "Already matches" would hide a typo.
func (r *Rewinder) checkPaths(plan *restore.Plan, paths []string) error {
	var missing []string
	planned := plan.Paths()
	for _, l := range plan.Left {
		planned = append(planned, l.Path)
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(r.Repo.Top, p)); err == nil {
			continue
		}
		named := slices.ContainsFunc(planned, func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") })
		if !named {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		quoted := make([]string, len(missing))
		for i, p := range missing {
			quoted[i] = fault.Quote(p)
		}
		return fault.New(fault.NotFoundPath, "%s: in neither %s nor the working tree", strings.Join(quoted, ", "), plan.Target.ID).
			WithHint("paths are relative to the current directory; 'git checkpoint show " + plan.Target.ID + "' and 'git ls-tree -r " + plan.Target.Commit[:12] + "' list what it holds").
			WithData(map[string][]string{"paths": missing})
	}
	return nil
}

// keepHookConfig leaves the agents' files in the tree that hold
// git-checkpoint's hooks or register its MCP server, now or in the
// checkpoint: writing one would switch the product off (a rewind to
// before the install) or back on (after an uninstall), which only install
// and uninstall do.
func (r *Rewinder) keepHookConfig(ctx context.Context) func(restore.File) string {
	settings, mcpFiles := agents.TreeSettings(), agents.TreeMCPFiles()
	return func(f restore.File) string {
		hooks, mcp := slices.Contains(settings, f.Path), slices.Contains(mcpFiles, f.Path)
		if !hooks && !mcp {
			return ""
		}
		now, _ := os.ReadFile(filepath.Join(r.Repo.Top, f.Path))
		then, ok := r.checkpointBlob(ctx, f)
		switch {
		case hooks && (agents.HoldsHooks(now) || !ok || agents.HoldsHooks(then)):
			return restore.LeftHookConfig
		case mcp && (agents.RegistersMCP(f.Path, now) || !ok || agents.RegistersMCP(f.Path, then)):
			return restore.LeftMCPConfig
		}
		return ""
	}
}

// checkpointBlob is what the checkpoint holds at f's path: nothing, with
// ok, when it holds no file there (absent, a symlink); ok is false when
// the blob cannot be read, which keeps the file.
func (r *Rewinder) checkpointBlob(ctx context.Context, f restore.File) (body []byte, ok bool) {
	if f.Mode != "100644" && f.Mode != "100755" {
		return nil, true
	}
	objs, err := r.Git.CatFile(ctx, []string{f.OID})
	if err != nil || len(objs) != 1 || objs[0].Missing {
		return nil, false
	}
	return objs[0].Body, true
}
