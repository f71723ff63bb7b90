package cli

import (
	"context"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/remote"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/rewind"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// fork runs `git rewind --worktree` and prints what it did.
func (c *rewindCLI) fork(ctx context.Context, s *session, rw *rewind.Rewinder) error {
	path := c.Worktree
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Cwd, path)
	}
	res, err := rw.Fork(ctx, c.ID, path, c.DryRun)
	if err != nil {
		return err
	}
	if _, _, ok := turns.InStore(res.Checkpoint); ok && !c.DryRun {
		if err := s.continueThere(ctx, res); err != nil {
			return err
		}
	}
	return s.printFork(res, !c.DryRun)
}

// continueThere places the conversation of a fetched checkpoint, when its
// store carried it, where the agent looks for it in the new worktree.
// The worktree is made by then, so nothing here fails the fork: a
// conversation that cannot be placed is said instead.
func (s *session) continueThere(ctx context.Context, res *rewind.Fork) error {
	own, err := s.Store.ID()
	if err != nil {
		return err
	}
	dir, err := filepath.EvalSymlinks(res.Worktree)
	if err != nil {
		dir = res.Worktree
	}
	env := agents.Env{Home: s.sys.Getenv("HOME"), Getenv: s.sys.Getenv}
	got, err := remote.Continue(ctx, s.Git, own, res.Checkpoint, env, dir)
	if err != nil {
		res.NoResume = fault.As(err).Message
		return nil
	}
	res.Resume, res.Transcript = got.Resume, got.Transcript
	if got.Missing {
		res.NoResume = got.Why
	}
	return nil
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
	switch {
	case res.Resume != nil:
		s.out.Printf("its %s conversation is at %s; continue it there with: %s\n", res.Resume.Agent, fault.Quote(res.Transcript), res.Resume.Command)
	case res.NoResume != "":
		s.out.Printf("its conversation cannot be resumed here: %s\n", res.NoResume)
	}
	return nil
}
