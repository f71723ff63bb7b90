package cli

import (
	"context"
	"path/filepath"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

const initHelp = `Outside any git repository, create a private store in this directory: a git
directory inside a hidden .git-checkpoint folder, which is never captured.
Every git checkpoint and git rewind run in this directory or below it then
uses it; .gitignore files apply as in a repository. Nothing else ever
creates one. Refuses your home directory and / unless --force: every
checkpoint would scan, and could copy, everything below them.`

type initCmd struct {
	Force bool `help:"Create the store even in your home directory or /."`
}

// Help is the long help of git checkpoint init.
func (c *initCmd) Help() string { return initHelp }

func (c *initCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	dir := g.Chdir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &git.Runner{Dir: abs, Env: git.CleanEnv(sys.Environ())}
	if sys.Getenv("GIT_CHECKPOINT_TRACE") != "" {
		r.Trace = &git.LockedWriter{W: sys.Stderr}
	}
	out := newPrinter(sys, g)
	repo, err := git.Discover(ctx, r)
	if git.IsRefusal(err) {
		return err
	}
	if err == nil {
		return fault.New(fault.InvalidInRepository, "%s is in the git repository %s, which keeps its checkpoints itself", fault.Quote(abs), fault.Quote(repo.Top)).
			WithHint("take one with 'git checkpoint'; a private store is only for directories outside any repository")
	}
	if top := git.EnclosingWorkTree(abs); top != "" {
		return fault.New(fault.InvalidInRepository, "%s is inside the work tree %s (it holds .git), which git does not open from here", fault.Quote(abs), fault.Quote(top)).
			WithHint("a private store is only for directories outside any work tree; run git checkpoint in " + fault.Quote(top) + ", or remove its .git if it is no repository")
	}
	switch top := git.FindPrivate(abs); {
	case top == abs:
		out.Printf("a private store already exists in %s\n", fault.Quote(filepath.Join(abs, git.PrivateFolder)))
		return nil
	case top != "":
		return fault.New(fault.InvalidInPrivateStore, "%s is inside the private store of %s", fault.Quote(abs), fault.Quote(top)).
			WithHint("'git checkpoint' here already uses that store")
	}
	if !c.Force {
		home := sys.Getenv("HOME")
		if real, err := filepath.EvalSymlinks(home); err == nil {
			home = real
		}
		what := ""
		switch {
		case abs == "/":
			what = "the root directory"
		case home != "" && abs == filepath.Clean(home):
			what = "your home directory"
		}
		if what != "" {
			return fault.New(fault.InvalidTooBroad, "not creating a private store in %s (%s): every checkpoint would scan, and could copy, everything below it", what, fault.Quote(abs)).
				WithHint("run it in a project's directory, or pass --force if you mean it")
		}
	}
	if err := git.InitPrivate(ctx, r, abs); err != nil {
		return fault.Wrap(err, fault.As(err).Code, "cannot create the private store")
	}
	out.Printf("created a private store in %s\n", fault.Quote(filepath.Join(abs, git.PrivateFolder)))
	out.Printf("git checkpoint and git rewind here and below use it; .gitignore files apply\n")
	return nil
}
