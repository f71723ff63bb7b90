package rewind

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// Checkout is a linked worktree that holds a checkpoint's files: the fork
// `git rewind --worktree` leaves behind, and the tree bisect runs its
// command in. It is the one place a checkpoint is written into another
// worktree, so both get the same files.
type Checkout struct {
	Git     *git.Runner // git in the worktree
	Top     string
	Staging string
	Head    string // the commit the worktree's HEAD names
}

// WorktreeRequest says where a Checkout is made and of what.
type WorktreeRequest struct {
	Path   string // absolute
	Branch string // the new branch, or "" for a detached HEAD (no branch to clean up)
	// Staging is the applier's directory, on the worktree's filesystem;
	// "" is the new worktree's own state directory.
	Staging  string
	HeadTree string // the tree of Target.Head (HeadTree)
	Target   *store.Record
}

// HeadTree is the tree of the target's HEAD, which a fresh worktree
// checks out before the target's files are written over it.
func HeadTree(ctx context.Context, g *git.Runner, target *store.Record) (string, error) {
	out, err := g.Run(ctx, git.Cmd{Args: []string{"rev-parse", "--verify", "-q", target.Head + "^{tree}"}})
	if err != nil {
		return "", fault.Wrap(err, fault.NotFoundCommit, "%s's HEAD %s is no longer in the repository", target.ID, fault.Short(target.Head))
	}
	return strings.TrimSpace(string(out)), nil
}

// AddWorktree makes a linked worktree at req.Path at the target's HEAD
// and writes the target's files there, returning the plan it applied. On
// failure nothing is left: the worktree and its branch are removed.
func AddWorktree(ctx context.Context, g *git.Runner, req WorktreeRequest) (*Checkout, *restore.Plan, error) {
	// worktree add runs no hooks (core.hooksPath is pinned) and checks
	// the files out with the user's filters, as any checkout would.
	args := []string{"worktree", "add", "--quiet", "--detach", req.Path, req.Target.Head}
	if req.Branch != "" {
		args = []string{"worktree", "add", "--quiet", "-b", req.Branch, req.Path, req.Target.Head}
	}
	if _, err := g.Run(ctx, git.Cmd{Args: args}); err != nil {
		return nil, nil, fault.Wrap(err, fault.FailedGit, "cannot create the worktree %s", req.Path)
	}
	// The new worktree is found from its own directory: a GIT_DIR the
	// caller set names this repository's worktree, not the new one.
	fr := &git.Runner{Dir: req.Path, Env: git.Unanchored(g.Env), Trace: g.Trace, Fsmonitor: g.Fsmonitor}
	c := &Checkout{Git: fr, Top: req.Path, Staging: req.Staging, Head: req.Target.Head}
	repo, err := git.Discover(ctx, fr)
	var plan *restore.Plan
	if err == nil {
		c.Top = repo.Top
		fr.CaseSensitive = git.CaseSensitive(repo.Top)
		if c.Staging == "" {
			c.Staging = filepath.Join(repo.StateDir, "staging")
		}
		plan, err = c.Write(ctx, req.HeadTree, "", req.Target)
	}
	if err != nil {
		// Leave nothing half made: the worktree and its branch go.
		c.Remove(ctx, g)
		if req.Branch != "" {
			g.Run(ctx, git.Cmd{Args: []string{"branch", "-D", req.Branch}})
		}
		return nil, nil, fault.Wrap(err, fault.As(err).Code, "cannot write %s's files into the new worktree, which was removed", req.Target.ID)
	}
	return c, plan, nil
}

// Write turns the worktree, which holds the tree current with the raw
// overlay currentRaw (a fresh checkout of a HEAD has none), into the
// target: a plan of the difference, applied as a rewind applies one. A
// path the plan had to leave is not in the returned plan's Files.
func (c *Checkout) Write(ctx context.Context, current, currentRaw string, target *store.Record) (*restore.Plan, error) {
	plan, err := restore.New(ctx, c.Git, restore.Request{Top: c.Top, Current: current, CurrentRaw: currentRaw, Head: target.Head, Target: target})
	if err != nil {
		return nil, err
	}
	if err := mkdirAll(c.Staging); err != nil {
		return nil, err
	}
	a := &restore.Applier{Git: c.Git, Top: c.Top, Staging: c.Staging}
	if err := a.Write(ctx, plan, target.ID); err != nil {
		return nil, err
	}
	leaveUnwritten(plan, a.Left)
	return plan, nil
}

// Remove deletes the worktree and its administrative files, through g
// (git in this repository); whatever is in it goes too.
func (c *Checkout) Remove(ctx context.Context, g *git.Runner) error {
	_, err := g.Run(ctx, git.Cmd{Args: []string{"worktree", "remove", "--force", c.Top}})
	return err
}
