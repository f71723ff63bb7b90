package cli

import (
	"context"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
)

// fork runs `git rewind --worktree` under the lock and prints what it did.
func (c *rewindCLI) fork(ctx context.Context, s *session, rw *rewind.Rewinder) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	path := c.Worktree
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cwd, path)
	}
	res, err := rw.Fork(ctx, c.ID, path, c.DryRun)
	if err != nil {
		return err
	}
	return s.printFork(res, !c.DryRun)
}

func (s *session) printFork(res *rewind.Fork, done bool) error {
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
	s.out.Printf("%s worktree %s on branch %s at %s (HEAD %s)\n", verb, fault.Quote(res.Worktree), res.Branch, res.Checkpoint, fault.Short(res.Head))
	if n := len(res.Files); n > 0 {
		s.out.Printf("%d %s as uncommitted changes on top, as they were at %s\n", n, fault.Plural(n, "path", "paths"), res.Checkpoint)
	}
	for _, l := range res.Left {
		s.out.Printf("  left %-18s %s\n", l.Reason, fault.Quote(l.Path))
	}
	if done {
		s.out.Printf("this tree is unchanged; go there with: cd %s\n", fault.ShellQuote(res.Worktree))
	}
	return nil
}
