package cli

import (
	"context"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

type diffCmd struct {
	ID    string   `arg:"" complete:"checkpoint" help:"The checkpoint to compare from."`
	ID2   string   `arg:"" optional:"" complete:"checkpoint" help:"The checkpoint to compare to (default: the working tree now)."`
	Stat  bool     `help:"Show a diffstat instead of the patch."`
	Paths []string `kong:"-"`
}

// Run hands the two trees to the real git diff, with the user's own
// configuration, so their pager, colors and diff drivers apply.
func (c *diffCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	j, refs, err := s.Journal(ctx)
	if err != nil {
		return err
	}
	from, _, err := s.Resolve(ctx, j, refs, c.ID)
	if err != nil {
		return err
	}
	to := ""
	if c.ID2 != "" {
		r, _, err := s.Resolve(ctx, j, refs, c.ID2)
		if err != nil {
			return err
		}
		to = r.Tree
	} else {
		unlock, err := s.Lock(ctx)
		if err != nil {
			return err
		}
		snap, err := s.Capture.Snapshot(ctx, j)
		unlock()
		if err != nil {
			return err
		}
		to = snap.Tree
	}
	args := []string{"diff"}
	if c.Stat {
		args = append(args, "--stat")
	}
	if s.out.color {
		args = append(args, "--color=always")
	} else if g.Color == "never" || sys.Getenv("NO_COLOR") != "" {
		args = append(args, "--color=never")
	}
	args = append(args, from.Tree, to, "--")
	for _, p := range c.Paths {
		spec, err := s.Pathspec(p)
		if err != nil {
			return err
		}
		args = append(args, spec)
	}
	_, err = s.Git.Run(ctx, git.Cmd{Args: args, User: true, Stdout: sys.Stdout, Stderr: sys.Stderr})
	return err
}
