package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// forkResult is the JSON document of `git rewind --worktree`.
type forkResult struct {
	Checkpoint string         `json:"checkpoint"`
	DryRun     bool           `json:"dry_run"`
	Worktree   string         `json:"worktree"`
	Branch     string         `json:"branch"`
	Head       string         `json:"head"`
	Files      []restore.File `json:"files"`
	Left       []restore.Left `json:"left"`
}

// fork makes a new linked worktree at c.Worktree on a new branch
// rewind/<id> at the checkpoint's HEAD, then writes the checkpoint's files
// there, so that its uncommitted changes are uncommitted changes in the
// fork too. This tree, its index and HEAD are not touched. The checkpoint
// must still be what its record says (its ref unmoved): resolve refuses a
// moved ref as not_found.
func (c *rewindCLI) fork(ctx context.Context, s *session) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	j, refs, err := s.journal(ctx)
	if err != nil {
		return err
	}
	id := c.ID
	if id == "" {
		snap, err := s.cap.Snapshot(ctx, j)
		if err != nil {
			return err
		}
		if t := defaultTarget(j, refs, snap.Tree); t != nil {
			id = t.ID
		} else {
			id = "@"
		}
	}
	target, err := resolve(j, refs, id)
	if err != nil {
		return err
	}
	if target.Head == "" {
		return fault.New("unsupported.unborn_head", "%s was taken before the first commit: a worktree needs a commit to start from", target.ID).
			WithHint("rewind this tree instead: 'git rewind " + target.ID + "'")
	}
	path := c.Worktree
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cwd, path)
	}
	path = filepath.Clean(path)
	branch, err := s.freeBranch(ctx, "rewind/"+target.ID)
	if err != nil {
		return err
	}
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"rev-parse", "--verify", "-q", target.Head + "^{tree}"}})
	if err != nil {
		return fault.Wrap(err, "not_found.commit", "%s's HEAD %s is no longer in the repository", target.ID, short(target.Head))
	}
	headTree := strings.TrimSpace(string(out))
	res := forkResult{Checkpoint: target.ID, DryRun: c.DryRun, Worktree: path, Branch: branch, Head: target.Head}
	if c.DryRun {
		plan, err := restore.Compute(ctx, s.git, path, headTree, target.Head, nil, target, restore.Options{}, nil)
		if err != nil {
			return err
		}
		res.Files, res.Left = plan.Files, plan.Left
		return s.printFork(res, false)
	}

	// worktree add runs no hooks (core.hooksPath is pinned) and checks
	// the files out with the user's filters, as any checkout would.
	if _, err := s.git.Run(ctx, git.Cmd{Args: []string{"worktree", "add", "--quiet", "-b", branch, path, target.Head}}); err != nil {
		return fault.Wrap(err, "failed.git", "cannot create the worktree %s", path)
	}
	fr := &git.Runner{Dir: path, Env: s.git.Env, Trace: s.git.Trace, Fsmonitor: s.git.Fsmonitor}
	repo, err := git.Discover(ctx, fr)
	if err == nil {
		err = c.fill(ctx, fr, repo, headTree, target, &res)
	}
	if err != nil {
		// Leave nothing half made: the worktree and its branch go.
		s.git.Run(ctx, git.Cmd{Args: []string{"worktree", "remove", "--force", path}})
		s.git.Run(ctx, git.Cmd{Args: []string{"branch", "-D", branch}})
		return fault.Wrap(err, fault.As(err).Code, "cannot write %s's files into the new worktree, which was removed", target.ID)
	}
	return s.printFork(res, true)
}

// fill writes the checkpoint's files over the fresh checkout of its HEAD.
func (c *rewindCLI) fill(ctx context.Context, fr *git.Runner, repo *git.Repo, headTree string, target *store.Record, res *forkResult) error {
	plan, err := restore.Compute(ctx, fr, repo.Top, headTree, target.Head, nil, target, restore.Options{}, nil)
	if err != nil {
		return err
	}
	// A fresh checkout holds what git gives back; the files kept byte
	// for byte are written as they were.
	if err := plan.AddRaw(ctx, fr, ""); err != nil {
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
func (s *session) freeBranch(ctx context.Context, name string) (string, error) {
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"for-each-ref", "--format=%(refname)", "refs/heads/" + name, "refs/heads/" + name + "-*"}})
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, ref := range strings.Fields(string(out)) {
		taken[strings.TrimPrefix(ref, "refs/heads/")] = true
	}
	cand := name
	for i := 2; taken[cand]; i++ {
		cand = name + "-" + strconv.Itoa(i)
	}
	return cand, nil
}

func (s *session) printFork(res forkResult, done bool) error {
	if res.Files == nil {
		res.Files = []restore.File{}
	}
	if res.Left == nil {
		res.Left = []restore.Left{}
	}
	if s.out.json {
		return s.out.JSON(res)
	}
	verb := "would create"
	if done {
		verb = "created"
	}
	s.out.Printf("%s worktree %s on branch %s at %s (HEAD %s)\n", verb, fault.Quote(res.Worktree), res.Branch, res.Checkpoint, short(res.Head))
	if n := len(res.Files); n > 0 {
		s.out.Printf("%d %s as uncommitted changes on top, as they were at %s\n", n, plural(n, "path", "paths"), res.Checkpoint)
	}
	for _, l := range res.Left {
		s.out.Printf("  left %-18s %s\n", l.Reason, fault.Quote(l.Path))
	}
	if done {
		s.out.Printf("this tree is unchanged; go there with: cd %s\n", shellQuote(res.Worktree))
	}
	return nil
}
