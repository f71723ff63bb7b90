package rewind

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Fork is the JSON document of `git rewind --worktree`.
type Fork struct {
	Checkpoint string         `json:"checkpoint"`
	DryRun     bool           `json:"dry_run"`
	Worktree   string         `json:"worktree"`
	Branch     string         `json:"branch"`
	Head       string         `json:"head"`
	Files      []restore.File `json:"files"`
	Left       []restore.Left `json:"left"`
}

// Fork makes a new linked worktree at path (absolute) on a new branch
// rewind/<id> at the checkpoint's HEAD, then writes the checkpoint's files
// there, so that its uncommitted changes are uncommitted changes in the
// fork too; with dry, it only says what it would do. This tree, its index
// and HEAD are not touched. The checkpoint must still be what its record
// says (its ref unmoved): Resolve refuses a moved ref as not_found. The
// caller holds the lock.
func (r *Rewinder) Fork(ctx context.Context, id, path string, dry bool) (*Fork, error) {
	j, refs, err := r.Journal(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		snap, err := r.Capture.Snapshot(ctx, j)
		if err != nil {
			return nil, err
		}
		if t := DefaultTarget(j, refs, snap.Tree); t != nil {
			id = t.ID
		} else {
			id = "@"
		}
	}
	target, err := turns.Resolve(j, refs, id)
	if err != nil {
		return nil, err
	}
	if target.Head == "" {
		return nil, fault.New(fault.UnsupportedUnbornHead, "%s was taken before the first commit: a worktree needs a commit to start from", target.ID).
			WithHint("rewind this tree instead: 'git rewind " + target.ID + "'")
	}
	path = filepath.Clean(path)
	branch, err := r.freeBranch(ctx, "rewind/"+target.ID)
	if err != nil {
		return nil, err
	}
	out, err := r.Git.Run(ctx, git.Cmd{Args: []string{"rev-parse", "--verify", "-q", target.Head + "^{tree}"}})
	if err != nil {
		return nil, fault.Wrap(err, fault.NotFoundCommit, "%s's HEAD %s is no longer in the repository", target.ID, fault.Short(target.Head))
	}
	headTree := strings.TrimSpace(string(out))
	res := &Fork{Checkpoint: target.ID, DryRun: dry, Worktree: path, Branch: branch, Head: target.Head}
	if dry {
		plan, err := forkPlan(ctx, r.Git, path, headTree, target)
		if err != nil {
			return nil, err
		}
		res.Files, res.Left = plan.Files, plan.Left
		return res, nil
	}

	// worktree add runs no hooks (core.hooksPath is pinned) and checks
	// the files out with the user's filters, as any checkout would.
	if _, err := r.Git.Run(ctx, git.Cmd{Args: []string{"worktree", "add", "--quiet", "-b", branch, path, target.Head}}); err != nil {
		return nil, fault.Wrap(err, fault.FailedGit, "cannot create the worktree %s", path)
	}
	fr := &git.Runner{Dir: path, Env: r.Git.Env, Trace: r.Git.Trace, Fsmonitor: r.Git.Fsmonitor}
	repo, err := git.Discover(ctx, fr)
	if err == nil {
		err = fill(ctx, fr, repo, headTree, target, res)
	}
	if err != nil {
		// Leave nothing half made: the worktree and its branch go.
		r.Git.Run(ctx, git.Cmd{Args: []string{"worktree", "remove", "--force", path}})
		r.Git.Run(ctx, git.Cmd{Args: []string{"branch", "-D", branch}})
		return nil, fault.Wrap(err, fault.As(err).Code, "cannot write %s's files into the new worktree, which was removed", target.ID)
	}
	return res, nil
}

// forkPlan is the plan that turns a fresh checkout of the target's HEAD
// (tree headTree) at top into the target: a fresh checkout holds what git
// gives back, so the files kept byte for byte are written as they were.
func forkPlan(ctx context.Context, g *git.Runner, top, headTree string, target *store.Record) (*restore.Plan, error) {
	return restore.New(ctx, g, restore.Request{Top: top, Current: headTree, Head: target.Head, Target: target})
}

// fill writes the checkpoint's files over the fresh checkout of its HEAD.
func fill(ctx context.Context, fr *git.Runner, repo *git.Repo, headTree string, target *store.Record, res *Fork) error {
	plan, err := forkPlan(ctx, fr, repo.Top, headTree, target)
	if err != nil {
		return err
	}
	staging := filepath.Join(repo.StateDir, "staging")
	if err := mkdirAll(staging); err != nil {
		return err
	}
	a := &restore.Applier{Git: fr, Top: repo.Top, Staging: staging}
	if err := a.Apply(ctx, plan, target.ID); err != nil {
		return err
	}
	leaveUnwritten(plan, a.Left)
	res.Files, res.Left = plan.Files, plan.Left
	return nil
}

// freeBranch returns name, or name-2, name-3... when taken.
func (r *Rewinder) freeBranch(ctx context.Context, name string) (string, error) {
	refs, err := r.Git.ForEachRef(ctx, "refs/heads/"+name, "refs/heads/"+name+"-*")
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, ref := range refs {
		taken[strings.TrimPrefix(ref.Name, "refs/heads/")] = true
	}
	cand := name
	for i := 2; taken[cand]; i++ {
		cand = name + "-" + strconv.Itoa(i)
	}
	return cand, nil
}
